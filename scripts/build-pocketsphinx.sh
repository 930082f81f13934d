#!/usr/bin/env bash
# Builds the live speech recognition addon (native/pocketsphinx: a resident
# pocketsphinx decoder fed audio as it arrives) with node-gyp against Debian's
# libpocketsphinx-dev and libsphinxbase-dev 0.8+5prealpha, found with
# pkg-config.
#
# Output: native/pocketsphinx/build/Release/pocketsphinx_decoder.node, which
# src/voice/stt/pocketsphinx-addon.ts loads. A no-op (one `node` start) when
# that file exists, is newer than binding.gyp and the C++ sources, and loads.
#
# Needs the Debian packages g++ make pkg-config libpocketsphinx-dev
# libsphinxbase-dev (scripts/debian-packages.txt) and `npm ci` done
# (node-addon-api). Node's headers come from the running node's prefix
# (<prefix>/include/node), since node-gyp would otherwise download them.
# FORCE=1 rebuilds regardless.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'build-pocketsphinx: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

dir=native/pocketsphinx
out=$dir/build/Release/pocketsphinx_decoder.node
sources=("$dir/binding.gyp" "$dir"/*.cc "$dir"/*.h)

# Loading is enough (it installs the log callback and defines the class);
# decoding needs a model, which the tests cover.
addon_loads() {
  node -e '
    const a = require(process.argv[1]);
    if (typeof a.createDecoder !== "function") process.exit(1);
  ' "$PWD/$out" >/dev/null 2>&1
}

up_to_date() {
  [ -f "$out" ] || return 1
  local s
  for s in "${sources[@]}"; do [ "$s" -nt "$out" ] && return 1; done
  addon_loads
}

if [ "${FORCE:-0}" != 1 ] && up_to_date; then exit 0; fi

command -v node >/dev/null || die "node is not on PATH"
command -v g++ >/dev/null || die "g++ is missing: install the Debian package g++ (bash scripts/setup.sh)"
command -v make >/dev/null || die "make is missing: install the Debian package make (bash scripts/setup.sh)"
command -v pkg-config >/dev/null || die "pkg-config is missing: install the Debian package pkg-config (bash scripts/setup.sh)"
pkg-config --exists sphinxbase ||
  die "pkg-config cannot find sphinxbase: install the Debian package libsphinxbase-dev (bash scripts/setup.sh)"
pkg-config --exists pocketsphinx ||
  die "pkg-config cannot find pocketsphinx: install the Debian package libpocketsphinx-dev (bash scripts/setup.sh)"
node -e 'require.resolve("node-addon-api")' 2>/dev/null ||
  die "node-addon-api is missing from node_modules: run 'npm ci' (bash scripts/setup.sh)"

nodedir=${npm_config_nodedir:-$(dirname "$(dirname "$(command -v node)")")}
[ -f "$nodedir/include/node/node_api.h" ] ||
  die "Node's headers are not at $nodedir/include/node (node_api.h): install Node 20 with its headers (Debian: nodejs with libnode-dev) or set npm_config_nodedir"

gyp=""
for candidate in \
  "$(dirname "$(dirname "$(command -v node)")")/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js" \
  /usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js \
  /usr/share/nodejs/node-gyp/bin/node-gyp.js; do
  if [ -f "$candidate" ]; then gyp=$candidate; break; fi
done
[ -n "$gyp" ] || die "node-gyp is missing: it ships with npm (lib/node_modules/npm/node_modules/node-gyp); install npm or the Debian package node-gyp"

say "building $out"
node "$gyp" rebuild --nodedir="$nodedir" -C "$dir" --loglevel=warn >&2
# The build folder is output: keep it out of git status without touching
# the project's .gitignore.
printf '*\n' > "$dir/build/.gitignore"
addon_loads || die "$out was built but does not load; rerun with FORCE=1 and read the node-gyp output"
say "built $out"

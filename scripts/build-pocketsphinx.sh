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

# shellcheck source=scripts/node-addon.sh
source scripts/node-addon.sh
if [ "${FORCE:-0}" != 1 ] && addon_up_to_date "$out" "${sources[@]}"; then exit 0; fi

require_addon_tools sphinxbase:libsphinxbase-dev pocketsphinx:libpocketsphinx-dev

say "building $out"
node_gyp_rebuild "$dir"
addon_loads || die "$out was built but does not load; rerun with FORCE=1 and read the node-gyp output"
say "built $out"

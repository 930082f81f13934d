#!/usr/bin/env bash
# Builds the echo-cancellation addon (native/webrtc-apm: WebRTC AEC, noise
# suppression, gain control) with node-gyp against Debian's
# libwebrtc-audio-processing-dev 0.3, found with pkg-config.
#
# Output: native/webrtc-apm/build/Release/webrtc_apm.node, which
# src/voice/apm/webrtc-apm.ts loads. A no-op (one `node` start) when that file
# exists, is newer than binding.gyp and the C++ sources, and loads.
#
# Needs the Debian packages g++ pkg-config libwebrtc-audio-processing-dev
# (scripts/debian-packages.txt) and `npm ci` done (node-addon-api). Node's
# headers come from the running node's prefix (<prefix>/include/node), since
# node-gyp would otherwise download them. FORCE=1 rebuilds regardless.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'build-apm: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

dir=native/webrtc-apm
out=$dir/build/Release/webrtc_apm.node
sources=("$dir/binding.gyp" "$dir"/*.cc)

addon_loads() {
  node -e '
    const { Apm } = require(process.argv[1]);
    const a = new Apm({ sampleRate: 16000, channels: 1 });
    const f = new Int16Array(160);
    if (a.processRender(f) !== 0 || a.processCapture(f, new Int16Array(160)) !== 0) process.exit(1);
    a.close();
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
pkg-config --exists webrtc-audio-processing ||
  die "pkg-config cannot find webrtc-audio-processing: install the Debian package libwebrtc-audio-processing-dev (bash scripts/setup.sh)"
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
addon_loads || die "$out was built but does not load; rerun with FORCE=1 and read the node-gyp output"
say "built $out"

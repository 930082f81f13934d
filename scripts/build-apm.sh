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

# shellcheck source=scripts/node-addon.sh
source scripts/node-addon.sh
if [ "${FORCE:-0}" != 1 ] && addon_up_to_date "$out" "${sources[@]}"; then exit 0; fi

require_addon_tools webrtc-audio-processing:libwebrtc-audio-processing-dev

say "building $out"
node_gyp_rebuild "$dir"
addon_loads || die "$out was built but does not load; rerun with FORCE=1 and read the node-gyp output"
say "built $out"

#!/usr/bin/env bash
# Builds the addon that keeps the sound libraries' prints off the terminal
# (native/audio-quiet: ALSA's error handler, JACK's print functions, C
# stdio's stdout) with node-gyp against Debian's libasound2-dev, found with
# pkg-config.
#
# Output: native/audio-quiet/build/Release/audio_quiet.node, which
# src/voice/devices/audio-quiet.ts loads before PortAudio. A no-op (one
# `node` start) when that file exists, is newer than binding.gyp and the C++
# source, and loads.
#
# Needs the Debian packages g++ make pkg-config libasound2-dev
# (scripts/debian-packages.txt) and `npm ci` done (node-addon-api).
# FORCE=1 rebuilds regardless.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'build-audio-quiet: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

dir=native/audio-quiet
out=$dir/build/Release/audio_quiet.node
sources=("$dir/binding.gyp" "$dir"/*.cc)

addon_loads() {
  node -e '
    const a = require(process.argv[1]);
    if (typeof a.quiet !== "function" || !Array.isArray(a.takeMessages())) process.exit(1);
  ' "$PWD/$out" >/dev/null 2>&1
}

# shellcheck source=scripts/node-addon.sh
source scripts/node-addon.sh
if [ "${FORCE:-0}" != 1 ] && addon_up_to_date "$out" "${sources[@]}"; then exit 0; fi

require_addon_tools alsa:libasound2-dev

say "building $out"
node_gyp_rebuild "$dir"
addon_loads || die "$out was built but does not load; rerun with FORCE=1 and read the node-gyp output"
say "built $out"

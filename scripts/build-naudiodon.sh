#!/usr/bin/env bash
# Rebuilds naudiodon (PortAudio for Node, pinned in package.json) with one
# change to its sources: closing an output stream waits at most 500 ms for
# the chunk PortAudio's callback holds.
#
# Why: naudiodon's quit() waits, with no limit, until the output callback
# has let go of its current chunk. When the sound server has gone (a
# PulseAudio or PipeWire restart, a headset unplugged) that callback never
# runs again, so each close of a dead output blocks one libuv worker for
# good: measured here, +1 blocked thread and +4 descriptors per restart of
# the sound server, and after four restarts every fs call of the daemon
# hangs (libuv has four workers). A bounded wait lets the close finish; the
# chunk is freed with the stream.
#
# The change is made in node_modules/naudiodon/src/Chunks.h, the file npm
# installed (waitDone's `cv.wait(lk)` becomes a wait with a deadline), and
# the addon is rebuilt in place with node-gyp. A no-op (one `node` start)
# when the source already has the change and the addon is newer than it.
# FORCE=1 rebuilds regardless.
#
# Needs `npm ci` done (naudiodon's own install built it once) and g++/make.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'build-naudiodon: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

dir=node_modules/naudiodon
chunks=$dir/src/Chunks.h
out=$dir/build/Release/naudiodon.node
marker='desktop-assistant: bounded waitDone'

[ -f "$chunks" ] || die "$chunks is missing: run 'npm ci' first (naudiodon must be in package.json)"

addon_loads() {
  node -e 'const a = require(process.argv[1]); if (typeof a.create !== "function" || typeof a.getDevices !== "function") process.exit(1);' "$PWD/$out" >/dev/null 2>&1
}

if ! grep -q "$marker" "$chunks"; then
  # The one wait in waitDone; refuse to guess if the file is not the one expected.
  [ "$(grep -c 'cv.wait(lk);' "$chunks")" = 1 ] ||
    die "$chunks is not the naudiodon 2.3.6 source this script changes (expected one 'cv.wait(lk);'); check package.json's naudiodon version"
  python3 - "$chunks" "$marker" <<'PY'
import sys
path, marker = sys.argv[1], sys.argv[2]
text = open(path).read()
bounded = (
    "// " + marker + ": a callback that never runs again (the sound server is gone) must not block the close.\n"
    "      if (cv.wait_until(lk, std::chrono::steady_clock::now() + std::chrono::milliseconds(500)) == std::cv_status::timeout) break;"
)
text = text.replace("cv.wait(lk);", bounded, 1)
if "#include <chrono>" not in text:
    text = text.replace("#include ", "#include <chrono>\n#include ", 1)
open(path, "w").write(text)
PY
  grep -q '#include <chrono>' "$chunks" || die "could not add <chrono> to $chunks"
  FORCE=1
fi

# shellcheck source=scripts/node-addon.sh
source scripts/node-addon.sh
if [ "${FORCE:-0}" != 1 ] && [ -f "$out" ] && [ "$out" -nt "$chunks" ] && addon_loads; then exit 0; fi

say "rebuilding $out (bounded close of a dead output)"
node_gyp_rebuild "$dir"
addon_loads || die "$out was rebuilt but does not load; rerun with FORCE=1 and read the node-gyp output"

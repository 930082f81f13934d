#!/usr/bin/env bash
# Compiles the host, the servers and the benchmarks to dist/, and bundles
# each example tool into one self-contained file in examples/tools/, so a
# copy of that folder works without this checkout's node_modules.
#
# A no-op (a few milliseconds) when no input changed since the last build
# that succeeded (scripts/build-stamp.sh says which files are inputs):
# `npm start` and `npm test` run it every time. FORCE=1 rebuilds regardless.
set -euo pipefail
cd "$(dirname "$0")/.."

# Read before building: a file saved during the build makes the next run build again.
digest=$(bash scripts/build-stamp.sh digest) || digest=""
if [ "${FORCE:-0}" != 1 ] && [ -n "$digest" ] && bash scripts/build-stamp.sh fresh "$digest"; then exit 0; fi

npx --no-install tsc -p tsconfig.build.json
chmod +x dist/src/host/cli/main.js dist/mcp-servers/*/main.js

for tool in calendar weather search; do
  npx --no-install esbuild "examples/tool-sources/$tool/main.ts" \
    --bundle --platform=node --format=esm --target=node20 --log-level=warning \
    --banner:js='#!/usr/bin/env node' --outfile="examples/tools/$tool.mjs"
  chmod +x "examples/tools/$tool.mjs"
done

[ -z "$digest" ] || bash scripts/build-stamp.sh record "$digest"

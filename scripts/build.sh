#!/usr/bin/env bash
# Compiles the host, the servers and the benchmarks to dist/, and bundles
# each example tool into one self-contained file in examples/tools/, so a
# copy of that folder works without this checkout's node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."

npx --no-install tsc -p tsconfig.build.json
chmod +x dist/src/host/cli/main.js dist/mcp-servers/*/main.js

for tool in calendar weather search; do
  npx --no-install esbuild "examples/tool-sources/$tool/main.ts" \
    --bundle --platform=node --format=esm --target=node20 --log-level=warning \
    --banner:js='#!/usr/bin/env node' --outfile="examples/tools/$tool.mjs"
  chmod +x "examples/tools/$tool.mjs"
done

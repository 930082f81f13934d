#!/usr/bin/env bash
# Whether scripts/build.sh has anything to do: a digest of the build's
# inputs (each file's path, size and modification time, to the nanosecond)
# kept in dist/.build-inputs after a build that succeeded. A changed, added
# or removed input changes the digest; so does a removed output. Reading the
# listing takes a few milliseconds, where `tsc -p tsconfig.build.json` with
# nothing to do takes 4-8 s here (it parses every file to find that out).
#
#   build-stamp.sh digest [ROOT]         prints the inputs' digest
#   build-stamp.sh fresh DIGEST [ROOT]   exit 0 when the last build was of DIGEST and its outputs are there
#   build-stamp.sh record DIGEST [ROOT]  after a build: DIGEST is what dist/ and the bundles were built from
#
# ROOT is the checkout (default: this script's parent folder).
set -euo pipefail

# What tsconfig.build.json compiles (its "include", the configs, the
# lock file for the packages' types), what esbuild bundles, and this recipe.
INPUT_DIRS=(src mcp-servers bench test/support examples/tool-sources)
INPUT_FILES=(tsconfig.json tsconfig.build.json package.json package-lock.json scripts/build.sh scripts/build-stamp.sh)
# One output per step: the compiled CLI (tsc) and each bundled example tool (esbuild).
OUTPUTS=(dist/src/host/cli/main.js examples/tools/calendar.mjs examples/tools/weather.mjs examples/tools/search.mjs)
STAMP=dist/.build-inputs

die() { printf 'build-stamp: error: %s\n' "$*" >&2; exit 2; }

inputs_digest() {
  local dirs=() files=() entry
  for entry in "${INPUT_DIRS[@]}"; do [ -d "$entry" ] && dirs+=("$entry"); done
  for entry in "${INPUT_FILES[@]}"; do [ -f "$entry" ] && files+=("$entry"); done
  [ ${#dirs[@]} -gt 0 ] || die "none of ${INPUT_DIRS[*]} is in $PWD: is it the checkout?"
  # LC_ALL=C: the same order whatever the user's locale.
  find "${dirs[@]}" "${files[@]}" -type f -printf '%p %s %T@\n' | LC_ALL=C sort | sha256sum | cut -d' ' -f1
}

outputs_present() {
  local out
  for out in "${OUTPUTS[@]}"; do [ -f "$out" ] || return 1; done
}

command=${1:-}
case $command in
  digest) cd "${2:-$(dirname "$0")/..}" && inputs_digest ;;
  fresh | record)
    digest=${2:-}
    [ -n "$digest" ] || die "$command needs the digest that 'build-stamp.sh digest' printed"
    cd "${3:-$(dirname "$0")/..}"
    if [ "$command" = fresh ]; then
      [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$digest" ] && outputs_present
    else
      outputs_present || die "a build was recorded but its outputs are not all there (${OUTPUTS[*]})"
      printf '%s\n' "$digest" > "$STAMP"
    fi
    ;;
  *) die "usage: build-stamp.sh digest [ROOT] | fresh DIGEST [ROOT] | record DIGEST [ROOT]" ;;
esac

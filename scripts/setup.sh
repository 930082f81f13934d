#!/usr/bin/env bash
# Set-up for a fresh Debian 12 machine with Node 20, and a no-op when all
# is in place: Debian packages by name, npm ci when the lock file changed,
# then the build. Both README commands start with it.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*" >&2; }

install_debian_packages() {
  local wanted installed missing=()
  wanted=$(grep -v '^\s*#' scripts/debian-packages.txt | awk 'NF { print $1 }')
  # One dpkg-query for all of them (one per package took 0.17 s for 20 here); it
  # exits 1 when it knows none of a name, which leaves that name missing.
  # shellcheck disable=SC2086
  installed=$(dpkg-query -W -f='${Package} ${Status}\n' $wanted 2>/dev/null | awk '$(NF-1) == "ok" && $NF == "installed" { print $1 }') || true
  for pkg in $wanted; do
    [[ $'\n'$installed$'\n' == *$'\n'$pkg$'\n'* ]] || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing Debian packages: ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_npm_packages() {
  local stamp=node_modules/.setup-lock-hash
  local want
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  say "npm ci"
  # Native addons (naudiodon, segfault-handler) build with node-gyp, which
  # would download Node's headers: this Node's own are next to it.
  # onnxruntime-node (the VAD; Kokoro's copy too) would download CUDA files
  # at install: the CPU build it ships is the one used.
  ONNXRUNTIME_NODE_INSTALL=skip ONNXRUNTIME_NODE_INSTALL_CUDA=skip \
    npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")" npm ci --no-fund --no-audit
  echo "$want" > "$stamp"
}

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  say "Node 20 or newer is needed, this is $(node -v)"
  exit 1
fi

install_debian_packages
install_npm_packages
bash scripts/build-naudiodon.sh
bash scripts/build-faiss-node.sh
bash scripts/build-apm.sh
bash scripts/build-pocketsphinx.sh
bash scripts/build-audio-quiet.sh
bash scripts/build.sh

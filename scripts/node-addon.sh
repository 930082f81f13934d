# Shared by the scripts that build the project's N-API addons with node-gyp
# (build-apm.sh, build-pocketsphinx.sh): sourced after they define `say`
# and `die`. Node's headers come from the running node's prefix
# (<prefix>/include/node), since node-gyp would otherwise download them.

# True when $1 (the built addon) exists, is newer than every other argument
# (its sources), and the command `addon_loads` succeeds.
addon_up_to_date() {
  local out=$1 s
  shift
  [ -f "$out" ] || return 1
  for s in "$@"; do [ "$s" -nt "$out" ] && return 1; done
  addon_loads
}

# Dies naming the Debian package for a missing tool or pkg-config module
# (each argument a pkg-config module, then its package after a colon).
require_addon_tools() {
  command -v node >/dev/null || die "node is not on PATH"
  command -v g++ >/dev/null || die "g++ is missing: install the Debian package g++ (bash scripts/setup.sh)"
  command -v make >/dev/null || die "make is missing: install the Debian package make (bash scripts/setup.sh)"
  command -v pkg-config >/dev/null || die "pkg-config is missing: install the Debian package pkg-config (bash scripts/setup.sh)"
  local wanted
  for wanted in "$@"; do
    pkg-config --exists "${wanted%%:*}" ||
      die "pkg-config cannot find ${wanted%%:*}: install the Debian package ${wanted#*:} (bash scripts/setup.sh)"
  done
  node -e 'require.resolve("node-addon-api")' 2>/dev/null ||
    die "node-addon-api is missing from node_modules: run 'npm ci' (bash scripts/setup.sh)"
}

# `node-gyp rebuild` in folder $1, against this node's headers.
node_gyp_rebuild() {
  local nodedir gyp="" candidate
  nodedir=${npm_config_nodedir:-$(dirname "$(dirname "$(command -v node)")")}
  [ -f "$nodedir/include/node/node_api.h" ] ||
    die "Node's headers are not at $nodedir/include/node (node_api.h): install Node 20 with its headers (Debian: nodejs with libnode-dev) or set npm_config_nodedir"
  for candidate in \
    "$(dirname "$(dirname "$(command -v node)")")/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js" \
    /usr/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js \
    /usr/share/nodejs/node-gyp/bin/node-gyp.js; do
    if [ -f "$candidate" ]; then gyp=$candidate; break; fi
  done
  [ -n "$gyp" ] || die "node-gyp is missing: it ships with npm (lib/node_modules/npm/node_modules/node-gyp); install npm or the Debian package node-gyp"
  node "$gyp" rebuild --nodedir="$nodedir" -C "$1" --loglevel=warn >&2
}

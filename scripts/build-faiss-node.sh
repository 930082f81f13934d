#!/usr/bin/env bash
# Builds the native addon of the npm package faiss-node (pinned in
# package.json) against Debian's libfaiss-dev (faiss 1.7.3, a static
# libfaiss.a) and its BLAS/LAPACK (libopenblas-dev), with a plain g++ call.
#
# Why: faiss-node's own install script downloads a prebuilt addon from GitHub
# and then git-clones faiss from GitHub; neither is reachable here, so the
# project denies that script ("faiss-node": false in package.json
# "allowScripts") and this script builds the addon instead, from the
# sources npm installed (node_modules/faiss-node/src/faiss.cc, left untouched).
#
# Output: node_modules/faiss-node/build/Release/faiss-node.node, where
# faiss-node's `bindings` loader looks. A no-op (two `node` starts, ~0.2 s)
# when that file is there, loads, and was built from the same inputs.
#
# Needs the Debian packages g++ libfaiss-dev libopenblas-dev (from
# scripts/debian-packages.txt) and `npm ci` done. Uses, in this order:
#   - node-addon-api from the project root (devDependency node-addon-api@8,
#     so that faiss errors become JS exceptions; with faiss-node's own
#     node-addon-api@6 they abort the whole process -- see the warning below),
#   - Node-API headers: $npm_config_nodedir/include/node, the running node's
#     <prefix>/include/node, or the npm package node-api-headers if installed.
# FORCE=1 rebuilds even when the addon is up to date.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'build-faiss-node: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

pkg_dir=node_modules/faiss-node
src=$pkg_dir/src/faiss.cc
out_dir=$pkg_dir/build/Release
out=$out_dir/faiss-node.node
stamp_file=$out_dir/faiss-node.build-stamp

[ -f "$pkg_dir/package.json" ] ||
  die "$pkg_dir is missing: run 'npm ci' first (faiss-node must be in package.json)"
[ -f "$src" ] || die "$src is missing: the faiss-node package looks incomplete; rerun 'npm ci'"
command -v node >/dev/null || die "node is not on PATH"

# Loads the addon through faiss-node's own entry point (lib/index.js ->
# bindings) in a separate process and builds a tiny index.
addon_loads() {
  node -e '
    const f = require(process.argv[1]);
    const i = new f.IndexFlatIP(2);
    i.add([1, 0, 0, 1]);
    if (i.ntotal() !== 2 || i.search([1, 0], 1).labels[0] !== 0) process.exit(1);
  ' "$PWD/$pkg_dir" >/dev/null 2>&1
}

# ---- locate the inputs -------------------------------------------------------

# One node start for everything node knows: node-addon-api (C++ wrapper
# headers, resolved from the project root), faiss-node's version, the N-API
# version, and candidate Node-API C header dirs (node_api.h):
# $npm_config_nodedir/include/node, the running node's <prefix>/include/node,
# then the npm package node-api-headers if it is installed.
info=$(node -e '
  const path = require("path");
  const tryRun = f => { try { return f(); } catch { return ""; } };
  const naa = tryRun(() => path.dirname(require.resolve("node-addon-api/package.json")));
  console.log(naa);
  console.log(naa && require(path.join(naa, "package.json")).version);
  console.log(require(path.resolve(process.argv[1], "package.json")).version);
  console.log(process.versions.napi);
  const nodedir = process.env.npm_config_nodedir;
  for (const dir of [nodedir && path.join(nodedir, "include/node"),
                     path.resolve(process.execPath, "../../include/node"),
                     tryRun(() => require("node-api-headers").include_dir)])
    if (dir && require("fs").existsSync(path.join(dir, "node_api.h"))) { console.log(dir); break; }
' "$PWD/$pkg_dir") || die "node failed to inspect node_modules (output above)"
{ read -r naa_dir; read -r naa_version; read -r faiss_node_version; read -r napi_version; read -r node_inc || node_inc=""; } <<< "$info"
[ -n "$naa_dir" ] ||
  die "cannot find the npm package node-addon-api (faiss-node depends on it): rerun 'npm ci'"
[ -n "$node_inc" ] || die "no Node-API headers (node_api.h) found: this Node install has no include/node directory; add the npm devDependency node-api-headers, or set npm_config_nodedir to a Node headers tree"

command -v g++ >/dev/null || die "g++ is not installed: add the Debian package g++ to scripts/debian-packages.txt"
[ -f /usr/include/faiss/IndexFlat.h ] ||
  die "faiss headers (/usr/include/faiss) are missing: add the Debian package libfaiss-dev to scripts/debian-packages.txt"
libfaiss=$(g++ -print-file-name=libfaiss.a)
[ "$libfaiss" != libfaiss.a ] || libfaiss=$(g++ -print-file-name=libfaiss.so)
[ "$libfaiss" != libfaiss.so ] || die "libfaiss is not installed: add the Debian package libfaiss-dev"
libfaiss=$(readlink -f "$libfaiss")
for lib in blas lapack; do
  [ "$(g++ -print-file-name=lib$lib.so)" != "lib$lib.so" ] ||
    die "lib$lib.so is missing: add the Debian package libopenblas-dev (it provides libblas.so and liblapack.so)"
done

# node-addon-api >= 8 (the version with NODE_ADDON_API_CPP_EXCEPTIONS_ALL)
# turns any C++ exception escaping faiss-node (faiss::FaissException on a bad
# path in write(), k=0 in search(), add() on an IDMap index, ...) into a JS
# Error. faiss-node's own node-addon-api@6 only catches Napi::Error, and any
# other exception calls std::terminate: the node process dies with SIGABRT.
if grep -q NODE_ADDON_API_CPP_EXCEPTIONS_ALL "$naa_dir/napi-inl.h"; then
  exception_flags=(-DNODE_ADDON_API_CPP_EXCEPTIONS -DNODE_ADDON_API_CPP_EXCEPTIONS_ALL)
else
  exception_flags=(-DNAPI_CPP_EXCEPTIONS)
fi

# faiss 1.7.3 (Debian 12) only has faiss::Index::idx_t; faiss-node 0.5.1 was
# written for 1.7.4, which added faiss::idx_t. Same type (int64_t), so a
# namespace-level alias, force-included, is enough (and harmless on >= 1.7.4).
shim_text='#include <cstdint>
namespace faiss { using idx_t = int64_t; }'

cxx_flags=(-std=c++17 -O2 -DNDEBUG -fPIC -shared -fvisibility=hidden -fopenmp
  -DNAPI_VERSION=6 -DBUILDING_NODE_EXTENSION -DNODE_GYP_MODULE_NAME=faiss_node
  "${exception_flags[@]}")
# --exclude-libs,ALL: faiss' symbols from the static libfaiss.a stay private
# to this addon, so they cannot clash with another copy loaded in the process.
link_flags=(-lfaiss -lblas -llapack -Wl,--exclude-libs,ALL -Wl,-O1)

stamp=$(
  printf '%s\n' "script-v1" "faiss-node $faiss_node_version" \
    "node-addon-api $naa_version $naa_dir" "napi $napi_version" \
    "$libfaiss $(stat -c '%s %Y' "$libfaiss")" "$(g++ -dumpfullversion)" "${cxx_flags[*]}" "${link_flags[*]}"
  sha256sum "$src" | cut -d' ' -f1
)

# ---- up to date? -------------------------------------------------------------

if [ "${FORCE:-0}" != 1 ] && [ -f "$out" ] && [ -f "$stamp_file" ] &&
  [ "$(cat "$stamp_file")" = "$stamp" ] && addon_loads; then
  exit 0
fi

# ---- build -------------------------------------------------------------------

if [ "${exception_flags[0]}" = -DNAPI_CPP_EXCEPTIONS ]; then
  say "warning: node-addon-api $naa_version ($naa_dir) cannot turn faiss errors into JS"
  say "warning: exceptions: any faiss error will abort the node process. Add the"
  say "warning: devDependency node-addon-api@8.9.2 to package.json."
fi
say "building $out (g++, faiss from $libfaiss, node-addon-api $naa_version, headers $node_inc)"
mkdir -p "$out_dir"
tmp=$(mktemp -d)
# The new addon is written next to the old one and renamed over it, so a
# process that has the old one loaded keeps a valid mapping.
new_out=$out_dir/.faiss-node.node.$$
trap 'rm -rf "$tmp" "$new_out"' EXIT
printf '%s\n' "$shim_text" > "$tmp/faiss-idx-t-shim.h"

start=$(date +%s)
if ! g++ "${cxx_flags[@]}" -include "$tmp/faiss-idx-t-shim.h" \
  -I"$naa_dir" -I"$node_inc" \
  "$src" -o "$new_out" "${link_flags[@]}" 2> "$tmp/build.log"; then
  cat "$tmp/build.log" >&2
  die "compiling $src failed (log above)"
fi

# Install atomically, then prove it loads through faiss-node's own loader.
rm -f "$stamp_file"
mv -f "$new_out" "$out"
if ! addon_loads; then
  node -e 'require(process.argv[1])' "$PWD/$pkg_dir" || true
  die "the built addon $out does not load (error above)"
fi
printf '%s\n' "$stamp" > "$stamp_file"
say "built in $(( $(date +%s) - start ))s: $out"

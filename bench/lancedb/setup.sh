#!/usr/bin/env bash
# bench/lancedb/setup.sh: the LanceDB peer of bench/ivf_query.sh, installed once
# into ${VIGILO_BENCH_CACHE:-$HOME/.cache/vigilo/bench}/lancedb from the npm
# registry with the versions pinned in bench/lancedb/package.json
# (@lancedb/lancedb 0.31.0 with its linux-x64 native module, apache-arrow 18.1.0;
# ~190 MB). Idempotent: npm runs only when the installed package.json differs
# from this folder's (a stamp holds its SHA-256).
#
# Prints the install folder (the --modules argument of ivf_pq.cjs) on the last
# stdout line; everything else on stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${VIGILO_BENCH_CACHE:-$HOME/.cache/vigilo/bench}/lancedb
command -v npm >/dev/null || { echo "lancedb/setup.sh: npm is not installed (scripts/setup)" >&2; exit 1; }
sha=$(sha256sum "$here/package.json" | cut -d' ' -f1)
stamp=$dir/node_modules/.vigilo-package-sha256
if [ "$(cat "$stamp" 2>/dev/null)" != "$sha" ] || [ ! -d "$dir/node_modules/@lancedb/lancedb" ]; then
  echo "lancedb/setup.sh: npm install into $dir" >&2
  mkdir -p "$dir"
  cp "$here/package.json" "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error --save-exact) >&2
  echo "$sha" >"$stamp"
fi
echo "$dir"

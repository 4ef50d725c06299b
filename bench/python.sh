#!/usr/bin/env bash
# The Python module's overhead over the engine (issue 38; docs/python.md):
#  1. pub.search, every query in one call, against `vigilo index eval --batch 0` (the same engine search,
#     timed inside the CLI) on the demo's Fashion-MNIST publication: queries per second and the binding's
#     overhead (goal <= 5%);
#  2. ds.cases() against `vigilo dataset cases | json.loads per line` on the demo's WordNet dataset: cases
#     per second.
# Prints a table and puts it in the python section of docs/benchmarks.md. Needs scripts/demo's outputs
# (build/demo) and a release build with the module.
#
#   bench/python.sh [BUILD_DIR]      BUILD_DIR defaults to build/release
#   QUERIES=2000 NPROBE=16 RUNS=3
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
vigilo=$build/src/cli/vigilo
python=/usr/bin/python3
demo=$root/build/demo
queries=${QUERIES:-2000}
nprobe=${NPROBE:-16}
runs=${RUNS:-3}

[[ -x $vigilo ]] || bench_die "$vigilo not found; build it with: cmake --build $build"
[[ -f $build/python/vigilo/__init__.py ]] || bench_die "$build/python/vigilo not built (docs/python.md)"
[[ -f $demo/publication/manifest.json && -f $demo/fashion-mnist.bvecs ]] || bench_die "run scripts/demo first"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PYTHONPATH=$build/python VIGILO_CONTROL=$demo/control.sqlite3

# The first QUERIES images of the base as queries (their neighbours come from --base, cached once).
head -c $((queries * (4 + 784))) "$demo/fashion-mnist.bvecs" >"$tmp/queries.bvecs"
cpu=${CPU:-1}
cli_qps=$(taskset -c "$cpu" "$vigilo" index eval "$demo/publication" --queries "$tmp/queries.bvecs" --base "$demo/fashion-mnist.bvecs" \
  --nprobe "$nprobe" --batch 0 -k 10 -q --json | $python -c 'import json,sys; print(max(json.loads(l)["qps"] for l in sys.stdin))')

py_qps=$(taskset -c "$cpu" $python - "$demo/publication" "$tmp/queries.bvecs" "$nprobe" "$runs" <<'PY'
import sys, time
import numpy as np
import vigilo
pub = vigilo.open_publication(sys.argv[1])
raw = np.fromfile(sys.argv[2], dtype=np.uint8).reshape(-1, 4 + 784)
queries = raw[:, 4:].astype(np.float32)
nprobe, runs = int(sys.argv[3]), int(sys.argv[4])
pub.search(queries[:100], k=10, nprobe=nprobe)  # warm-up: centroids and footers
best = min((lambda t0: (pub.search(queries, k=10, nprobe=nprobe), time.perf_counter() - t0)[1])(time.perf_counter())
           for _ in range(runs))
print(len(queries) / best)
PY
)

dataset=wordnet-noun-glosses
start=$(date +%s.%N)
cli_n=$(taskset -c "$cpu" "$vigilo" dataset cases "$dataset" | taskset -c "$cpu" $python -c 'import json, sys; print(sum(1 for line in sys.stdin if json.loads(line)))')
cli_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
py_cases=$(taskset -c "$cpu" $python - "$dataset" <<'PY'
import sys, time
import vigilo
ds = vigilo.dataset(sys.argv[1])
t0 = time.perf_counter()
n = sum(1 for _ in ds.cases())
print(n, time.perf_counter() - t0)
PY
)

read -r py_n py_s <<<"$py_cases"
section=$tmp/section.md
{
  echo "## Python module (binding overhead over the engine)"
  echo
  echo "\`bench/python.sh\` at $(git -C "$root" rev-parse --short HEAD) on $(bench_cpu), $(date -u +%Y-%m-%d), pinned to CPU $cpu; the demo's"
  echo "Fashion-MNIST publication and WordNet dataset (build/demo). Search: the CLI's own timing of one \`index eval"
  echo "--batch 0\` against the best of $runs \`pub.search\` calls; cases: one pass each (not interleaved rounds yet)."
  echo
$python - "$cli_qps" "$py_qps" "$cli_n" "$cli_s" "$py_n" "$py_s" "$queries" "$nprobe" <<'PY'
import sys
cli_qps, py_qps, cli_n, cli_s, py_n, py_s = map(float, sys.argv[1:7])
queries, nprobe = sys.argv[7], sys.argv[8]
print("| measure | CLI | Python | Python / CLI |")
print("|---|---:|---:|---:|")
print("| search, %s Fashion-MNIST queries in one call, nprobe %s (queries/s) | %.0f | %.0f | %.2f |"
      % (queries, nprobe, cli_qps, py_qps, py_qps / cli_qps))
print("| WordNet dataset read, %d cases (cases/s; CLI: `dataset cases` into json.loads) | %.0f | %.0f | %.2f |"
      % (py_n, cli_n / cli_s, py_n / py_s, (py_n / py_s) / (cli_n / cli_s)))
PY
} >"$section"
cat "$section"
bench_replace_section "$root/docs/benchmarks.md" python "$section"

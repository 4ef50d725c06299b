#!/usr/bin/env bash
# Index build: `vigilo index build` (IVF-LVQ8 and IVF-LVQ4) against FAISS
# IndexIVFScalarQuantizer QT_8bit ("IVF2048,SQ8") train + add, on the wink word
# vectors (340,479 × 100, bench/data/prepare.sh), with the same nlist, training
# sample size, k-means iterations and seed, 2 worker threads each. Also vigilo's
# (and FAISS's) peak RSS on the base concatenated 4 times (1,361,916 rows, same
# sample): vigilo's memory is the sample plus bounded buffers, flat in N;
# FAISS keeps every code in RAM. Rewrites only the ivf-build section of
# docs/benchmarks.md.
#
#   bench/ivf_build.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
#
# Environment: RUNS (runs per build at N, default 3; the best wall time is
# reported), RUNS_4N (default 1), NLIST (2048), SAMPLE (131072 = 64 per
# centroid), ITERATIONS (10), SEED (1), METRIC (l2_squared), THREADS (2),
# VIGILO_DATA_DIR, VIGILO_BENCH_CACHE (the FAISS builds and the 4N input),
# JOBS (the FAISS source build's parallelism, bench/faiss/setup.sh).
#
# Every build is one process timed by `/usr/bin/time -f '%e %M %U %S'` (wall
# seconds, peak RSS, CPU seconds) with OPENBLAS_NUM_THREADS=1, input in a warm page cache, output on
# the same disk; vigilo writes a fresh directory each run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
vigilo=$build/src/cli/vigilo
runs=${RUNS:-3}
runs_4n=${RUNS_4N:-1}
nlist=${NLIST:-2048}
sample=${SAMPLE:-131072}
iterations=${ITERATIONS:-10}
seed=${SEED:-1}
metric=${METRIC:-l2_squared}
threads=${THREADS:-2}
data=${VIGILO_DATA_DIR:-$HOME/.cache/vigilo/data}
cache=${VIGILO_BENCH_CACHE:-$HOME/.cache/vigilo/bench}

[[ -x $vigilo ]] || bench_die "$vigilo not found; build it with: cmake --build ${build#"$root"/} --target vigilo"
"$vigilo" index build --help >/dev/null 2>&1 || bench_die "$vigilo has no 'index build' subcommand"
if [[ ! -x /usr/bin/time ]]; then  # GNU time: wall seconds and peak RSS
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "ivf_build.sh: installing time (GNU time)" >&2
  $SUDO apt-get install -y -qq --no-install-recommends time >&2 || bench_die "/usr/bin/time is missing (apt-get install time)"
fi
command -v node >/dev/null || bench_die "node is not installed (scripts/setup)"

echo "ivf_build.sh: bench/data/prepare.sh (cached) ..." >&2
"$root/bench/data/prepare.sh" >/dev/null
echo "ivf_build.sh: bench/faiss/setup.sh (cached) ..." >&2
mapfile -t faiss_bins < <("$root/bench/faiss/setup.sh" | tail -n 2)
faiss_generic=${faiss_bins[0]}
faiss_avx2=${faiss_bins[1]}
[[ -x $faiss_generic && -x $faiss_avx2 ]] || bench_die "bench/faiss/setup.sh did not give two binaries"

base=$data/wink-base.fvecs
base4=$cache/wink-base-x4.fvecs
mkdir -p "$cache"
if [[ ! -s $base4 || $base -nt $base4 ]]; then
  echo "ivf_build.sh: writing $base4 (the base 4 times; .fvecs records concatenate)" >&2
  cat "$base" "$base" "$base" "$base" >"$base4.tmp"
  mv "$base4.tmp" "$base4"
fi
rows=$(( $(stat -c %s "$base") / (4 + 4 * 100) ))
rows4=$(( $(stat -c %s "$base4") / (4 + 4 * 100) ))

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivf_build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# measure NAME RUN CMD...: one run of CMD (the word @OUT@ in CMD becomes a
# fresh path, removed after the run); keeps wall[NAME] (best wall seconds),
# cpu[NAME] (user + system seconds of that run), rss[NAME] (KiB, the largest
# over the runs) and the fastest run's stdout in $tmp/NAME.json. The builds
# are measured round-robin (run 1 of each, then run 2 of each, …) so that a
# burst of load from other jobs falls on all of them alike.
declare -A wall cpu rss
measure() {
  local name=$1 r=$2
  shift 2
  local out=$tmp/out-$name-$r args=() a s kib user sys
  for a in "$@"; do args+=("${a//@OUT@/$out}"); done
  echo "ivf_build.sh: $name run $r ..." >&2
  if ! OPENBLAS_NUM_THREADS=1 /usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "${args[@]}" >"$tmp/stdout" 2>"$tmp/stderr"; then
    tail -c 2000 "$tmp/stderr" >&2
    bench_die "$name failed: ${args[*]}"
  fi
  read -r s kib user sys < <(tail -n 1 "$tmp/time")
  rm -rf "$out" "$out.faiss"
  if [[ -z ${wall[$name]:-} ]] || awk -v a="$s" -v b="${wall[$name]}" 'BEGIN { exit !(a < b) }'; then
    wall[$name]=$s
    cpu[$name]=$(awk -v u="$user" -v y="$sys" 'BEGIN { print u + y }')
    cp "$tmp/stdout" "$tmp/$name.json"
  fi
  if [[ -z ${rss[$name]:-} || $kib -gt ${rss[$name]} ]]; then rss[$name]=$kib; fi
}
json() { node -e 'const v = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(eval("v" + process.argv[2]))' "$1" "$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
f1() { awk -v s="$1" 'BEGIN { printf "%.1f", s }'; }

vigilo_build() {  # ENCODING INPUT
  echo "$vigilo" index build --input "$2" --vector-field vector --metric "$metric" --encoding "$1" --nlist "$nlist" \
    --sample "$sample" --iterations "$iterations" --seed "$seed" --threads "$threads" --json --out @OUT@
}
faiss_build() {  # BINARY INPUT
  echo "$1" "$2" --nlist "$nlist" --sample "$sample" --iterations "$iterations" --seed "$seed" --metric "$metric" \
    --threads "$threads" --write @OUT@.faiss
}

cat "$base" >/dev/null  # warm the page cache
load=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck disable=SC2046  # the helpers print plain words (no spaces in these paths)
{
  for r in $(seq "$runs"); do
    measure vigilo-lvq8 "$r" $(vigilo_build lvq8 "$base")
    measure vigilo-lvq4 "$r" $(vigilo_build lvq4 "$base")
    measure faiss-generic "$r" $(faiss_build "$faiss_generic" "$base")
    measure faiss-avx2 "$r" $(faiss_build "$faiss_avx2" "$base")
  done
  cat "$base4" >/dev/null
  for r in $(seq "$runs_4n"); do
    measure vigilo-lvq8-4n "$r" $(vigilo_build lvq8 "$base4")
    measure faiss-avx2-4n "$r" $(faiss_build "$faiss_avx2" "$base4")
  done
}
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# Phase columns: vigilo's summary "seconds" (sample, train, assign, write) and
# FAISS's train_seconds / add_seconds.
vrow() {  # NAME LABEL ROWS
  local j=$tmp/$1.json
  local train assign
  train=$(json "$j" '.seconds.sample + v.seconds.train')
  assign=$(json "$j" '.seconds.assign + v.seconds.write')
  echo "| $2 | $3 | $(f1 "${wall[$1]}") | $(f1 "${cpu[$1]}") | $(f1 "$train") | $(f1 "$assign") | $(mib "${rss[$1]}") | $(ratio "${wall[$1]}" "${wall[faiss-generic]}") | $(ratio "${wall[$1]}" "${wall[faiss-avx2]}") |"
}
frow() {  # NAME LABEL ROWS
  local j=$tmp/$1.json
  echo "| $2 | $3 | $(f1 "${wall[$1]}") | $(f1 "${cpu[$1]}") | $(f1 "$(json "$j" '.read_sample_seconds + v.train_seconds')") | $(f1 "$(json "$j" '.add_seconds + v.write_seconds')") | $(mib "${rss[$1]}") | | |"
}
fmt() { echo "$1" | sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta'; }  # 1234567 -> 1,234,567
table=$(
  vrow vigilo-lvq8 "vigilo IVF-LVQ8" "$(fmt "$rows")"
  vrow vigilo-lvq4 "vigilo IVF-LVQ4" "$(fmt "$rows")"
  frow faiss-generic "FAISS IVF-SQ8, Debian build (generic)" "$(fmt "$rows")"
  frow faiss-avx2 "FAISS IVF-SQ8, AVX2 build" "$(fmt "$rows")"
)
table4=$(
  echo "| vigilo IVF-LVQ8 | $(mib "${rss[vigilo-lvq8]}") | $(mib "${rss[vigilo-lvq8-4n]}") | $(ratio "${rss[vigilo-lvq8-4n]}" "${rss[vigilo-lvq8]}") | $(f1 "${wall[vigilo-lvq8]}") | $(f1 "${wall[vigilo-lvq8-4n]}") |"
  echo "| FAISS IVF-SQ8, AVX2 build | $(mib "${rss[faiss-avx2]}") | $(mib "${rss[faiss-avx2-4n]}") | $(ratio "${rss[faiss-avx2-4n]}" "${rss[faiss-avx2]}") | $(f1 "${wall[faiss-avx2]}") | $(f1 "${wall[faiss-avx2-4n]}") |"
)

commit() {  # the checked-out commit, read from .git without running git
  local head ref
  head=$(cat "$root/.git/HEAD" 2>/dev/null) || { echo unknown; return; }
  if [[ $head == "ref: "* ]]; then
    ref=${head#ref: }
    if [[ -f $root/.git/$ref ]]; then head=$(cat "$root/.git/$ref")
    else head=$(awk -v r="$ref" '$2 == r { print $1 }' "$root/.git/packed-refs" 2>/dev/null)
    fi
  fi
  echo "${head:0:7}"
}
faiss_version=$(json "$tmp/faiss-avx2.json" '.faiss_version')
vimb=$(json "$tmp/vigilo-lvq8.json" '.roots')
empty=$(json "$tmp/vigilo-lvq8.json" '.empty_leaves')
imb=$(json "$tmp/faiss-avx2.json" '.imbalance_factor')
if [[ $runs -eq 1 ]]; then best="one run each"; else best="best of $runs runs"; fi
section=$tmp/section.md
cat >"$section" <<EOF2
## Index build (IVF, wink 340,479 × 100)

\`vigilo index build\` against FAISS $faiss_version \`IndexIVFScalarQuantizer\` (QT_8bit on residuals, i.e.
"IVF$nlist,SQ8"; train, then add every vector) on \`wink-base.fvecs\` (bench/data/prepare.sh). Same
settings for both: metric $metric, nlist $nlist, a training sample of $(fmt "$sample") vectors drawn at
random with seed $seed (each tool its own generator), $iterations k-means iterations, $threads threads
(vigilo \`--threads $threads\`; FAISS OpenMP $threads), OpenBLAS single-threaded (\`OPENBLAS_NUM_THREADS=1\`).
Wall time, CPU time (user + system, of the fastest run) and peak RSS of the whole process
(\`/usr/bin/time -f '%e %M %U %S'\`), $best, measured round-robin (RSS: the largest over the runs),
input in a warm page cache. vigilo streams the input (a sampling pass, then an assignment pass; only the
sample is held) and writes and fsyncs the publication (centroids, postings Parquet, manifest); FAISS
(\`bench/faiss/ivf_sq8_build.cc\`) reads the file twice in 65,536-row blocks, keeps the index in memory
and writes it with \`faiss::write_index\` (no fsync).
Train = sampling + k-means (vigilo: flat k-means of the leaves, then grouped into $vimb roots; FAISS: flat k-means
over $nlist centroids); assign/add = assigning every vector and encoding it, plus writing the files.
Ratio = vigilo wall time / FAISS wall time (below 1: vigilo is faster).

| build | rows | wall s | CPU s | train s | assign/add s | peak RSS MiB | ratio vs FAISS generic | ratio vs FAISS AVX2 |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
$table

Peak RSS at N and at 4N (the base concatenated 4 times, $(fmt "$rows4") rows), same sample of $(fmt "$sample")
($runs_4n run at 4N):

| build | RSS MiB at N | RSS MiB at 4N | 4N / N | wall s at N | wall s at 4N |
|---|---:|---:|---:|---:|---:|
$table4

- Codes: vigilo LVQ8 = 100 bytes + offset and scale (8 bytes) per vector, LVQ4 = 50 + 8; FAISS SQ8 =
  100 bytes with one global per-dimension range. vigilo left $empty of $nlist leaves empty; FAISS's
  list-size imbalance factor is $imb.
- FAISS "generic" is Debian's libfaiss-dev (compiled without AVX2); "AVX2" is Debian's source package
  rebuilt with \`-DFAISS_OPT_LEVEL=avx2\` (bench/faiss/setup.sh).
- CPU: $(bench_cpu) ($(nproc) CPUs); load average at start: $load, at the end: $load_end
  (the CPUs are shared; other jobs slow every row)
- Date: $(date -u +%Y-%m-%d), commit $(commit)
- Regenerate: \`cmake --build build/release --target vigilo && bench/ivf_build.sh\`
  (this run used \`${vigilo#"$root"/}\`; RUNS=$runs, RUNS_4N=$runs_4n)
EOF2

bench_replace_section "$root/docs/benchmarks.md" ivf-build "$section"
cat "$section"

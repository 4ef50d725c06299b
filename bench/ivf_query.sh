#!/usr/bin/env bash
# Query: recall@10 against QPS, per nprobe, of vigilo's IVF-LVQ8 and IVF-LVQ4
# publications (`vigilo index eval`) and of the peers on the same data, queries
# and ground truth: FAISS 1.7.3 IVF-Flat, IVF-SQ8, IVF-SQ4 and IVF-PQ FastScan
# (bench/faiss/ivf_search.cc; the AVX2 build from Debian's source, and Debian's
# generic libfaiss), and LanceDB 0.31.0 IVF_PQ (bench/lancedb/). Single thread,
# queries one at a time (as an interactive user sends them) and batched (every
# query in one call). Also the LVQ kernels' raw rate (bench/ivf_kernels.cc) against a
# streaming-read ceiling, and from its "probed lists" rate each set's memory
# floor for a one-at-a-time LVQ8 query at recall 0.95. Writes docs/img/ivf-query-<kind>-<dataset>.png
# (bench/plot_ivf_query.sh) and rewrites only this CPU kind's section of
# docs/benchmarks.md, ivf-query-<kind> (the CPU's model name in lower case,
# e.g. ivf-query-amd-epyc, ivf-query-intel-xeon): one table per CPU kind seen,
# each naming its CPU and the kernel flavour vigilo dispatched there.
#
#   bench/ivf_query.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
#
# Data sets (bench/data/prepare.sh, cached): Fashion-MNIST (60,000 × 784,
# l2_squared, nlist 980) and wink-GloVe-100 (340,479 × 100, cosine, nlist 2048),
# 1,000 held-out queries each, exact top-100 ground truth.
#
# Environment:
#   DATASETS        "fashion-mnist wink" (either or both)
#   QUERIES         queries run one at a time, the first N of the query file
#                   (default 1000 = all); batched runs always use every query
#   NPROBES         1,2,4,8,16,32,64,128,256 (the peers stop early once recall has
#                   stopped rising from nprobe 64 on: the ceiling)
#   ITERATIONS 10, SEED 1; the k-means sample is min(N, 256·nlist) on every side
#   FAISS_FLAVOURS  "avx2 generic"; FAISS_INDEXES (flat,sq8,sq4,pq4fs; AVX2 build),
#                   FAISS_GENERIC_INDEXES (flat,sq8; Debian's build is slow)
#   LANCEDB         1 (0 skips it); LANCEDB_TIMEOUT seconds for its index build (1800)
#   KERNELS         1 (0 skips bench/ivf_kernels); KERNEL_SECONDS per measurement (0.3)
#   BENCH_CPU       the CPU every measurement is pinned to (default: the last)
#   VIGILO_DATA_DIR, VIGILO_BENCH_CACHE (builds: $VIGILO_BENCH_CACHE/ivf-query/),
#   JOBS            the FAISS source build's parallelism (bench/faiss/setup.sh)
#   ROUNDS          3: after the full run, ROUNDS-1 more rounds of vigilo IVF-LVQ8 and
#                   the FAISS AVX2 indexes, interleaved (even rounds FAISS first, odd
#                   ones vigilo first), at the nprobes around recall 0.95 only; the
#                   goal ratios are the median over the rounds, shown with their spread
#                   (one run's ratio moves by up to 30% on this VM). 1: the full run only.
#   PEERS_FROM      a folder of saved results (a last-run): measure vigilo only and
#                   take the peers' rows (FAISS, LanceDB) from it; the section says
#                   when and at which commit they were measured
#   RESULTS_FROM    a folder of saved results: skip every measurement and only
#                   rewrite the tables, plots and section from it. Each run saves
#                   its raw results (JSON lines, the kernel table, meta.env) to
#                   $VIGILO_BENCH_CACHE/ivf-query/last-run/.
#
# Every system runs on one thread: vigilo's query core is single-threaded;
# FAISS omp_set_num_threads(1) and vigilo both with OPENBLAS_NUM_THREADS=1 (vigilo links OpenBLAS for
# k-means only; idle OpenBLAS threads would otherwise spin); LanceDB's searches
# are threaded too. Every measurement runs pinned to the same CPU (taskset -c
# BENCH_CPU, default the last one): on this VM CPU 0 runs ~25% slower than
# CPU 1 for every system alike (it takes the interrupts), so an unpinned run
# compares whichever CPU each process happened to land on. Each nprobe
# starts with 100 untimed warm-up queries. Index builds are cached (vigilo by
# its binary's hash, LanceDB by its parameters) and not timed here; FAISS
# trains and adds in its process (seconds).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
vigilo=$build/src/cli/vigilo
datasets=${DATASETS:-fashion-mnist wink}
one_queries=${QUERIES:-1000}
nprobes=${NPROBES:-1,2,4,8,16,32,64,128,256}
iterations=${ITERATIONS:-10}
seed=${SEED:-1}
faiss_flavours=${FAISS_FLAVOURS:-avx2 generic}
faiss_indexes=${FAISS_INDEXES:-flat,sq8,sq4,pq4fs}
faiss_generic_indexes=${FAISS_GENERIC_INDEXES:-flat,sq8}
use_lancedb=${LANCEDB:-1}
lancedb_timeout=${LANCEDB_TIMEOUT:-1800}
use_kernels=${KERNELS:-1}
kernel_seconds=${KERNEL_SECONDS:-0.3}
rounds=${ROUNDS:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || bench_die "ROUNDS must be a positive integer, not '$rounds'"
bench_cpu=${BENCH_CPU:-$(( $(nproc) - 1 ))}
pin=(taskset -c "$bench_cpu")
data=${VIGILO_DATA_DIR:-$HOME/.cache/vigilo/data}
cache=${VIGILO_BENCH_CACHE:-$HOME/.cache/vigilo/bench}
log() { echo "ivf_query.sh: $*" >&2; }

[[ -x $vigilo ]] || bench_die "$vigilo not found; build it with: cmake --build ${build#"$root"/} --target vigilo"
"$vigilo" index build --help >/dev/null 2>&1 || bench_die "$vigilo has no 'index build' subcommand"
have_eval=1
"$vigilo" index eval --help >/dev/null 2>&1 || have_eval=0
command -v node >/dev/null || bench_die "node is not installed (scripts/setup)"
command -v jq >/dev/null || bench_die "jq is not installed (apt-get install jq)"
if ! command -v gnuplot >/dev/null; then  # the PNG plots
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  log "installing gnuplot-nox"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends gnuplot-nox >&2 ||
    { $SUDO apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends gnuplot-nox >&2; } ||
    bench_die "gnuplot is missing (apt-get install gnuplot-nox)"
fi

log "bench/data/prepare.sh (cached) ..."
"$root/bench/data/prepare.sh" >/dev/null
log "bench/faiss/setup.sh --search (cached) ..."
mapfile -t faiss_bins < <("$root/bench/faiss/setup.sh" --search | tail -n 2)
declare -A faiss_bin=([generic]=${faiss_bins[0]} [avx2]=${faiss_bins[1]})
[[ -x ${faiss_bin[generic]} && -x ${faiss_bin[avx2]} ]] || bench_die "bench/faiss/setup.sh --search did not give two binaries"
lancedb_modules=""
if [[ $use_lancedb == 1 ]]; then
  log "bench/lancedb/setup.sh (cached) ..."
  lancedb_modules=$("$root/bench/lancedb/setup.sh" | tail -n 1) || { log "LanceDB set-up failed; skipping it"; lancedb_modules=""; }
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ivf_query.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
vigilo_hash=$(sha256sum "$vigilo" | cut -c1-16)
qcache=$cache/ivf-query
mkdir -p "$qcache"
uptime_start=$(uptime)
date_start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
cpu_model=$(bench_cpu)
cpu_flags=$(grep -m1 -o -w 'avx2\|avx512f\|avx512bw\|avx512vl\|avx512_vnni\|fma' /proc/cpuinfo | sort -u | tr '\n' ' ' | sed 's/ $//')
results_from=${RESULTS_FROM:-}
peers_from=${PEERS_FROM:-}
peers_note=
if [[ -n $peers_from && -z $results_from ]]; then
  [[ -s $peers_from/meta.env ]] || bench_die "$peers_from has no meta.env (a saved run)"
  peers_note=$(bash -c 'source "$1"; echo "$date_start, commit $run_commit"' _ "$peers_from/meta.env")
  log "measuring vigilo only; the peers' rows come from $peers_from ($peers_note)"
fi
if [[ -n $results_from ]]; then
  [[ -s $results_from/meta.env ]] || bench_die "$results_from has no meta.env (a saved run)"
  log "re-rendering the saved run in $results_from (nothing is measured)"
  cp "$results_from"/meta.env "$tmp/"
  [[ -f $results_from/kernels.md ]] && cp "$results_from/kernels.md" "$tmp/"
  # shellcheck disable=SC1091
  source "$tmp/meta.env"
  for ds in $datasets; do cp "$results_from/$ds.jsonl" "$tmp/"; done
fi

# dataset NAME: sets base queries gt metric nlist d label
dataset() {
  case $1 in
    fashion-mnist)
      base=$data/fashion-mnist-train.fvecs queries=$data/fashion-mnist-queries.fvecs
      gt=$data/fashion-mnist-gt-l2_squared.ivecs metric=l2_squared nlist=${NLIST_FASHION:-980} label="Fashion-MNIST" ;;
    wink)
      base=$data/wink-base.fvecs queries=$data/wink-queries.fvecs
      gt=$data/wink-gt-cosine.ivecs metric=cosine nlist=${NLIST_WINK:-2048} label="wink-GloVe-100" ;;
    *) bench_die "unknown data set $1 (fashion-mnist, wink)" ;;
  esac
  d=$(od -An -t d4 -N4 "$base" | tr -d ' ')
  n=$(( $(stat -c %s "$base") / (4 + 4 * d) ))
  nq=$(( $(stat -c %s "$queries") / (4 + 4 * d) ))
  gtk=$(od -An -t d4 -N4 "$gt" | tr -d ' ')
  sample=$(( n < 256 * nlist ? n : 256 * nlist ))
}

# vigilo_eval PUB SERIES ENC NPROBES ROUND: one JSON line per nprobe (one at a time and batched).
vigilo_eval() {
  local pub=$1 series=$2 enc=$3 np=$4 round=$5
  OPENBLAS_NUM_THREADS=1 "${pin[@]}" "$vigilo" index eval "$pub/manifest.json" --queries "$tmp/$ds-q-one.fvecs" --ground-truth "$tmp/$ds-gt-one.ivecs" \
    --k 10 --nprobe "$np" --batch 1 --json >"$tmp/one.jsonl"
  OPENBLAS_NUM_THREADS=1 "${pin[@]}" "$vigilo" index eval "$pub/manifest.json" --queries "$queries" --ground-truth "$gt" \
    --k 10 --nprobe "$np" --batch 0 --json >"$tmp/batch.jsonl"
  jq -c -s --arg s "$series" --arg e "${enc^^}" --argjson round "$round" --slurpfile one "$tmp/one.jsonl" '
    .[] as $b | ($one[] | select(.nprobe == $b.nprobe)) as $o |
    {series:$s, system:"vigilo", index:("IVF-" + $e), nprobe:$b.nprobe, recall:$b.recall, recall_one:$o.recall,
     list_recall:$b.list_recall,
     qps_one:$o.qps, qps_batch:$b.qps, bytes_per_query:$o.bytes_per_query, rows_per_query:$o.rows_per_query,
     kernel:$o.kernel,
     queries_one:$o.queries, queries_batch:$b.queries} + (if $round > 1 then {round:$round} else {} end)' "$tmp/batch.jsonl"
}

# faiss_run FLAVOUR INDEXES NPROBES ROUND: FAISS's JSON lines, in this script's form.
faiss_run() {
  local flavour=$1 indexes=$2 np=$3 round=$4 fl
  OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 "${pin[@]}" "${faiss_bin[$flavour]}" "$base" "$queries" "$gt" --nlist "$nlist" \
    --metric "$metric" --sample "$sample" --iterations "$iterations" --seed "$seed" --k 10 \
    --indexes "$indexes" --pq-m $(( d / 2 )) --nprobe "$np" --one-queries "$one" >"$tmp/faiss.jsonl" 2>"$tmp/faiss.err" ||
    { tail -c 2000 "$tmp/faiss.err" >&2; bench_die "FAISS $flavour failed"; }
  [[ $flavour == avx2 ]] && fl="AVX2" || fl="Debian generic"
  jq -c --arg fl "$fl" --argjson round "$round" '
    if .type == "index" then
      if $round > 1 then empty else
      {type:"info", series:("FAISS " + .index + ", " + $fl), system:"faiss", code_bytes:.code_size,
       faiss_version:.faiss_version, note:("train \(.train_seconds) s, add \(.add_seconds) s, imbalance \(.imbalance_factor)")}
      end
    else
      {series:("FAISS " + .index + ", " + $fl), system:"faiss", index:.index, nprobe:.nprobe, recall:.recall,
       recall_one:.recall_one, qps_one:.qps_one, qps_batch:.qps_batch, bytes_per_query:null,
       queries_one:.queries_one, queries_batch:.queries_batch} + (if $round > 1 then {round:$round} else {} end)
    end' "$tmp/faiss.jsonl"
}

# Every result is one JSON line in $tmp/NAME.jsonl: {"series","system","index",
# "nprobe","recall","recall_one","qps_one","qps_batch","bytes_per_query"}, and one
# {"type":"info","series",...} line per series (code bytes per vector, build notes).
for ds in $datasets; do
  [[ -z $results_from ]] || break
  dataset "$ds"
  out=$tmp/$ds.jsonl
  : >"$out"
  cat "$base" "$queries" >/dev/null  # warm the page cache
  one=$(( one_queries < nq ? one_queries : nq ))
  head -c $(( one * (4 + 4 * d) )) "$queries" >"$tmp/$ds-q-one.fvecs"
  head -c $(( one * (4 + 4 * gtk) )) "$gt" >"$tmp/$ds-gt-one.ivecs"

  # --- vigilo ---
  declare -A vigilo_pub=()
  for enc in lvq8 lvq4; do
    series="vigilo IVF-${enc^^}"
    pub=$qcache/vigilo-$vigilo_hash/$ds-$enc-nlist$nlist-s$sample-it$iterations-seed$seed
    if [[ ! -s $pub/manifest.json ]]; then
      log "$ds: vigilo index build $enc (nlist $nlist) -> $pub"
      rm -rf "$pub" "$pub.tmp"
      mkdir -p "$(dirname "$pub")"
      "$vigilo" index build --input "$base" --metric "$metric" --encoding "$enc" --nlist "$nlist" --sample "$sample" \
        --iterations "$iterations" --seed "$seed" --json --out "$pub.tmp" >"$tmp/build.json" 2>"$tmp/build.err" ||
        { tail -c 2000 "$tmp/build.err" >&2; bench_die "vigilo index build failed"; }
      tail -n 1 "$tmp/build.json" >"$pub.tmp/build-summary.json"
      mv "$pub.tmp" "$pub"
    fi
    if [[ $enc == lvq8 ]]; then code=$(( d + 8 )); else code=$(( (d + 1) / 2 + 8 )); fi
    jq -c --arg s "$series" --argjson code "$code" '{type:"info", series:$s, system:"vigilo", code_bytes:$code,
      note:("\(.roots) roots, \(.empty_leaves // .["empty-leaves"]) empty leaves")}' "$pub/build-summary.json" >>"$out" 2>/dev/null ||
      jq -nc --arg s "$series" --argjson code "$code" '{type:"info", series:$s, system:"vigilo", code_bytes:$code}' >>"$out"
    if [[ $have_eval == 0 ]]; then
      log "$ds: $vigilo has no 'index eval'; vigilo rows skipped"
      continue
    fi
    log "$ds: vigilo index eval $enc, one at a time ($one queries) and batched ($nq)"
    vigilo_eval "$pub" "$series" "$enc" "$nprobes" 1 >>"$out"
    vigilo_pub[$enc]=$pub
  done

  # --- peers re-used from a saved run ---
  if [[ -n $peers_from ]]; then
    [[ -s $peers_from/$ds.jsonl ]] || bench_die "$peers_from has no $ds.jsonl"
    jq -c 'select(.system != null and .system != "vigilo")' "$peers_from/$ds.jsonl" >>"$out"
  fi

  # --- FAISS ---
  [[ -z $peers_from ]] &&
  for flavour in $faiss_flavours; do
    indexes=$faiss_indexes
    [[ $flavour == generic ]] && indexes=$faiss_generic_indexes
    [[ -n $indexes ]] || continue
    log "$ds: FAISS $flavour ($indexes), train + add + search"
    faiss_run "$flavour" "$indexes" "$nprobes" 1 >>"$out"
  done

  # --- more rounds, interleaved, at the nprobes around 0.95 (the goal ratios' spread) ---
  if (( rounds > 1 )) && [[ -z $peers_from && $have_eval == 1 && " $faiss_flavours " == *" avx2 "* ]]; then
    # Per series (vigilo IVF-LVQ8, the FAISS AVX2 indexes): the last nprobe below 0.95 and the first at or above it.
    round_nprobes=$(jq -rs '[.[] | select(.type == null and (.series == "vigilo IVF-LVQ8" or (.series | test("^FAISS .*, AVX2$"))))]
      | group_by(.series) | map(sort_by(.nprobe) | . as $c | ([$c[] | select(.recall >= 0.95)][0].nprobe) as $f
        | if $f == null then empty else [$f, ([$c[] | select(.nprobe < $f)] | last | .nprobe)] end)
      | flatten | map(select(. != null)) | unique | map(tostring) | join(",")' "$out")
    if [[ -n $round_nprobes ]]; then
      for (( r = 2; r <= rounds; r++ )); do
        log "$ds: round $r of $rounds at nprobe $round_nprobes ($( (( r % 2 == 0 )) && echo "FAISS first" || echo "vigilo first"))"
        if (( r % 2 == 0 )); then
          faiss_run avx2 "$faiss_indexes" "$round_nprobes" "$r" >>"$out"
          vigilo_eval "${vigilo_pub[lvq8]}" "vigilo IVF-LVQ8" lvq8 "$round_nprobes" "$r" >>"$out"
        else
          vigilo_eval "${vigilo_pub[lvq8]}" "vigilo IVF-LVQ8" lvq8 "$round_nprobes" "$r" >>"$out"
          faiss_run avx2 "$faiss_indexes" "$round_nprobes" "$r" >>"$out"
        fi
      done
    fi
  fi

  # --- LanceDB ---
  if [[ -n $lancedb_modules && -z $peers_from ]]; then
    lmetric=$([[ $metric == cosine ]] && echo cosine || echo l2)
    subv=$(( d / 4 ))  # 8-bit codes of d/4 bytes: the code size of FAISS's PQ(d/2)x4
    lver=$(jq -r .version "$lancedb_modules/node_modules/@lancedb/lancedb/package.json")
    db=$qcache/lancedb-$lver/$ds-nlist$nlist-m$subv-b8-it$iterations-$lmetric
    series="LanceDB $lver IVF_PQ"
    if [[ ! -s $db/done.json ]]; then
      log "$ds: LanceDB IVF_PQ build (nlist $nlist, $subv sub-vectors × 8 bits; timeout $lancedb_timeout s) -> $db"
      mkdir -p "$(dirname "$db")"
      LANCEDB_LOG=error timeout "$lancedb_timeout" nice node "$root/bench/lancedb/ivf_pq.cjs" build --modules "$lancedb_modules" \
        --db "$db" --base "$base" --metric "$lmetric" --nlist "$nlist" --sub-vectors "$subv" --bits 8 \
        --iterations "$iterations" --sample-rate 256 >"$tmp/lance-build.json" 2>"$tmp/lance-build.err" ||
        log "$ds: LanceDB build failed or timed out: $(grep -v 'KMeans\|Help:' "$tmp/lance-build.err" | tail -c 500)"
    fi
    if [[ -s $db/done.json ]]; then
      jq -c --arg s "$series" '{type:"info", series:$s, system:"lancedb", code_bytes:.code_size,
        note:("IVF_PQ \(.numPartitions) partitions, \(.numSubVectors) × \(.numBits) bits; index build \(.index_seconds | floor) s")}' \
        "$db/done.json" >>"$out"
      log "$ds: LanceDB search (taskset -c $bench_cpu)"
      if LANCEDB_LOG=error "${pin[@]}" node "$root/bench/lancedb/ivf_pq.cjs" search --modules "$lancedb_modules" --db "$db" \
        --queries "$queries" --gt "$gt" --metric "$lmetric" --k 10 --nprobe "$nprobes" --one-queries "$one" \
        >"$tmp/lance.jsonl" 2>"$tmp/lance.err"; then
        jq -c --arg s "$series" '{series:$s, system:"lancedb", index:"IVF_PQ", nprobe, recall, recall_one, qps_one,
          qps_batch, bytes_per_query:null, queries_one, queries_batch}' "$tmp/lance.jsonl" >>"$out"
      else
        log "$ds: LanceDB search failed: $(tail -c 500 "$tmp/lance.err")"
        jq -nc --arg s "$series" '{type:"info", series:$s, system:"lancedb", failed:"search failed"}' >>"$out"
      fi
    else
      jq -nc --arg s "$series" --arg t "$lancedb_timeout" '{type:"info", series:$s, system:"lancedb",
        failed:("index build did not finish within \($t) s")}' >>"$out"
    fi
  fi
  jq -nc --arg ds "$ds" --arg lbl "$label" --arg metric "$metric" --argjson n "$n" --argjson d "$d" --argjson nq "$nq" \
    --argjson one "$one" --argjson nlist "$nlist" --argjson sample "$sample" \
    '{type:"dataset", ds:$ds, "label":$lbl, metric:$metric, n:$n, d:$d, nq:$nq, one:$one, nlist:$nlist, sample:$sample}' >>"$out"
done

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

# --- raw kernel rate ---
kernels_md=$tmp/kernels.md
[[ -n $results_from ]] || : >"$kernels_md"
if [[ $use_kernels == 1 && -z $results_from ]]; then
  kbin=$build/src/ivf/ivf_kernels  # (src/ivf/kernels.cmake)
  if [[ ! -x $kbin ]]; then
    cmake --build "$build" --target ivf_kernels >/dev/null 2>&1 || true
  fi
  [[ -x $kbin ]] || { log "no $kbin (cmake --build ${build#"$root"/} --target ivf_kernels failed); kernel table skipped"; kbin=""; }
  if [[ -n $kbin ]]; then
    log "ivf_kernels $kernel_seconds"
    "${pin[@]}" "$kbin" "$kernel_seconds" >"$kernels_md" || : >"$kernels_md"
  fi
fi
if [[ -z $results_from ]]; then
  uptime_end=$(uptime)
  run_commit=$(commit)
  vigilo_used=${vigilo#"$root"/}
  declare -p datasets one_queries nprobes rounds seed iterations uptime_start uptime_end date_start run_commit vigilo_used \
    kernel_seconds peers_note cpu_model cpu_flags >"$tmp/meta.env"
  saved=$qcache/last-run
  rm -rf "$saved" && mkdir -p "$saved"
  for ds in $datasets; do cp "$tmp/$ds.jsonl" "$saved/"; done
  cp "$tmp/meta.env" "$kernels_md" "$saved/"
  log "raw results saved in $saved (RESULTS_FROM=$saved re-renders them)"
fi


# --- tables, goals, plots ---
# report.cjs RESULTS.jsonl PLOT.tsv: one data set's markdown on stdout (summary,
# goals, every point) and the plot's points (series, nprobe, recall, QPS one at
# a time, QPS batched) in PLOT.tsv.
cat >"$tmp/report.cjs" <<'EOF'
"use strict";
const fs = require("fs");
const [file, tsv] = process.argv.slice(2);
const lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const ds = lines.find((l) => l.type === "dataset");
const info = new Map(lines.filter((l) => l.type === "info").map((l) => [l.series, l]));
const points = lines.filter((l) => l.type === undefined && l.round === undefined);
// Rounds 2… (ROUNDS): vigilo IVF-LVQ8 and the FAISS AVX2 indexes again, at the nprobes around 0.95.
const roundPoints = lines.filter((l) => l.type === undefined && l.round !== undefined);
const order = (s) => {
  const keys = ["vigilo IVF-LVQ8", "vigilo IVF-LVQ4", "IVF-Flat, AVX2", "IVF-SQ8, AVX2", "IVF-SQ4, AVX2", "x4fs, AVX2",
    "IVF-Flat, Debian", "IVF-SQ8, Debian", "IVF-SQ4, Debian", "x4fs, Debian", "LanceDB"];
  const i = keys.findIndex((k) => s.includes(k));
  return i < 0 ? keys.length : i;
};
const seriesNames = [...new Set([...info.keys(), ...points.map((p) => p.series)])].sort((a, b) => order(a) - order(b));
const curve = (s, from = points) => from.filter((p) => p.series === s).sort((a, b) => a.nprobe - b.nprobe);
const target = 0.95;
const fmtInt = (x) => Math.round(x).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const q = (x) => (x == null ? "–" : x < 100 ? x.toFixed(1) : fmtInt(x));
const r4 = (x) => (x == null ? "–" : x.toFixed(4));
// QPS at recall = target: log-linear between the nprobes around it (the first
// point if it already reaches it); null if the curve never reaches it.
function at(c, key) {
  const i = c.findIndex((p) => p.recall >= target);
  if (i < 0) return null;
  if (i === 0) return c[0][key];
  const a = c[i - 1], b = c[i];
  const f = (target - a.recall) / (b.recall - a.recall);
  return Math.exp(Math.log(a[key]) + f * (Math.log(b[key]) - Math.log(a[key])));
}
const first = (c) => c.find((p) => p.recall >= target) || null;
const ceiling = (c) => c.reduce((m, p) => (m == null || p.recall > m.recall ? p : m), null);
const out = [];
out.push(`### ${ds.label} (${fmtInt(ds.n)} × ${ds.d}, ${ds.metric}, nlist ${ds.nlist})`, "");
out.push(`![recall@10 against QPS, ${ds.label}](img/ivf-query-${process.env.CPU_KIND}-${ds.ds}.png)`, "");
out.push(`k-means sample ${fmtInt(ds.sample)}; ${fmtInt(ds.one)} queries one at a time, ${fmtInt(ds.nq)} batched.`, "");
out.push("| index | code bytes/vector | QPS at 0.95, one at a time | QPS at 0.95, batched | first nprobe ≥ 0.95 | recall there | QPS one at a time there | QPS batched there | recall ceiling (nprobe) |");
out.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
const notes = [];
for (const s of seriesNames) {
  const c = curve(s), inf = info.get(s) || {};
  if (inf.failed) { notes.push(`${s}: did not run (${inf.failed})`); continue; }
  if (c.length === 0) continue;
  const f = first(c), top = ceiling(c);
  out.push(`| ${s} | ${inf.code_bytes ?? "–"} | ${q(at(c, "qps_one"))} | ${q(at(c, "qps_batch"))} | ${f ? f.nprobe : "never"} | ${f ? r4(f.recall) : "–"} | ${f ? q(f.qps_one) : "–"} | ${f ? q(f.qps_batch) : "–"} | ${r4(top.recall)} (${top.nprobe}) |`);
  if (inf.note) notes.push(`${s}: ${inf.note}`);
}
out.push("");
// Goals.
const faiss = seriesNames.filter((s) => s.startsWith("FAISS") && curve(s).length);
const best = (key, flavour) => faiss.filter((s) => s.includes(flavour)).map((s) => ({ s, v: at(curve(s), key) }))
  .filter((x) => x.v != null).sort((a, b) => b.v - a.v)[0];
const met = (ok) => (ok ? "met" : "**not met**");
if (ds.ds !== "fashion-mnist") out.push("The recall goals are set on Fashion-MNIST; the speed goal (issue 39) on both sets.", "");
for (const [key, what] of [["qps_one", "one at a time"], ["qps_batch", "batched"]]) {
  const mine = ["LVQ8", "LVQ4"].map((enc) => ({ enc, c: curve(`vigilo IVF-${enc}`) }))
    .map(({ enc, c }) => ({ enc, v: c.length ? at(c, key) : undefined }));
  const vs = [];
  for (const flavour of ["AVX2", "Debian generic"]) {
    const b = best(key, flavour);
    if (!b) { if (faiss.some((s) => s.includes(flavour))) vs.push(`no FAISS ${flavour} index reaches 0.95`); continue; }
    const r = mine.filter((m) => m.v != null).map((m) => `${m.enc} ${(m.v / b.v).toFixed(2)} ×`).join(", ");
    vs.push(`vs the best FAISS ${flavour} (${b.s.replace(/^FAISS /, "").replace(/, (AVX2|Debian generic)$/, "")}, ${q(b.v)} QPS): ${r || "–"}`);
  }
  const b = best(key, "");
  const lvq8 = mine[0].v;
  const goal = roundPoints.length ? " (the goal is judged on the rounds' median, below)"
    : b && lvq8 != null ? ` (goal LVQ8 ≥ 2 × the best FAISS: ${met(lvq8 / b.v >= 2)})` : "";
  const own = mine.map((m) => `${m.enc} ${m.v === undefined ? "not measured" : m.v == null ? "never reaches 0.95" : `${q(m.v)} QPS`}`).join(", ");
  out.push(`- **QPS at recall@10 = 0.95, ${what}** (interpolated): vigilo ${own}; ${vs.join("; ")}${goal}.`);
}
if (roundPoints.length) {
  // Per round, LVQ8's QPS at 0.95 over the best FAISS AVX2 index's (round 1: the full run above).
  const avx2 = faiss.filter((s) => s.endsWith(", AVX2"));
  const rounds = [1, ...[...new Set(roundPoints.map((p) => p.round))].sort((a, b) => a - b)];
  const median = (xs) => { const v = [...xs].sort((a, b) => a - b), m = v.length >> 1; return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2; };
  const parts = [];
  let allMet = true;
  for (const [key, what] of [["qps_one", "one at a time"], ["qps_batch", "batched"]]) {
    const ratios = rounds.map((r) => {
      const from = r === 1 ? points : roundPoints.filter((p) => p.round === r);
      const mine = at(curve("vigilo IVF-LVQ8", from), key);
      const peers = avx2.map((s) => at(curve(s, from), key)).filter((v) => v != null);
      return mine == null || peers.length === 0 ? null : mine / Math.max(...peers);
    }).filter((x) => x != null);
    if (ratios.length === 0) { allMet = false; parts.push(`${what}: –`); continue; }
    const med = median(ratios);
    allMet = allMet && med >= 2;
    parts.push(`${what} ${ratios.map((x) => x.toFixed(2)).join(", ")} → median **${med.toFixed(2)} ×** (spread ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
  }
  out.push(`- **LVQ8 ÷ the best FAISS AVX2 index, QPS at 0.95, over ${rounds.length} interleaved rounds** (round 1 is the full run; later rounds alternate which system goes first and measure only the nprobes around 0.95): ${parts.join("; ")} (goal, issue 39: median ≥ 2 × in both modes, on both sets: ${met(allMet)}).`);
}
// The memory floor of a one-at-a-time LVQ8 query at recall 0.95: the rows
// its lists hold (index eval's rows_per_query, interpolated like QPS) over
// the machine's rate for reading lists of that size at random places
// (bench/ivf_kernels "Probed lists": its streaming-read ceiling).
{
  const c = curve("vigilo IVF-LVQ8").filter((p) => p.rows_per_query != null);
  const probed = fs.existsSync(process.env.KERNELS_MD || "") ? fs.readFileSync(process.env.KERNELS_MD, "utf8").split("\n")
    .map((l) => l.split("|").slice(1, -1).map((x) => x.trim())).filter((x) => x.length === 6 && /^\d+$/.test(x[0]))
    .map((x) => ({ d: Number(x[0]), g: Number(x[2]), rate: parseFloat(x[4]) * 1e6 })).filter((x) => x.d === ds.d) : [];
  const rows = c.length ? at(c, "rows_per_query") : null, f = first(c), b = best("qps_one", "AVX2"), mine = at(c, "qps_one");
  if (rows != null && f && b && mine != null && probed.length) {
    const perList = f.rows_per_query / f.nprobe;
    // The list size nearest the query's, and of its rows (one a metric, each
    // measuring the same read) the fastest: a floor is the least time.
    const near = probed.reduce((m, x) => (m == null || Math.abs(Math.log(x.g / perList)) < Math.abs(Math.log(m.g / perList)) ? x : m), null);
    const k = probed.filter((x) => x.g === near.g).reduce((m, x) => (x.rate > m.rate ? x : m));
    const floor = rows / k.rate * 1e6, peer = 1e6 / b.v;
    out.push(`- **Memory floor, one at a time** (issue 39): at recall 0.95 an LVQ8 query's lists hold ${fmtInt(rows)} postings rows (\`index eval\` rows_per_query, interpolated; ${fmtInt(perList)} a list at nprobe ${f.nprobe}). Read from DRAM as lists at random places, at the kernel table's "probed lists" ceiling for ${k.g}-row lists (${(k.rate / 1e6).toFixed(1)} M rows/s, the faster of its two rows), they take **${floor.toFixed(0)} µs** before any work; 2 × the best FAISS AVX2 index (${peer.toFixed(0)} µs a query) allows ${(peer / 2).toFixed(0)} µs (${floor <= peer / 2 ? "above the floor" : 1e6 / mine < floor ? "below it, as vigilo's own time is: the floor assumes every list comes from DRAM, and some come from the CPU's caches" : "**below the floor: not reachable by computing faster**"}); vigilo takes ${(1e6 / mine).toFixed(0)} µs.`);
  }
}
const l8 = curve("vigilo IVF-LVQ8"), flat = curve(faiss.find((s) => s.includes("IVF-Flat")) || "");
if (l8.length && flat.length) {
  const diffs = l8.map((p) => ({ n: p.nprobe, v: p.recall - (flat.find((f) => f.nprobe === p.nprobe) || {}).recall })).filter((x) => !Number.isNaN(x.v));
  const worst = diffs.reduce((m, x) => (m == null || x.v < m.v ? x : m), null);
  const signed = (v) => `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(4)}`;
  out.push(`- **LVQ8 − IVF-Flat recall@10 at equal nprobe**: ${diffs.map((x) => `${x.n}: ${signed(x.v)}`).join(", ")}; lowest ${signed(worst.v)} at nprobe ${worst.n} (goal ≥ −0.005: ${met(worst.v >= -0.005)}).`);
  const lists = l8.filter((p) => p.list_recall != null).map((p) => ({ n: p.nprobe, part: p.list_recall - (flat.find((f) => f.nprobe === p.nprobe) || {}).recall, code: p.recall - p.list_recall })).filter((x) => !Number.isNaN(x.part));
  if (lists.length) out.push(`- **Partitions and codes apart** (list recall: the recall@10 of an exact float scan of the lists LVQ8 probed, \`index eval\`'s \`list_recall\`): vigilo's partitions − IVF-Flat ${lists.map((x) => `${x.n}: ${signed(x.part)}`).join(", ")}; LVQ8 codes (recall − list recall) ${lists.map((x) => `${x.n}: ${signed(x.code)}`).join(", ")}.`);
}
const l4 = curve("vigilo IVF-LVQ4");
if (l4.length) {
  const top = ceiling(l4);
  const others = seriesNames.filter((s) => /SQ4|x4fs|LanceDB/.test(s) && curve(s).length).map((s) => { const t = ceiling(curve(s)); return `${s} ${r4(t.recall)} (nprobe ${t.nprobe})`; });
  out.push(`- **LVQ4 recall ceiling**: ${r4(top.recall)} at nprobe ${top.nprobe} (goal ≥ 0.95: ${met(top.recall >= 0.95)}); ${others.join(", ")}.`);
}
for (const n of notes) out.push(`- ${n}`);
out.push("", "<details><summary>Every nprobe</summary>", "");
out.push("| index | nprobe | recall@10 | list recall@10 | QPS one at a time | QPS batched | bytes/query |", "|---|---:|---:|---:|---:|---:|---:|");
for (const s of seriesNames) for (const p of curve(s)) out.push(`| ${s} | ${p.nprobe} | ${r4(p.recall)} | ${p.list_recall == null ? "" : r4(p.list_recall)} | ${q(p.qps_one)} | ${q(p.qps_batch)} | ${p.bytes_per_query == null ? "" : fmtInt(p.bytes_per_query)} |`);
out.push("", "</details>", "");
process.stdout.write(out.join("\n") + "\n");
fs.writeFileSync(tsv, seriesNames.flatMap((s) => curve(s).map((p) => [s, p.nprobe, p.recall, p.qps_one, p.qps_batch].join("\t"))).join("\n") + "\n");
EOF
mkdir -p "$root/docs/img"
section=$tmp/section.md
: >"$tmp/datasets.md"
# The CPU kind names the section and the plots: "Intel(R) Xeon(R) Processor" -> intel-xeon, "AMD EPYC" -> amd-epyc.
cpu_kind=$(echo "$cpu_model" | sed -E 's/\((R|TM|tm)\)//g; s/ (Processor|CPU).*$//; s/ @.*$//' | tr 'A-Z' 'a-z' |
  tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')
for ds in $datasets; do
  CPU_KIND=$cpu_kind KERNELS_MD=$kernels_md node "$tmp/report.cjs" "$tmp/$ds.jsonl" "$tmp/$ds.tsv" >>"$tmp/datasets.md"
  label=$(jq -r 'select(.type == "dataset") | .label' "$tmp/$ds.jsonl")
  "$root/bench/plot_ivf_query.sh" "$tmp/$ds.tsv" "$root/docs/img/ivf-query-$cpu_kind-$ds.png" "$label ($cpu_model)" ||
    log "plotting $ds failed"
done
faiss_version=$(jq -r 'select(.faiss_version) | .faiss_version' "$tmp"/*.jsonl | head -n1)
kernel=$(jq -r 'select(.kernel) | .kernel' "$tmp"/*.jsonl | head -n1)
{
  cat <<EOF
## Query (IVF, recall@10 against QPS) on ${cpu_model}, kernel ${kernel:-n/a}

\`vigilo index eval\` on IVF-LVQ8 and IVF-LVQ4 publications (\`vigilo index build --nlist N --seed $seed\`,
k-means sample min(N, 256·nlist), $iterations iterations; kernel: ${kernel:-n/a}) against FAISS $faiss_version IVF-Flat,
IVF-SQ8, IVF-SQ4 (\`IndexIVFScalarQuantizer\` on residuals) and IVF-PQ FastScan (\`IVF{nlist},PQ{d/2}x4fs\`;
M = d/2: 392 for 784 dimensions, 50 for 100, i.e. 2 dimensions per 4-bit sub-quantizer, 2 bits per dimension)
(\`bench/faiss/ivf_search.cc\`: one coarse quantizer, flat k-means with the same sample size, iterations and
seed, shared by the four indexes), and LanceDB IVF_PQ (\`bench/lancedb/ivf_pq.cjs\`; d/4 sub-vectors × 8 bits,
the same code bytes as FAISS's PQ; sampleRate 256, maxIterations $iterations), same nlist, same queries, same exact
ground truth (bench/data/prepare.sh: held-out queries, top-100 ids). Cosine: FAISS normalises base and queries and
uses inner product (spherical k-means); LanceDB distanceType cosine.

Single thread throughout: vigilo's query core; FAISS \`omp_set_num_threads(1)\`, OpenBLAS 1 thread (vigilo too);
LanceDB's searches on one CPU. Every measurement is pinned to the same CPU (\`taskset -c $bench_cpu\`; on this VM CPU 0
is ~25% slower than CPU 1 for every system, so unpinned runs compare CPUs, not systems). *One at a time*: each query is its own call, in turn (vigilo
\`--batch 1\`; FAISS \`search(n = 1)\`; LanceDB one awaited \`vectorSearch\` per query, Node included), over the
first $one_queries queries; *batched*: every query in one call (vigilo \`--batch 0\`; FAISS one \`search\`; LanceDB
one query with \`addQueryVector\` for each vector). Each nprobe starts with 100 untimed queries; recall@10 =
|found ∩ true top-10| / 10, averaged over every query (batched run). Bytes/query: the bytes vigilo's query core
fetched from the publication per query in the one-at-a-time pass (its centroid and footer caches persist across passes). The peers stop at the first nprobe ≥ 64
where recall rose by < 0.0005 (their ceiling). "At 0.95" QPS is interpolated (log QPS linear in recall between the
two nprobes around 0.95); the first nprobe reaching 0.95 is shown beside it. FAISS "AVX2" is Debian's source
package rebuilt with \`-DFAISS_OPT_LEVEL=avx2\`; "Debian generic" is libfaiss-dev as shipped (no AVX2).

EOF
  cat "$tmp/datasets.md"
  if [[ -s $kernels_md ]]; then
    cat <<EOF
### LVQ kernel rate (one core)

\`bench/ivf_kernels $kernel_seconds\`: rows per second of thread CPU time by each kernel path (every one this CPU
has), with a 4096-row group in cache (scored repeatedly) and streamed from DRAM (256 MB of codes in 4096-row
groups), against the rate of a plain streaming read (sum of 64-bit words) of the same bytes (codes + 8 bytes of
offset and scale per row): the memory-bandwidth ceiling on this machine. Pass \`score\` is the exact kernels
(ScoreRows); \`screen\` (LVQ8) the integer bounds a query computes for every probed row before it scores the
few that can enter its top-k; the last column is the DRAM rate over the ceiling: the median of 5 rounds that
each measure the kernel and the ceiling in turn (which goes first alternates), with the rounds' range, so that
the bandwidth other jobs on the host take moves both sides of a ratio alike (the rates shown are the rounds'
medians; the in-cache rate is the best of 3).

EOF
    sed '/^Streaming from 2 MiB pages/,$d' "$kernels_md" | grep '^|'
    cat <<EOF

The table above reads memory on 4 KiB pages, as \`index query\` reads a local publication's files through
their mappings. \`index eval\` holds a local publication's objects in memory on 2 MiB pages
(\`store::ResidentStore\`, docs/format/ivf-build-algorithms.md "Resident objects"), so its queries read
memory as this table does (the dispatched kernels only):

EOF
    sed -n '/^Streaming from 2 MiB pages/,/^Probed lists/p' "$kernels_md" | grep '^|'
    cat <<EOF

**Probed lists**: what a one-at-a-time query meets instead of one long stream. A call visits 64 row groups of G
rows at random places in the 256 MB on 2 MiB pages (each read once; the hardware prefetcher starts again at
every list), with the dispatched screen and with a plain streaming read of the same rows' codes, offsets and
scales (the screen and the read in 5 alternating rounds, as above). That read's rate is an \`index eval\` query's memory ceiling: its postings rows over it are the least
time its lists take to arrive.

EOF
    sed -n '/^Probed lists/,$p' "$kernels_md" | grep '^|'
    echo
    echo "- $(grep -m1 '^cpu:' "$kernels_md"); $(grep -m1 '^load average at end' "$kernels_md")"
    echo
  fi
  cat <<EOF
- CPU: ${cpu_model} ($(nproc) CPUs; flags: ${cpu_flags}); vigilo's kernel flavour: ${kernel:-n/a}
- Load: at the start \`$(echo "$uptime_start" | sed 's/^ *//')\`; at the end \`$(echo "$uptime_end" | sed 's/^ *//')\`
  (the 2 CPUs are shared with other jobs: every QPS here is provisional and lower than on an idle machine)
- Date: $date_start, commit $run_commit${peers_note:+ (vigilo's rows; the peers' rows were measured on $peers_note and re-used)}
- Regenerate: \`cmake --build build/release --target vigilo && bench/ivf_query.sh\`
  (this run used \`$vigilo_used\`; QUERIES=$one_queries, NPROBES=$nprobes, ROUNDS=${rounds:-1})
EOF
} >"$section"

bench_replace_section "$root/docs/benchmarks.md" "ivf-query-$cpu_kind" "$section"
cat "$section"

#!/usr/bin/env bash
# S3 on a private Ceph RGW (issue 36): writing to a bucket and one cold query
# from it, beside an `aws s3 cp`-style peer that uploads whole files with curl.
#   - ingest: `vigilo dataset ingest` of 100,000 generated cases (bench/data/gen_cases.py)
#     against one signed PUT of the same file with curl;
#   - publish: `vigilo index publish` of the Fashion-MNIST publication (60,000 × 784,
#     IVF-LVQ8, as bench/http.sh builds it) against `curl --parallel` PUTting every
#     file of it (16 at once, unsigned payload: the peer neither hashes nor reads back);
#   - query: one cold `vigilo index query` from the bucket: requests, dependent
#     round trips and bytes (--stats), and wall time.
# Requests are counted in RGW's own request log. vigilo and curl run pinned to
# CPU $CPU (taskset); RGW runs unpinned on the same machine (loopback: this
# measures client and server work, not a network). Wall time is the median of
# REPS interleaved rounds (vigilo, then the peer, each round). Rewrites only the
# s3 section of docs/benchmarks.md.
#
#   bench/s3.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
#
# Environment: REPS 3, CPU 1, CASES 100000, NPROBE 16.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
vigilo=$build/src/cli/vigilo
reps=${REPS:-3}
cpu=${CPU:-1}
cases=${CASES:-100000}
nprobe=${NPROBE:-16}
log() { echo "s3.sh: $*" >&2; }

[[ -x $vigilo ]] || bench_die "$vigilo not found; build it with: cmake --build ${build#"$root"/} --target vigilo"
for tool in jq curl taskset python3; do command -v "$tool" >/dev/null || bench_die "$tool is not installed (scripts/setup)"; done
fm=/usr/share/datasets/fashion-mnist
[[ -f $fm/train-images-idx3-ubyte.gz ]] || bench_die "$fm is missing (apt-get install dataset-fashion-mnist)"

data=$root/build/bench-data
mkdir -p "$data/s3"
tmp=$(mktemp -d)
cleanup() { bash "$root/scripts/ceph-rgw" down "$tmp/rgw" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT

# --- inputs, cached ---
dataset=$data/dataset-v1-$cases.json
if [[ ! -s $dataset ]]; then
  log "generating $dataset"
  python3 "$root/bench/data/gen_cases.py" "$cases" >"$dataset.part" && mv "$dataset.part" "$dataset"
fi
base=$data/s3/fashion-mnist-train.bvecs
if [[ ! -s $base ]]; then
  log "Fashion-MNIST training images -> .bvecs"
  gzip -dc "$fm/train-images-idx3-ubyte.gz" | perl -e 'binmode STDIN; binmode STDOUT; read STDIN, $h, 16;
    while (read(STDIN, $b, 784) == 784) { print pack("l<", 784), $b }' >"$base.part" && mv "$base.part" "$base"
fi
pub=$data/s3/fashion-mnist-lvq8
if ! "$vigilo" index validate "$pub/manifest.json" >/dev/null 2>&1; then
  log "vigilo index build --metric l2_squared --encoding lvq8 --seed 7 -> $pub"
  rm -rf "$pub"
  "$vigilo" index build --input "$base" --metric l2_squared --encoding lvq8 --seed 7 --out "$pub" -q >/dev/null
fi
# The query: test image 0 as a JSON array.
{ gzip -dc "$fm/t10k-images-idx3-ubyte.gz" 2>/dev/null || true; } | perl -e 'binmode STDIN; read STDIN, $h, 16; read STDIN, $b, 784;
  print "[" . join(",", unpack("C784", $b)) . "]\n"' >"$tmp/query.jsonl"

log "starting a private Ceph RGW"
bash "$root/scripts/ceph-rgw" up "$tmp/rgw" $$ >"$tmp/rgw.env"
# shellcheck disable=SC1091
. "$tmp/rgw.env"
rgwlog=$tmp/rgw/log/client.rgw.a.log
export VIGILO_STORES=$stores VIGILO_CONTROL=$tmp/control.sqlite3 VIGILO_CACHE=off
export XDG_DATA_HOME=$tmp/xdg XDG_CACHE_HOME=$tmp/xdg-cache
pinned() { taskset -c "$cpu" "$@"; }
now() { date +%s.%N; }
mark() { wc -l <"$rgwlog"; }
requests_since() {  # requests_since LINE: "PUT=n GET=n HEAD=n DELETE=n" logged after LINE
  tail -n +"$(($1 + 1))" "$rgwlog" | grep -oE '"(PUT|GET|HEAD|DELETE) /' | tr -d '"/ ' | sort | uniq -c |
    awk '{ printf "%s%s=%d", sep, $2, $1; sep = " " }'
}
sign=(--aws-sigv4 "aws:amz:$region:s3" --user "$access_key:$secret_key")

declare -a ingest_s ingest_peer_s publish_s publish_peer_s query_s
ingest_bytes=0 publish_bytes=0 ingest_requests="" publish_requests="" query_stats=""
peer_ingest_requests="" peer_publish_requests=""
pub_files=()
while IFS= read -r f; do pub_files+=("$f"); done < <(cd "$pub" && find . -type f ! -name manifest.json | sed 's|^\./||' | sort)
pub_files+=(manifest.json)
pub_total=0
for f in "${pub_files[@]}"; do pub_total=$((pub_total + $(stat -c %s "$pub/$f"))); done
dataset_size=$(stat -c %s "$dataset")

for r in $(seq 1 "$reps"); do
  log "round $r of $reps"
  # ingest
  m=$(mark); t0=$(now)
  pinned "$vigilo" dataset ingest "$dataset" --store rgw --name "bench-$r" --json -q >"$tmp/ingest.json"
  t1=$(now); ingest_s+=("$(echo "$t1 - $t0" | bc)")
  ingest_bytes=$(jq .bytes_written "$tmp/ingest.json"); ingest_requests=$(requests_since "$m")
  m=$(mark); t0=$(now)
  pinned curl -sf -o /dev/null -X PUT "${sign[@]}" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    -T "$dataset" "$endpoint/$bucket/peer/dataset-$r.json"
  t1=$(now); ingest_peer_s+=("$(echo "$t1 - $t0" | bc)"); peer_ingest_requests=$(requests_since "$m")
  # publish
  m=$(mark); t0=$(now)
  pinned "$vigilo" index publish "$pub" "rgw:pubs/fm-$r" --json >"$tmp/publish.json"
  t1=$(now); publish_s+=("$(echo "$t1 - $t0" | bc)")
  publish_bytes=$(jq .bytes_copied "$tmp/publish.json"); publish_requests=$(requests_since "$m")
  args=()
  # '=' percent-encoded: curl 7.88 signs a raw '=' in a path differently from RGW (403).
  for f in "${pub_files[@]}"; do args+=(-T "$pub/$f" "$endpoint/$bucket/peer/fm-$r/${f//=/%3D}"); done
  m=$(mark); t0=$(now)
  pinned curl -sf --no-progress-meter --parallel --parallel-max 16 -o /dev/null "${sign[@]}" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    "${args[@]}"
  t1=$(now); publish_peer_s+=("$(echo "$t1 - $t0" | bc)"); peer_publish_requests=$(requests_since "$m")
  # one cold query from the bucket
  t0=$(now)
  pinned "$vigilo" index query "rgw:pubs/fm-$r/manifest.json" --queries "$tmp/query.jsonl" -k 10 --nprobe "$nprobe" \
    --stats >/dev/null 2>"$tmp/query.err"
  t1=$(now); query_s+=("$(echo "$t1 - $t0" | bc)")
  query_stats=$(grep "stats: total" "$tmp/query.err" | sed 's/^vigilo: stats: total //')
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mbs() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.1f", b / s / 1e6 }'; }
sec() { awk -v s="$1" 'BEGIN { printf "%.2f", s }'; }
ms() { awk -v s="$1" 'BEGIN { printf "%.0f", s * 1000 }'; }
num() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }  # 1234567 -> 1,234,567
ing=$(median "${ingest_s[@]}"); ingp=$(median "${ingest_peer_s[@]}")
pubm=$(median "${publish_s[@]}"); pubp=$(median "${publish_peer_s[@]}")
qm=$(median "${query_s[@]}")
commit=$(git -C "$root" rev-parse --short HEAD)

section=$tmp/section.md
{
  echo "## S3 (Ceph RGW on loopback: write to a bucket, one cold query from it)"
  echo
  echo "\`bench/s3.sh\` at $commit on $(bench_cpu), $(date -u +%Y-%m-%d); client pinned to CPU $cpu, RGW 16.2 (memstore OSD)"
  echo "unpinned on the same machine; median of $reps interleaved rounds. Requests from RGW's request log."
  echo
  echo "| what | tool | wall | MB/s | requests | bytes up |"
  echo "|---|---|---|---|---|---|"
  echo "| ingest $(num "$cases") cases | vigilo dataset ingest | $(sec "$ing") s | $(mbs "$ingest_bytes" "$ing") | $ingest_requests | $(num "$ingest_bytes") |"
  echo "| the same file | curl, one signed PUT | $(sec "$ingp") s | $(mbs "$dataset_size" "$ingp") | $peer_ingest_requests | $(num "$dataset_size") |"
  echo "| publish Fashion-MNIST LVQ8 (${#pub_files[@]} objects) | vigilo index publish | $(sec "$pubm") s | $(mbs "$publish_bytes" "$pubm") | $publish_requests | $(num "$publish_bytes") |"
  echo "| the same files | curl --parallel (16), unsigned payload | $(sec "$pubp") s | $(mbs "$pub_total" "$pubp") | $peer_publish_requests | $(num "$pub_total") |"
  echo "| cold query, k 10, nprobe $nprobe | vigilo index query --stats | $(ms "$qm") ms | | $query_stats | |"
  echo
  echo "ingest ÷ curl: $(awk -v a="$ing" -v b="$ingp" 'BEGIN { printf "%.1f", a / b }')× the wall time; publish ÷ curl:"
  echo "$(awk -v a="$pubm" -v b="$pubp" 'BEGIN { printf "%.1f", a / b }')×. vigilo does more than move bytes: ingest validates, canonicalizes and"
  echo "BLAKE3-hashes every case, writes batches and index pages with conditional creates and reads back what"
  echo "it verifies before publishing the root; publish hashes each object (SHA-256, sent as"
  echo "\`x-amz-content-sha256\`), reads it back whole to verify size and SHA-256, and creates the manifest last."
  echo "The peer sends \`UNSIGNED-PAYLOAD\` and checks nothing."
  echo
  echo "Where ingest's time goes: one object at a time, a conditional PUT (RGW answers in ~8 ms on this"
  echo "memstore OSD), a read-back GET, and the verification pass's GET: three dependent requests per"
  echo "object, about 1,000 objects for 100,000 cases. Uploading batches concurrently (the governor allows"
  echo "4 requests in flight) is the next step; publish already pays about one round trip per object."
} >"$section"
cat "$section"
bench_replace_section "$root/docs/benchmarks.md" s3 "$section"

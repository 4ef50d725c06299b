#!/usr/bin/env bash
# HTTP reading (issue 19): one query on each of two publications (Fashion-MNIST
# and wink-GloVe-100) served by a private nginx, behind a delay proxy (bench/delay_proxy.mjs: each request held
# D ms before it is forwarded), cold and warm, at the nprobe that first reaches
# recall@10 ≥ TARGET locally. Counts requests, dependent round trips and bytes
# (vigilo's --stats, checked against nginx's access log) and wall time, beside
# two peers reading over the same proxy: hyparquet (bench/http_hyparquet.mjs)
# reading the same postings row groups and columns, and a naive reader fetching
# every object the query touched whole (curl). Rewrites only the http section of
# docs/benchmarks.md.
#
#   bench/http.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
#
# Data (cached in build/bench-data/http/): Debian's dataset-fashion-mnist, the
# 60,000 training images as .bvecs (the base), the first 200 test images (the
# nprobe sweep's queries; the measured query is test image QUERY); wink: the
# 340,479 word vectors and the first 200 held-out query words of
# bench/data/prepare.sh (run it first; cached in ${VIGILO_DATA_DIR:-~/.cache/vigilo/data}).
# Each publication (IVF-LVQ8, `vigilo index build --seed 7`; wink cosine with
# nlist 2048, as bench/ivf_query.sh) is reused while `vigilo index validate`
# accepts it.
#
# Environment:
#   DATASETS "fashion-mnist wink" (either or both)
#   DELAYS   "0 20 80" (ms added to every request by the proxy)
#   REPS     5: runs per measurement; wall time is the median, counts are the
#            first run's (they are the same every run; a differing run is noted)
#   QUERY    0 (test image index, < 200)
#   TARGET   0.95 (recall@10 the nprobe must reach over the 200 queries)
#   HYPARQUET 1 (0 skips the hyparquet peer)
#   NPROBES  "target": the nprobes measured, each its own table; "target" is
#            the first reaching TARGET ("target 256": that one and 256)
#   BENCH_DOC docs/benchmarks.md (the file whose http section is rewritten)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
vigilo=$build/src/cli/vigilo
delays=${DELAYS:-0 20 80}
reps=${REPS:-5}
query=${QUERY:-0}
target=${TARGET:-0.95}
use_hyparquet=${HYPARQUET:-1}
nprobes=${NPROBES:-target}
doc=${BENCH_DOC:-$root/docs/benchmarks.md}
log() { echo "http.sh: $*" >&2; }

[[ -x $vigilo ]] || bench_die "$vigilo not found; build it with: cmake --build ${build#"$root"/} --target vigilo"
command -v node >/dev/null || bench_die "node is not installed (scripts/setup)"
command -v jq >/dev/null || bench_die "jq is not installed (apt-get install jq)"
command -v curl >/dev/null || bench_die "curl is not installed"
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $nginx_bin ]] || bench_die "nginx is not installed (scripts/setup installs it)"
fm=/usr/share/datasets/fashion-mnist
modules=$root/tools/node_modules
if [[ $use_hyparquet == 1 && ! -d $modules/hyparquet ]]; then
  log "tools/node_modules/hyparquet is missing (cd tools && npm ci); hyparquet skipped"
  use_hyparquet=0
fi

# --- data, cached ---
data=$root/build/bench-data/http
www=$data/www
mkdir -p "$data" "$www"
wink_dir=${VIGILO_DATA_DIR:-$HOME/.cache/vigilo/data}
(( query >= 0 && query < 200 )) || bench_die "QUERY must be in 0..199"

# prepare_dataset NAME: the base, the 200 sweep queries, the measured query
# (JSON) and the publication, built when missing; sets ds_* for the rest.
prepare_dataset() {
  case $1 in
    fashion-mnist)
      ds_label="Fashion-MNIST (60,000 × 784, l2_squared, \`vigilo index build --seed 7\`)"
      ds_base=$data/fashion-mnist-train.bvecs ds_queries=$data/queries-200.bvecs
      ds_query_json=$data/query-$query.json ds_pub=$www/fashion-mnist-lvq8
      ds_build=(--metric l2_squared --encoding lvq8 --seed 7)
      ds_query_name="test image $query"
      [[ -f $fm/train-images-idx3-ubyte.gz ]] || bench_die "$fm is missing (apt-get install dataset-fashion-mnist)"
      if [[ ! -s $ds_base ]]; then
        log "Fashion-MNIST training images -> .bvecs"
        # IDX: a 16-byte header, then 784 bytes per image; .bvecs: int32le 784, then the bytes.
        gzip -dc "$fm/train-images-idx3-ubyte.gz" | perl -e 'binmode STDIN; binmode STDOUT; read STDIN, $h, 16;
          while (read(STDIN, $b, 784) == 784) { print pack("l<", 784), $b }' >"$data/train.tmp"
        mv "$data/train.tmp" "$ds_base"
      fi
      if [[ ! -s $ds_queries ]]; then
        gzip -dc "$fm/t10k-images-idx3-ubyte.gz" | perl -e 'binmode STDIN; binmode STDOUT;
          read STDIN, $h, 16; for (1..200) { read(STDIN, $b, 784); print pack("l<", 784), $b }
          1 while read(STDIN, $rest, 65536)  # drain, so gzip does not die of SIGPIPE under pipefail' >"$data/q.tmp"
        mv "$data/q.tmp" "$ds_queries"
      fi
      perl -e 'open(my $f, "<", $ARGV[0]) or die; binmode $f; seek $f, 788 * $ARGV[1], 0; read $f, $b, 788;
        print "[" . join(",", unpack("C*", substr($b, 4))) . "]\n"' "$ds_queries" "$query" >"$ds_query_json" ;;
    wink)
      ds_label="wink-GloVe-100 (340,479 × 100, cosine, \`vigilo index build --nlist 2048 --seed 7\`)"
      ds_base=$wink_dir/wink-base.fvecs ds_queries=$data/wink-queries-200.fvecs
      ds_query_json=$data/wink-query-$query.json ds_pub=$www/wink-lvq8
      ds_build=(--metric cosine --encoding lvq8 --nlist 2048 --seed 7)
      [[ -s $ds_base && -s $wink_dir/wink-queries.fvecs ]] ||
        bench_die "$ds_base is missing: run bench/data/prepare.sh (or DATASETS=fashion-mnist)"
      ds_query_name="held-out word $query ($(sed -n "$((query + 1))p" "$wink_dir/wink-queries-words.txt" 2>/dev/null || echo ?))"
      head -c $(( 404 * 200 )) "$wink_dir/wink-queries.fvecs" >"$ds_queries"
      perl -e 'open(my $f, "<", $ARGV[0]) or die; binmode $f; seek $f, 404 * $ARGV[1], 0; read $f, $b, 404;
        print "[" . join(",", map { sprintf("%.9g", $_) } unpack("f<*", substr($b, 4))) . "]\n"' \
        "$ds_queries" "$query" >"$ds_query_json" ;;
    *) bench_die "unknown data set $1 (fashion-mnist, wink)" ;;
  esac
  if [[ -s $ds_pub/manifest.json ]] && ! "$vigilo" index validate "$ds_pub/manifest.json" >/dev/null 2>&1; then
    log "$ds_pub no longer validates with this vigilo; rebuilding it"
    rm -rf "$ds_pub"
  fi
  if [[ ! -s $ds_pub/manifest.json ]]; then
    log "vigilo index build ${ds_build[*]} -> $ds_pub"
    rm -rf "$ds_pub.tmp"
    "$vigilo" index build --input "$ds_base" "${ds_build[@]}" --out "$ds_pub.tmp" -q >/dev/null
    mv "$ds_pub.tmp" "$ds_pub"
  fi
}
datasets=${DATASETS:-fashion-mnist wink}
for ds in $datasets; do prepare_dataset "$ds"; done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_http.XXXXXX")
nginx_pid=
proxy_pid=
declare -A proxy_pids=() proxy_ports=()  # by delay: the proxies of one measure_nprobe
cleanup() {
  [[ -n $proxy_pid ]] && kill "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null
  for p in "${proxy_pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  [[ -n $nginx_pid ]] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
uptime_start=$(uptime)
date_start=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# --- nginx on a free loopback port (the pattern of tests/http/run.sh) ---
mkdir -p "$tmp/nginx/tmp"
for _ in 1 2 3 4 5; do
  port=$(perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0")->sockport')
  cat >"$tmp/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events { worker_connections 256; }
http {
  log_format vigilo '\$request_method \$request_uri "\$http_range" \$status \$body_bytes_sent';
  access_log $tmp/nginx/access.log vigilo;
  client_body_temp_path $tmp/nginx/tmp/body;
  proxy_temp_path $tmp/nginx/tmp/proxy;
  fastcgi_temp_path $tmp/nginx/tmp/fastcgi;
  uwsgi_temp_path $tmp/nginx/tmp/uwsgi;
  scgi_temp_path $tmp/nginx/tmp/scgi;
  default_type application/octet-stream;
  types { }
  keepalive_requests 10000;
  server { listen 127.0.0.1:$port; root $www; location / { } }
}
CONF
  "$nginx_bin" -p "$tmp/nginx/" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log" >"$tmp/nginx/out" 2>&1 &
  nginx_pid=$!
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$nginx_pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -0 "$nginx_pid" 2>/dev/null && break
  wait "$nginx_pid" 2>/dev/null || true
  nginx_pid=
done
[[ -n $nginx_pid ]] || bench_die "nginx did not start: $(tail -c 400 "$tmp/nginx/error.log")"
access=$tmp/nginx/access.log

start_proxy() {  # start_proxy DELAY: sets proxy_pid, proxy_port
  node "$root/bench/delay_proxy.mjs" "$port" "$1" >"$tmp/proxy.port" 2>"$tmp/proxy.err" &
  proxy_pid=$!
  proxy_port=
  for _ in $(seq 200); do
    proxy_port=$(head -n1 "$tmp/proxy.port" 2>/dev/null || true)
    [[ -n $proxy_port ]] && break
    sleep 0.02
  done
  [[ -n $proxy_port ]] || bench_die "the delay proxy did not start: $(cat "$tmp/proxy.err")"
}
stop_proxy() { kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null || true; proxy_pid=; }
# start_proxies / stop_proxies: one proxy per delay, all up at once, so the
# readers' runs at the different delays can be interleaved.
start_proxies() {
  local delay
  for delay in $delays; do
    start_proxy "$delay"
    proxy_pids[$delay]=$proxy_pid proxy_ports[$delay]=$proxy_port
    proxy_pid=
  done
}
stop_proxies() {
  local p
  for p in "${proxy_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
  proxy_pids=() proxy_ports=()
}

# log_mark: the access log's line count; log_since MARK EXPECTED OUT: the lines
# after MARK (waiting up to 2 s for EXPECTED of them: nginx logs after answering).
log_mark() { wc -l <"$access"; }
log_since() {
  local waited=0
  while (( $(wc -l <"$access") - $1 < $2 && waited < 200 )); do sleep 0.01; waited=$((waited + 1)); done
  tail -n +$(( $1 + 1 )) "$access" >"$3"
}
log_requests() { wc -l <"$1"; }
log_bytes() { awk '{ s += $NF } END { print s + 0 }' "$1"; }
stat_of() { sed -n "s/^vigilo: stats: $2 .*$3=\([0-9]*\).*/\1/p" "$1"; }
now_ns() { date +%s%N; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# Results: JSON lines in $results (one file per data set), one per (delay, reader).

# run_vigilo MODE XDG OUT_PREFIX [FLAG…]: one query through the proxy at
# $proxy_port; MODE off = VIGILO_CACHE=off.
run_vigilo() {
  local mode=$1 xdg=$2 out=$3 mark t0 t1 cache_env=()
  [[ $mode == off ]] && cache_env=(VIGILO_CACHE=off)
  mark=$(log_mark)
  t0=$(now_ns)
  env "${cache_env[@]}" XDG_CACHE_HOME="$xdg" OPENBLAS_NUM_THREADS=1 "$vigilo" index query \
    "http://127.0.0.1:$proxy_port/$rel/manifest.json" --vector @"$ds_query_json" -k 10 --nprobe "$nprobe" \
    --stats --json "${@:4}" >"$out.hits" 2>"$out.err" ||
    { cat "$out.err" >&2; bench_die "vigilo index query over HTTP failed"; }
  t1=$(now_ns)
  echo $(( (t1 - t0) / 1000 )) >"$out.us"
  log_since "$mark" "$(stat_of "$out.err" total requests)" "$out.log"
}

# record DELAY READER PREFIX...: the vigilo row from the runs PREFIX.1 .. PREFIX.REPS.
record_vigilo() {
  local delay=$1 reader=$2 p=$3 first=$3.1 same=true r
  for r in $(seq 2 "$reps"); do
    [[ $(stat_of "$p.$r.err" total requests) == "$(stat_of "$first.err" total requests)" &&
       $(stat_of "$p.$r.err" total bytes) == "$(stat_of "$first.err" total bytes)" ]] || same=false
  done
  jq -nc --argjson delay "$delay" --arg reader "$reader" \
    --argjson requests "$(stat_of "$first.err" total requests)" --argjson round_trips "$(stat_of "$first.err" total round_trips)" \
    --argjson bytes "$(stat_of "$first.err" total bytes)" --argjson cache_hits "$(stat_of "$first.err" total cache_hits)" \
    --argjson q_requests "$(stat_of "$first.err" query requests)" --argjson q_round_trips "$(stat_of "$first.err" query round_trips)" \
    --argjson q_bytes "$(stat_of "$first.err" query bytes)" \
    --argjson log_requests "$(log_requests "$first.log")" --argjson log_bytes "$(log_bytes "$first.log")" \
    --argjson ms "$(cat "$p".*.us | median | awk '{ print $1 / 1000 }')" --argjson same "$same" \
    --argjson run_ms "$(for r in $(seq "$reps"); do cat "$p.$r.us"; done | jq -s -c 'map(. / 1000)')" \
    '{delay:$delay, reader:$reader, requests:$requests, round_trips:$round_trips, bytes:$bytes, cache_hits:$cache_hits,
      q_requests:$q_requests, q_round_trips:$q_round_trips, q_bytes:$q_bytes, log_requests:$log_requests,
      log_bytes:$log_bytes, ms:$ms, run_ms:$run_ms, same_every_run:$same}' >>"$results"
}

# measure_dataset NAME: the nprobe sweep, every reader at every delay, and
# the data set's part of the section (appended to $section).
measure_dataset() {
prepare_dataset "$1"
pub=$ds_pub
rel=${pub#"$www"/}
results=$tmp/results-$1.jsonl

# --- nprobe: the first reaching TARGET locally ---
log "$1: index eval (ground truth from the base, cached by artifact-uuid)"
"$vigilo" index eval "$pub/manifest.json" --base "$ds_base" --queries "$ds_queries" \
  --nprobe 1,2,4,8,16,32,64,128,256,512 --warmup 10 --json -q >"$tmp/eval.jsonl" 2>"$tmp/eval.err" ||
  { cat "$tmp/eval.err" >&2; bench_die "index eval failed"; }
target_nprobe=$(jq -s -r --argjson t "$target" '[.[] | select(.recall >= $t)] | sort_by(.nprobe) | .[0].nprobe // empty' "$tmp/eval.jsonl")
[[ -n $target_nprobe ]] || bench_die "no nprobe up to 512 reaches recall $target"
for nprobe in $(for n in $nprobes; do [[ $n == target ]] && echo "$target_nprobe" || echo "$n"; done | awk '!seen[$1]++'); do
  recall=$(jq -s -r --argjson n "$nprobe" '.[] | select(.nprobe == $n) | .recall' "$tmp/eval.jsonl")
  log "$1: nprobe $nprobe (recall@10 $recall over 200 queries)"
  : >"$results"
  measure_nprobe "$1"
done
}

# measure_nprobe NAME: every reader at every delay at $nprobe, and its part of
# the section.
measure_nprobe() {

# vigilo's runs, interleaved: each round runs every delay once (the load of
# a shared machine drifts over minutes).
start_proxies
for r in $(seq "$reps"); do
  for delay in $delays; do
    proxy_port=${proxy_ports[$delay]}
    rm -rf "$tmp/xdg" && mkdir -p "$tmp/xdg"
    run_vigilo off "$tmp/xdg" "$tmp/d$delay.off.$r"
    run_vigilo off "$tmp/xdg" "$tmp/d$delay.exact.$r" --exact-ranges  # no gap merged
    run_vigilo on "$tmp/xdg" "$tmp/d$delay.cold.$r"    # empty cache directory: fills it
    run_vigilo on "$tmp/xdg" "$tmp/d$delay.warm.$r"    # a second process with that cache directory
  done
done
# The objects and ranges one cold query needs: its exact plan (no gap merged:
# --exact-ranges), which must answer with the same bytes. Its postings row
# groups are what hyparquet reads and what the minimal bytes count.
first=$tmp/d${delays%% *}
cmp -s "$first.exact.1.hits" "$first.off.1.hits" || bench_die "--exact-ranges answered differently"
touched=$tmp/touched.log
cp "$first.exact.1.log" "$touched"
# "PATH START END" for every ranged GET of a postings file.
awk -v pre="/$rel/" '$1 == "GET" && index($2, pre) == 1 && $3 ~ /bytes=/ {
    p = substr($2, length(pre) + 1); r = $3; gsub(/"|bytes=/, "", r); split(r, ab, "-"); print p, ab[1], ab[2] }' \
  "$touched" | perl -pe 's/%([0-9A-Fa-f]{2})/chr hex $1/ge' | grep '^ivf_postings/' >"$tmp/postings-ranges.txt" || true

for delay in $delays; do
  log "delay $delay ms"
  proxy_port=${proxy_ports[$delay]}
  record_vigilo "$delay" "vigilo, cold (VIGILO_CACHE=off)" "$tmp/d$delay.off"
  record_vigilo "$delay" "vigilo, cold, exact runs (--exact-ranges, VIGILO_CACHE=off)" "$tmp/d$delay.exact"
  record_vigilo "$delay" "vigilo, cold (empty cache directory)" "$tmp/d$delay.cold"
  record_vigilo "$delay" "vigilo, warm (second process, same cache directory)" "$tmp/d$delay.warm"

  # hyparquet: the same postings row groups and columns.
  if [[ $use_hyparquet == 1 && -s $tmp/postings-ranges.txt ]]; then
    : >"$tmp/hyp.jsonl"
    for r in $(seq "$reps"); do
      mark=$(log_mark)
      node "$root/bench/http_hyparquet.mjs" "$modules" "$pub" "http://127.0.0.1:$proxy_port/$rel/" \
        "$tmp/postings-ranges.txt" >"$tmp/hyp.out" 2>"$tmp/hyp.err" ||
        { log "hyparquet failed: $(tail -c 600 "$tmp/hyp.err")"; use_hyparquet=0; break; }
      cat "$tmp/hyp.out" >>"$tmp/hyp.jsonl"
      log_since "$mark" "$(jq .requests "$tmp/hyp.out")" "$tmp/hyp.$r.log"
    done
    if [[ $use_hyparquet == 1 ]]; then
      jq -s -c --argjson delay "$delay" --argjson log_requests "$(log_requests "$tmp/hyp.1.log")" \
        --argjson log_bytes "$(log_bytes "$tmp/hyp.1.log")" '
        (map(.ms) | sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end) as $ms |
        .[0] | {delay:$delay, reader:"hyparquet, postings footers + row groups only", requests, round_trips, bytes,
          log_requests:$log_requests, log_bytes:$log_bytes, ms:$ms, files, row_groups, runs, minimal_bytes, rows}' \
        "$tmp/hyp.jsonl" >>"$results"
    fi
  fi

  # Naive: the manifest, then every other object the query touched, whole (in parallel).
  mapfile -t objects < <(awk -v pre="/$rel/" '$1 == "GET" && index($2, pre) == 1 { print substr($2, length(pre) + 1) }' "$touched" |
    grep -vx 'manifest.json' | sort -u)
  base_url="http://127.0.0.1:$proxy_port/$rel"
  args=()
  for o in "${objects[@]}"; do args+=(-o /dev/null "$base_url/$o"); done
  : >"$tmp/whole.us"
  for r in $(seq "$reps"); do
    mark=$(log_mark)
    t0=$(now_ns)
    curl -sf -o /dev/null "$base_url/manifest.json"
    curl -sf --parallel --parallel-max 64 "${args[@]}" 2>/dev/null || bench_die "curl of the touched objects failed"
    t1=$(now_ns)
    echo $(( (t1 - t0) / 1000 )) >>"$tmp/whole.us"
    log_since "$mark" $(( 1 + ${#objects[@]} )) "$tmp/whole.$r.log"
  done
  whole_bytes=$(( $(stat -c %s "$pub/manifest.json") + $(cd "$pub" && printf '%s\n' "${objects[@]}" |
    perl -pe 's/%([0-9A-Fa-f]{2})/chr hex $1/ge' | xargs -d '\n' cat | wc -c) ))
  jq -nc --argjson delay "$delay" --argjson requests $(( 1 + ${#objects[@]} )) --argjson bytes "$whole_bytes" \
    --argjson log_requests "$(log_requests "$tmp/whole.1.log")" --argjson log_bytes "$(log_bytes "$tmp/whole.1.log")" \
    --argjson ms "$(median <"$tmp/whole.us" | awk '{ print $1 / 1000 }')" \
    '{delay:$delay, reader:"whole objects (curl): the manifest, then every object the query touched", requests:$requests,
      round_trips:2, bytes:$bytes, log_requests:$log_requests, log_bytes:$log_bytes, ms:$ms}' >>"$results"
done
stop_proxies
write_part "$1"
}

# --- the section ---
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
section=$tmp/section.md
write_part() {
postings_files=$(cut -d' ' -f1 "$tmp/postings-ranges.txt" | sort -u | wc -l)
postings_ranges=$(wc -l <"$tmp/postings-ranges.txt")
nlist=$(jq -r '.nlist // .ivf.nlist // empty' "$pub/manifest.json" 2>/dev/null || true)
pub_bytes=$(find "$pub" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
pub_files=$(find "$pub" -type f | wc -l)
minimal=$(jq -s -r 'map(select(.minimal_bytes)) | .[0].minimal_bytes // empty' "$results")
# The issue's "minimal bytes": manifest + centroids (the non-postings objects
# touched, whole) + needed footers + needed column chunks (hyparquet's plan).
minimal_total=""
if [[ -n $minimal ]]; then
  others=$(awk -v pre="/$rel/" '$1 == "GET" && index($2, pre) == 1 { print substr($2, length(pre) + 1) }' "$touched" |
    grep -v '^ivf_postings/' | sort -u | (cd "$pub" && xargs -d '\n' cat) | wc -c)
  minimal_total=$(( others + minimal ))
  cold_bytes=$(jq -s -r 'map(select(.reader | startswith("vigilo, cold (VIGILO"))) | .[0].bytes' "$results")
  ratio=$(awk -v a="$cold_bytes" -v b="$minimal_total" 'BEGIN { printf "%.3f", a / b }')
  bound=$(awk -v m="$minimal_total" -v f="$(cut -d' ' -f1 "$tmp/postings-ranges.txt" | sort -u | wc -l)" \
    'BEGIN { printf "%d", 1.25 * m + 65536 * f }')
  verdict=$([[ $cold_bytes -le $bound ]] && echo within || echo OVER)
fi
hyp_shape=$(jq -s -r 'map(select(.row_groups)) | .[0] | if . then "\(.files) files, \(.row_groups) row groups in \(.runs) runs, \(.rows) rows" else "" end' "$results")
{
  cat <<EOF
### $ds_label, nprobe $nprobe

The query: $ds_query_name, \`vigilo index query URL --vector @FILE -k 10 --nprobe $nprobe --stats --json\`;
$(if [[ $nprobe == "$target_nprobe" ]]; then echo "nprobe $nprobe is the first of 1, 2, 4, … whose recall@10 over the first 200 queries reaches $target locally"
  else echo "nprobe $nprobe (the first of 1, 2, 4, … reaching recall@10 $target is $target_nprobe); its recall@10 over the first 200 queries"; fi)
($recall; \`vigilo index eval --base\`, exact ground truth). The publication: ${nlist:+nlist $nlist, }$pub_files objects,
$(numfmt --grouping "$pub_bytes") bytes. The query touched $postings_files postings files; its exact plan reads them with $postings_ranges ranged GETs.

EOF
  echo "| delay | reader | requests | dependent round trips | bytes | nginx saw (requests / bytes) | wall time, ms | delays paid |"
  echo "|---:|---|---:|---:|---:|---:|---:|---:|"
  # delays paid: (wall time at D − wall time at D = 0, same reader) / D: how many
  # sequential delays the reader actually waited for. vigilo's runs are
  # interleaved, so its differences are taken round by round (the runs of one
  # round share the machine's load) and their median is shown.
  jq -r -s 'def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    (map(select(.delay == 0)) | map({key:.reader, value:.}) | from_entries) as $zero | .[] |
    .delay as $d | (if .delay > 0 and $zero[.reader] then
       (if .run_ms and $zero[.reader].run_ms
        then [.run_ms, $zero[.reader].run_ms] | transpose | map((.[0] - .[1]) / $d) | median
        else (.ms - $zero[.reader].ms) / $d end) | . * 10 | round / 10
     else "–" end) as $paid |
    "| \(.delay) ms | \(.reader) | \(.requests) | \(.round_trips) | \(.bytes) | \(.log_requests) / \(.log_bytes) | \(.ms * 10 | round / 10) | \($paid) |"' "$results"
  echo
  cat <<EOF
- vigilo's query phase alone (cold): $(jq -s -r 'map(select(.reader | startswith("vigilo, cold (VIGILO"))) | .[0] | "\(.q_requests) requests, \(.q_round_trips) round trips, \(.q_bytes) bytes"' "$results").
- hyparquet read ${hyp_shape:-nothing (not run)}.
- Minimal bytes (manifest + centroids + needed footers + needed column chunks, from the local files):
  ${minimal_total:-not computed (hyparquet skipped)}${minimal_total:+; vigilo cold fetched $cold_bytes, $ratio × minimal: $verdict the goal of 1.25 × minimal + 64 KiB per touched postings file ($bound)}.
- Runs that differed from the first (\`same_every_run\` false): $(jq -s -r 'map(select(.same_every_run == false)) | if length == 0 then "none" else "\(length) rows" end' "$results").

EOF
} >>"$section"
cp "$results" "$data/last-run-$1-nprobe$nprobe.jsonl"
cp "$touched" "$data/last-run-$1-nprobe$nprobe-cold-access.log"
}

: >"$section"
{
  cat <<EOF
## HTTP reading (one query over nginx, with added latency)

\`bench/http.sh\`: IVF-LVQ8 publications served by a private nginx on loopback, read through
\`bench/delay_proxy.mjs\`, which holds **every request** D ms before forwarding it (Range header, status and
body unchanged): D approximates one network round trip per request, so dependent requests add D each and
parallel ones overlap. vigilo reads with 64 request permits, each round merged by the range planner's cost model
(docs/format/http-reading.md, "Coalescing").

- **delays paid** = (wall time at D − wall time at D = 0) / D for the same reader: the number of delays the
  reader waited for one after another. vigilo's runs are interleaved (each round runs every delay once), and
  its delays paid are the median over rounds of that round's difference; the peers' are the medians' difference. A reader whose requests in each round trip run in parallel pays about
  its dependent round trips; one that sends them one at a time pays about its requests.
- **requests, round trips, bytes** for vigilo: its \`--stats\` \`total\` line (manifest + query phases).
  "nginx saw" is the access log's count and \`\$body_bytes_sent\` sum for the same run: the independent witness.
- **cold (VIGILO_CACHE=off)**: no cache directory at all. **cold (empty cache directory)**: a fresh
  \`XDG_CACHE_HOME\`, which this run fills. **warm**: a second process with that cache directory (what it
  still fetches is what the cache does not hold).
- **exact runs**: \`--exact-ranges\`, each run of adjacent selected row groups its own request, no gap merged:
  the plan before the cost model, and the row groups the query needs (what hyparquet reads and the minimal
  bytes count). Its answer must be byte for byte the default plan's.
- **hyparquet** $(jq -r .version "$modules/hyparquet/package.json" 2>/dev/null || echo "?"): reads only the postings part: for each file vigilo touched (all at once), its footer
  (\`parquetMetadataAsync\`, default 512 KiB tail) then one \`parquetRead\` (rowStart/rowEnd, the same columns)
  per run of adjacent row groups whose chunks vigilo's exact plan fetched. File sizes are given (as vigilo has them from
  the manifest), so no HEAD. It does no manifest or centroid reads and no scoring, so its rows are a lower
  bound for a reader built on it. Its wall time is measured inside node (no start-up); vigilo's and curl's
  are whole processes (vigilo's start-up included).
- **whole objects**: the manifest, then every other object the query touched (centroids, postings files) with
  \`curl --parallel\`: the naive baseline without ranges.
- Wall time: the median of $reps runs; counts are the first run's. Loopback nginx and node's proxy add their
  own (sub-millisecond) cost per request at D = 0.

EOF
} >>"$section"
for ds in $datasets; do measure_dataset "$ds"; done
uptime_end=$(uptime)
cat >>"$section" <<EOF
- CPU: $(bench_cpu) ($(nproc) CPUs, shared with other jobs: wall times at D = 0 are provisional)
- Load: at the start \`$(echo "$uptime_start" | sed 's/^ *//')\`; at the end \`$(echo "$uptime_end" | sed 's/^ *//')\`
- Date: $date_start, commit $(commit); nginx $("$nginx_bin" -v 2>&1 | sed 's/.*nginx\///'), node $(node --version), curl $(curl --version | head -n1 | cut -d' ' -f2)
- Regenerate: \`bench/data/prepare.sh && bench/http.sh\` (this run used \`${vigilo#"$root"/}\`; DATASETS="$datasets", DELAYS="$delays", NPROBES="$nprobes", REPS=$reps, QUERY=$query${VIGILO_KERNEL:+, VIGILO_KERNEL=$VIGILO_KERNEL})
EOF
bench_replace_section "$doc" http "$section"
cat "$section"

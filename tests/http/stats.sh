# Sourced by tests/http/run.sh (uses its $vigilo, $tmp, $url, $local_manifest,
# same, pass, fail): `index query --stats` counts what nginx's access log
# witnesses, and counts the same locally.

# stats_of FILE PHASE FIELD: the number after FIELD= on FILE's "stats: PHASE" line.
stats_of() { sed -n "s/^vigilo: stats: $2 .*$3=\([0-9]*\).*/\1/p" "$1"; }

same "query --stats (the same counts locally)" index query MANIFEST --queries "$tmp/q.jsonl" -k 5 --nprobe 4 --stats
same "query --stats --columns" index query MANIFEST --queries "$tmp/q.jsonl" -k 3 --columns vector --stats

# stats_match NAME ARGS...: the run's `total` line equals the requests and
# body bytes nginx logged for it; its query phase has 3 dependent round trips
# (centroids, footers, row groups) after the manifest's.
stats_match() {
  local name=$1
  shift
  local before
  before=$(wc -l <"$tmp/nginx/access.log")
  "$vigilo" "$@" >"$tmp/stats.out" 2>"$tmp/stats.err" || { fail "$name: $(head -c 300 "$tmp/stats.err")"; return; }
  # nginx logs a request after answering it: wait (up to 2 s) for the lines
  # of every request --stats counted.
  local expected waited=0
  expected=$(stats_of "$tmp/stats.err" total requests)
  expected=${expected:-0}
  while (($(wc -l <"$tmp/nginx/access.log") - before < expected && waited < 200)); do
    sleep 0.01
    waited=$((waited + 1))
  done
  tail -n +$((before + 1)) "$tmp/nginx/access.log" >"$tmp/stats.log"
  local logged_requests logged_bytes
  logged_requests=$(wc -l <"$tmp/stats.log")
  logged_bytes=$(awk '{ s += $NF } END { print s + 0 }' "$tmp/stats.log")
  local requests bytes round_trips query_round_trips cache_hits
  requests=$(stats_of "$tmp/stats.err" total requests)
  bytes=$(stats_of "$tmp/stats.err" total bytes)
  round_trips=$(stats_of "$tmp/stats.err" total round_trips)
  query_round_trips=$(stats_of "$tmp/stats.err" query round_trips)
  cache_hits=$(stats_of "$tmp/stats.err" total cache_hits)
  if [[ $requests == "$logged_requests" && $bytes == "$logged_bytes" && $query_round_trips == 3 &&
        $cache_hits == 0 && $(stats_of "$tmp/stats.err" manifest requests) == 1 ]]; then
    pass "$name: --stats says $requests requests, $bytes bytes, $round_trips round trips: nginx logged the same"
  else
    fail "$name: --stats: $(tr '\n' ';' <"$tmp/stats.err"); nginx: $logged_requests requests, $logged_bytes bytes"
  fi
}
stats_match "query --stats over HTTP" index query "$url" --queries "$tmp/q.jsonl" -k 5 --nprobe 4 --stats
stats_match "query --stats --columns over HTTP" index query "$url" --queries "$tmp/q.jsonl" -k 3 --columns vector --stats

# A round wider than the 64 requests a reader sends at once (nlist 600 over
# the same vectors, one query at nprobe 300: 104 requests as exact runs) is merged
# across gaps by the range planner's cost model (docs/format/http-reading.md,
# "Coalescing"): the answer is the exact runs' (--exact-ranges) byte for
# byte, with fewer requests, and --stats is still what nginx logged.
if "$vigilo" index build --input "$tmp/in.fvecs" --metric l2_squared --encoding lvq8 --nlist 600 \
  --out "$tmp/www/wide" -q >"$tmp/wide-build.out" 2>&1; then
  wide=(index query "${url%/pub/manifest.json}/wide/" --vector "$(head -n1 "$tmp/q.jsonl")" -k 5 --nprobe 300 --stats)
  stats_match "a merged round over HTTP" "${wide[@]}"
  merged_requests=$(stats_of "$tmp/stats.err" query requests)
  cp "$tmp/stats.out" "$tmp/wide-merged.out"
  stats_match "the same query's exact runs over HTTP" "${wide[@]}" --exact-ranges
  exact_requests=$(stats_of "$tmp/stats.err" query requests)
  if cmp -s "$tmp/wide-merged.out" "$tmp/stats.out" && ((merged_requests < exact_requests)); then
    pass "a merged round: $merged_requests requests against $exact_requests exact, the same answer"
  else
    fail "a merged round: $merged_requests requests against $exact_requests exact, or another answer"
  fi
else
  fail "index build --nlist 600: $(tail -c 300 "$tmp/wide-build.out")"
fi

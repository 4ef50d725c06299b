# Sourced by tests/http/run.sh (uses its $vigilo, $tmp, $url, $local_manifest,
# pass, fail, and stats.sh's stats_of): the cache directory
# (docs/format/http-reading.md, "The cache directory"). run.sh turns the
# cache off for every other check; here it is on, in a private
# XDG_CACHE_HOME, and nginx's access log witnesses what a warm query fetches.

cache_home=$tmp/xdg-cache
log=$tmp/nginx/access.log

# cached_query NAME ARGS...: `vigilo index query $url ARGS --stats` with the
# cache on; stdout in $tmp/NAME.out, stderr in $tmp/NAME.err, the access-log
# lines of its requests in $tmp/NAME.log.
cached_query() {
  local name=$1
  shift
  local before waited=0 expected
  before=$(wc -l <"$log")
  VIGILO_CACHE=${cache_switch:-on} XDG_CACHE_HOME=$cache_home "$vigilo" index query "$url" "$@" --stats \
    >"$tmp/$name.out" 2>"$tmp/$name.err"
  local rc=$?
  # nginx logs a request after answering it: wait (up to 2 s) for every one --stats counted.
  expected=$(stats_of "$tmp/$name.err" total requests)
  while (($(wc -l <"$log") - before < ${expected:-0} && waited < 200)); do
    sleep 0.01
    waited=$((waited + 1))
  done
  tail -n +$((before + 1)) "$log" >"$tmp/$name.log"
  return $rc
}

# One line of the query's --stats: "PHASE requests=… round_trips=… bytes=… cache_hits=…".
stats_line() { sed -n "s/^vigilo: stats: \($2 .*\)/\1/p" "$tmp/$1.err"; }

"$vigilo" index query "$local_manifest" --queries "$tmp/q.jsonl" -k 5 --nprobe 4 >"$tmp/cache-local.out" 2>&1
"$vigilo" index query "$local_manifest" --queries "$tmp/q.jsonl" -k 5 --nprobe 8 >"$tmp/cache-local8.out" 2>&1
"$vigilo" index query "$local_manifest" --queries "$tmp/q.jsonl" -k 5 --nprobe 12 >"$tmp/cache-local12.out" 2>&1

# Cold: everything fetched, nothing answered by the (empty) directory.
if cached_query cold --queries "$tmp/q.jsonl" -k 5 --nprobe 4; then
  cold_requests=$(stats_of "$tmp/cold.err" total requests)
  if cmp -s <(grep -v '^vigilo: stats:' "$tmp/cold.out") "$tmp/cache-local.out" &&
     [[ $(stats_of "$tmp/cold.err" total cache_hits) == 0 && $(wc -l <"$tmp/cold.log") == "$cold_requests" ]] &&
     [[ $(stats_of "$tmp/cold.err" query round_trips) == 3 ]]; then
    pass "cache: a cold query fetches all $cold_requests objects and answers as locally"
  else
    fail "cache: cold query: $(tr '\n' ';' <"$tmp/cold.err"); nginx: $(wc -l <"$tmp/cold.log") requests"
  fi
else
  cold_requests=0
  fail "cache: cold query failed: $(head -c 300 "$tmp/cold.err")"
fi
entries=$(find "$cache_home/vigilo/ranges" -type f -regextype posix-extended -regex '.*/[0-9a-f]{64}' 2>/dev/null | wc -l)
temps=$(find "$cache_home/vigilo/ranges" -name '.tmp-*' 2>/dev/null | wc -l)
# Every fetch but the manifest's is an entry.
[[ $entries == $((cold_requests - 1)) && $temps == 0 ]] &&
  pass "cache: $entries entries in \$XDG_CACHE_HOME/vigilo/ranges, no temporary file left" ||
  fail "cache: $entries entries (wanted $((cold_requests - 1))), $temps temporary files"

# The same query again: only the manifest crosses the network (its
# artifact-uuid keys the cache); one round trip in all.
if cached_query same --queries "$tmp/q.jsonl" -k 5 --nprobe 4 &&
   cmp -s "$tmp/same.out" "$tmp/cold.out" &&
   [[ $(cat "$tmp/same.log") == 'GET /pub/manifest.json "-" 200 '* && $(wc -l <"$tmp/same.log") == 1 ]] &&
   [[ $(stats_line same query) == "query requests=0 round_trips=0 bytes=0 cache_hits=$((cold_requests - 1))" ]] &&
   [[ $(stats_of "$tmp/same.err" total round_trips) == 1 ]]; then
  pass "cache: the repeated query fetches only the manifest, answers identically"
else
  fail "cache: repeated query: $(tr '\n' ';' <"$tmp/same.err"); nginx: $(tr '\n' ';' <"$tmp/same.log")"
fi

# More lists probed: the manifest, then only postings objects (footers of
# files not read before, new row groups); never the centroids again.
if cached_query other --queries "$tmp/q.jsonl" -k 5 --nprobe 8; then
  other_requests=$(stats_of "$tmp/other.err" total requests)
  if cmp -s "$tmp/other.out" "$tmp/cache-local8.out" &&
     [[ $(head -1 "$tmp/other.log") == 'GET /pub/manifest.json "-" 200 '* ]] &&
     [[ $(tail -n +2 "$tmp/other.log" | grep -c -v '^GET /pub/ivf_postings/') == 0 ]] &&
     [[ $(wc -l <"$tmp/other.log") == "$other_requests" && $other_requests -gt 1 ]] &&
     [[ $(stats_of "$tmp/other.err" total cache_hits) -gt 0 ]]; then
    pass "cache: more lists probed: the manifest and $((other_requests - 1)) postings requests, no centroids"
  else
    fail "cache: nprobe 8: $(tr '\n' ';' <"$tmp/other.err"); nginx: $(tr '\n' ';' <"$tmp/other.log" | head -c 600)"
  fi
else
  fail "cache: nprobe 8 failed: $(head -c 300 "$tmp/other.err")"
fi

# Warm (every postings footer was read by now, nprobe 8 touching all 4
# files): the manifest, then the new row groups only — 2 round trips.
if cached_query warm --queries "$tmp/q.jsonl" -k 5 --nprobe 12; then
  warm_requests=$(stats_of "$tmp/warm.err" total requests)
  if cmp -s "$tmp/warm.out" "$tmp/cache-local12.out" &&
     [[ $(head -1 "$tmp/warm.log") == 'GET /pub/manifest.json "-" 200 '* ]] &&
     [[ $(tail -n +2 "$tmp/warm.log" | grep -c -v '^GET /pub/ivf_postings/[^ ]* "bytes=') == 0 ]] &&
     [[ $(wc -l <"$tmp/warm.log") == "$warm_requests" && $warm_requests -gt 1 ]] &&
     [[ $(stats_of "$tmp/warm.err" query round_trips) == 1 && $(stats_of "$tmp/warm.err" total round_trips) == 2 ]]; then
    pass "cache: a warm query: the manifest, then $((warm_requests - 1)) postings ranges; 2 round trips"
  else
    fail "cache: warm query: $(tr '\n' ';' <"$tmp/warm.err"); nginx: $(tr '\n' ';' <"$tmp/warm.log" | head -c 600)"
  fi
else
  fail "cache: warm query failed: $(head -c 300 "$tmp/warm.err")"
fi

# --no-cache: a cold query again, whatever the directory holds.
if cached_query nocache --queries "$tmp/q.jsonl" -k 5 --nprobe 4 --no-cache &&
   cmp -s "$tmp/nocache.out" "$tmp/cold.out" && [[ $(wc -l <"$tmp/nocache.log") == "$cold_requests" ]] &&
   [[ $(stats_line nocache total) == "$(stats_line cold total)" ]]; then
  pass "cache: --no-cache fetches everything again"
else
  fail "cache: --no-cache: $(tr '\n' ';' <"$tmp/nocache.err"); nginx: $(wc -l <"$tmp/nocache.log") requests"
fi

cache_switch=off
if cached_query off --queries "$tmp/q.jsonl" -k 5 --nprobe 4 &&
   cmp -s "$tmp/off.out" "$tmp/cold.out" && [[ $(wc -l <"$tmp/off.log") == "$cold_requests" ]] &&
   [[ $(stats_line off total) == "$(stats_line cold total)" ]]; then
  pass "cache: VIGILO_CACHE=off fetches everything again"
else
  fail "cache: VIGILO_CACHE=off: $(tr '\n' ';' <"$tmp/off.err"); nginx: $(wc -l <"$tmp/off.log") requests"
fi
cache_switch=on

# A bound smaller than any entry: every entry is evicted, answers unchanged.
cache_home=$tmp/xdg-small
if VIGILO_CACHE_MAX_BYTES=100 cached_query small --queries "$tmp/q.jsonl" -k 5 --nprobe 4 &&
   VIGILO_CACHE_MAX_BYTES=100 cached_query small2 --queries "$tmp/q.jsonl" -k 5 --nprobe 4 &&
   cmp -s "$tmp/small2.out" "$tmp/cold.out" && [[ $(wc -l <"$tmp/small2.log") == "$cold_requests" ]] &&
   [[ $(find "$cache_home/vigilo/ranges" -type f | wc -l) == 0 ]]; then
  pass "cache: VIGILO_CACHE_MAX_BYTES=100 keeps nothing and changes no answer"
else
  fail "cache: small bound: $(tr '\n' ';' <"$tmp/small2.err"); $(find "$cache_home" -type f | wc -l) files"
fi
VIGILO_CACHE_MAX_BYTES=lots cached_query badbound --queries "$tmp/q.jsonl" -k 5
rc=$?
if [[ $rc -ne 0 && $(cat "$tmp/badbound.err") == "vigilo: invalid_argument: VIGILO_CACHE_MAX_BYTES: 'lots' is not a positive number of bytes" ]]; then
  pass "cache: an unreadable VIGILO_CACHE_MAX_BYTES is invalid_argument"
else
  fail "cache: VIGILO_CACHE_MAX_BYTES=lots: exit $rc: $(head -c 300 "$tmp/badbound.err")"
fi
cache_home=$tmp/xdg-cache

#!/usr/bin/env bash
# The WordNet text publication (the demo's, built by CTest wordnet_text_quality)
# published to a private Ceph RGW and queried from the bucket (issue 36):
#   - `index publish` cut after exactly half its objects (tests/s3/fault_proxy.mjs)
#     leaves no manifest; the rerun finds those present and copies the rest;
#   - text queries and a vector query from the bucket print exactly what the
#     local directory prints, and cold they take at most 6 (text) and 4
#     (vector) dependent round trips;
#   - `index verify` of the bucket copy checks every byte.
#
#   tests/s3/wordnet.sh VIGILO_BIN PUBLICATION_DIR
set -uo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 VIGILO_BIN PUBLICATION_DIR" >&2; exit 2; }
vigilo=$1
pub=$2
here=$(cd "$(dirname "$0")" && pwd)
SUITE="s3 wordnet"
# shellcheck source=tests/s3/lib.sh
. "$here/lib.sh"
[[ -f $pub/manifest.json ]] || { fail "no publication at $pub (CTest wordnet_text_quality builds it)"; finish; }
s3_rgw_up

# ---- publish, cut after half the objects, then resumed ----
objects=$(jq '[.. | objects | select(has("path") and has("sha256"))] | length' "$pub/manifest.json")
half=$((objects / 2))
start_proxy "puts=$half"
VIGILO_STORES=$tmp/stores.cut.json "$vigilo" index publish "$pub" cut:wordnet --json >"$tmp/cut.out" 2>"$tmp/cut.err"; rc=$?
stop_proxy
"$vigilo" index inspect rgw:wordnet/manifest.json >"$tmp/inspect.out" 2>&1
if [[ $rc -ne 0 ]] && grep -q not_found "$tmp/inspect.out"; then
  pass "publish cut after $half of $objects objects: exit $rc, no manifest in the bucket"
else
  fail "cut publish: exit $rc: $(head -c 300 "$tmp/cut.err"); inspect: $(head -c 200 "$tmp/inspect.out")"
fi
"$vigilo" index publish "$pub" rgw:wordnet --json >"$tmp/publish.out" 2>"$tmp/publish.err"
if jq -e --argjson n "$half" '.outcome == "published" and .already_present == $n and .copied == .objects - $n' \
     "$tmp/publish.out" >/dev/null; then
  pass "the rerun found the $half objects present and copied the other $(jq .copied "$tmp/publish.out") ($(jq .bytes_copied "$tmp/publish.out") bytes)"
else
  fail "publish rerun: $(cat "$tmp/publish.out" "$tmp/publish.err" | head -c 600)"
fi

# ---- queries from the bucket equal the local ones ----
remote=rgw:wordnet/manifest.json
trips_of() {  # trips_of PHASE: that phase's round trips in $tmp/s3.err (0 if absent)
  local n
  n=$(grep "stats: $1 " "$tmp/s3.err" | grep -oE "round_trips=[0-9]+" | cut -d= -f2)
  echo "${n:-0}"
}
same() {  # same NAME MAX_ROUND_TRIPS ARGS...: the query locally and from the bucket (cold, --stats)
  local name=$1 max=$2; shift 2
  "$vigilo" index query "$pub" "$@" --json >"$tmp/local.out" 2>&1; local rl=$?
  "$vigilo" index query "$remote" "$@" --json --stats >"$tmp/s3.out" 2>"$tmp/s3.err"; local rs=$?
  # The budget is the search's (manifest, embedding, query); payload columns add their own.
  local trips payload
  trips=$(($(trips_of manifest) + $(trips_of embed) + $(trips_of query)))
  payload=$(trips_of payload)
  if [[ $rl -eq 0 && $rs -eq 0 && -s $tmp/local.out ]] && cmp -s "$tmp/local.out" "$tmp/s3.out" && [[ $trips -gt 0 && $trips -le $max ]]; then
    pass "$name: the same hits from the bucket, cold in $trips round trips (at most $max) + $payload for the payload columns"
  else
    fail "$name: exit $rl locally, $rs from S3, $trips round trips; $(diff "$tmp/local.out" "$tmp/s3.out" | head -c 300) $(head -c 300 "$tmp/s3.err")"
  fi
}
same "text \"a furry feline pet\"" 6 --text "a furry feline pet" -k 5 --nprobe 64 --columns lemmas,gloss
same "text \"water falling from clouds\"" 6 --text "water falling from clouds" -k 10 --nprobe 32 --columns lemmas
"$vigilo" embed text "the capital city of France" --model "$pub" >"$tmp/vector.json" 2>"$tmp/embed.err" ||
  fail "embed text: $(head -c 300 "$tmp/embed.err")"
same "vector (the embedding of \"the capital city of France\")" 4 --vector "@$tmp/vector.json" -k 5 --nprobe 64 --columns lemmas
if "$vigilo" index verify "$remote" >"$tmp/verify.out" 2>&1; then
  pass "index verify of the bucket copy: every byte"
else
  fail "index verify: $(tail -c 300 "$tmp/verify.out")"
fi
finish

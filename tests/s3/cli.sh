#!/usr/bin/env bash
# vigilo end to end against an s3:// alias on a private Ceph RGW
# (scripts/ceph-rgw): a dataset ingests into the bucket, verifies, exports
# byte for byte and is planned; a publication builds into the bucket and
# `index query|inspect|verify ALIAS:KEY/manifest.json` answer as for the same
# publication built into a local directory; store cleanup drains; and no
# output or error names the endpoint, the bucket's URL or a credential.
#
#   tests/s3/cli.sh VIGILO_BIN
#
# Prints PASS/FAIL lines, then `s3 cli: N checks passed` (exit 0) or
# `s3 cli: N checks passed, M failed` (exit 1).
set -uo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 VIGILO_BIN" >&2; exit 2; }
vigilo=$1
[[ $vigilo == /* ]] || vigilo=$PWD/$vigilo
here=$(cd "$(dirname "$0")" && pwd)
SUITE="s3 cli"
# shellcheck source=tests/s3/lib.sh
. "$here/lib.sh"
s3_rgw_up

umask 077
cat >"$tmp/credentials" <<CREDS
[vigilo]
aws_access_key_id = $access_key
aws_secret_access_key = $secret_key
CREDS
cat >"$tmp/stores.json" <<JSON
{"version":1,
 "stores":{
   "lake":{"url":"s3://$bucket/e2e","writable":true,
           "guarantees":{"conditional_create":true,"read_after_create":true},
           "backend":{"endpoint":"$endpoint","region":"$region","addressing":"path",
                      "credentials":{"source":"file","path":"$tmp/credentials","profile":"vigilo"}}}}}
JSON
export VIGILO_STORES=$tmp/stores.json  # its own alias "lake" (a prefix, file credentials)

# Nothing vigilo prints may hold these.
secrets=("$endpoint" "${endpoint#http://}" "s3://$bucket" "$access_key" "$secret_key" "$tmp/credentials")
clean() {  # clean NAME FILE...: no secret in the files
  local s f
  for f in "${@:2}"; do
    for s in "${secrets[@]}"; do
      if grep -qF -- "$s" "$f"; then fail "$1: output names a secret ($s)"; return; fi
    done
  done
  pass "$1: no endpoint, bucket URL or credential in the output"
}

# ---- case storage ----
dataset=$root/examples/demo/dataset.json
check "dataset ingest --store lake" "$vigilo" dataset ingest "$dataset" --store lake --name geo --quiet
cp "$tmp/check.out" "$tmp/ingest.out"
check "dataset ingest replay is unchanged" "$vigilo" dataset ingest "$dataset" --store lake --name geo --quiet
check "dataset verify" "$vigilo" dataset verify geo --store lake
check "dataset export" "$vigilo" dataset export geo --store lake --out "$tmp/export.json"
"$vigilo" json canon "$dataset" >"$tmp/canon.json"
if cmp -s "$tmp/export.json" "$tmp/canon.json"; then pass "export is the canonical input byte for byte"; else fail "export differs from the canonical input"; fi
check "dataset cases" "$vigilo" dataset cases geo --store lake --from 1 --to 3
check "run plan --store lake" "$vigilo" run plan --dataset geo --profile "$root/examples/profiles/geography-qa.json" \
  --store lake --name geo-smoke --quiet
check "run verify --cases" "$vigilo" run verify geo-smoke --store lake --cases
check "run chunk --index 0" "$vigilo" run chunk geo-smoke --store lake --index 0
check "run chunks --shard 0" "$vigilo" run chunks geo-smoke --store lake --shard 0
check "dataset list" "$vigilo" dataset list
if grep -q "^geo " "$tmp/check.out"; then pass "dataset list names geo"; else fail "dataset list: $(head -c 300 "$tmp/check.out")"; fi
check "store cleanup --store lake" "$vigilo" store cleanup --store lake
# The same dataset in a local directory has the same identities (object_bytes differ: references
# record the alias, "lake" or "local").
"$vigilo" dataset ingest "$dataset" --store "$tmp/local-store" --name geo-local --quiet >/dev/null 2>&1
"$vigilo" dataset show geo --store lake --json 2>&1 | jq -S 'del(.name, .root, .storage_alias, .root_reference, .attempt_id, .published_at, .object_bytes)' >"$tmp/show-s3.json"
"$vigilo" dataset show geo-local --store "$tmp/local-store" --json 2>&1 | jq -S 'del(.name, .root, .storage_alias, .root_reference, .attempt_id, .published_at, .object_bytes)' >"$tmp/show-local.json"
if [[ -s $tmp/show-s3.json ]] && cmp -s "$tmp/show-s3.json" "$tmp/show-local.json"; then
  pass "dataset show: the same identities as the local ingest"
else
  fail "dataset show differs: $(diff "$tmp/show-s3.json" "$tmp/show-local.json" | head -c 400)"
fi

# ---- a vector publication ----
perl -e '
  srand(7);
  open(my $f, ">", $ARGV[0]) or die; binmode $f;
  for my $i (0 .. 1499) { print $f pack("l<f<8", 8, map { ($i % 5) * 3 + rand() } 1 .. 8) }
  open(my $q, ">", $ARGV[1]) or die;
  for my $i (0 .. 3) { print $q "[" . join(",", map { sprintf("%.3f", $i * 3 + rand()) } 1 .. 8) . "]\n" }
' "$tmp/in.fvecs" "$tmp/q.jsonl"
build=(index build --input "$tmp/in.fvecs" --metric l2_squared --encoding lvq8 --nlist 16 --source --seed 3 --threads 1 -q)
check "index build --out lake:pubs/one" "$vigilo" "${build[@]}" --out lake:pubs/one
cp "$tmp/check.out" "$tmp/build-s3.out"
check "index build --out a local directory" "$vigilo" "${build[@]}" --out "$tmp/pub"

remote=lake:pubs/one/manifest.json
local_manifest=$tmp/pub/manifest.json
same() {  # same NAME ARGS...: MANIFEST replaced by the local manifest, then by the alias
  local name=$1; shift
  local a=() b=() x
  for x in "$@"; do
    if [[ $x == MANIFEST ]]; then a+=("$local_manifest"); b+=("$remote"); else a+=("$x"); b+=("$x"); fi
  done
  "$vigilo" "${a[@]}" >"$tmp/local.out" 2>&1; local rl=$?
  "$vigilo" "${b[@]}" >"$tmp/s3.out" 2>&1; local rs=$?
  if [[ $rl -eq 0 && $rs -eq 0 ]] && cmp -s "$tmp/local.out" "$tmp/s3.out"; then
    pass "$name: identical from the bucket"
  else
    fail "$name: exit $rl locally, $rs from S3; $(diff "$tmp/local.out" "$tmp/s3.out" | head -c 400)"
  fi
}
same "index query" index query MANIFEST --queries "$tmp/q.jsonl" -k 5 --nprobe 4
same "index query --json" index query MANIFEST --queries "$tmp/q.jsonl" -k 5 --json
same "index query --columns (payload lookup)" index query MANIFEST --queries "$tmp/q.jsonl" -k 3 --columns vector
check "index verify (every byte, from the bucket)" "$vigilo" index verify "$remote"
# Recall and bytes per query are the local ones (QPS is timing, so left out).
eval_args=(--queries "$tmp/q.jsonl" --base "$tmp/in.fvecs" -k 5 --nprobe 2,8 --json --quiet)
# (The local publication read in place, as the bucket is: held in memory it would fetch no row group.)
"$vigilo" index eval "$local_manifest" "${eval_args[@]}" --resident-max-bytes 0 2>/dev/null | jq -c 'del(.qps, .seconds, .cpu_seconds, .manifest)' >"$tmp/eval-local.json"
"$vigilo" index eval "$remote" "${eval_args[@]}" 2>/dev/null | jq -c 'del(.qps, .seconds, .cpu_seconds, .manifest)' >"$tmp/eval-s3.json"
if [[ -s $tmp/eval-s3.json ]] && cmp -s "$tmp/eval-local.json" "$tmp/eval-s3.json"; then
  pass "index eval: the same recall from the bucket"
else
  fail "index eval differs: $(diff "$tmp/eval-local.json" "$tmp/eval-s3.json" | head -c 400)"
fi
"$vigilo" index inspect "$remote" --json 2>&1 | jq -S 'del(.artifact_uuid, .manifest, .location)' >"$tmp/inspect-s3.json"
"$vigilo" index inspect "$local_manifest" --json 2>&1 | jq -S 'del(.artifact_uuid, .manifest, .location)' >"$tmp/inspect-local.json"
if [[ -s $tmp/inspect-s3.json ]] && cmp -s "$tmp/inspect-s3.json" "$tmp/inspect-local.json"; then
  pass "index inspect: the same publication (but its artifact-uuid)"
else
  fail "index inspect differs: $(diff "$tmp/inspect-s3.json" "$tmp/inspect-local.json" | head -c 400)"
fi

# ---- index publish: the local publication copied into the bucket ----
check "index publish DIR lake:pubs/two" "$vigilo" index publish "$tmp/pub" lake:pubs/two --json
if jq -e '.outcome == "published" and .copied == .objects' "$tmp/check.out" >/dev/null; then
  pass "index publish copied every object"
else
  fail "index publish: $(cat "$tmp/check.out")"
fi
cp "$tmp/check.out" "$tmp/publish.out"
check "index publish again" "$vigilo" index publish "$tmp/pub" lake:pubs/two --json
if jq -e '.outcome == "unchanged"' "$tmp/check.out" >/dev/null; then pass "a second publish is unchanged"; else fail "publish again: $(cat "$tmp/check.out")"; fi
remote=lake:pubs/two/manifest.json
same "index query of the published copy" index query MANIFEST --queries "$tmp/q.jsonl" -k 5 --nprobe 4 --json
check "index verify of the published copy" "$vigilo" index verify "$remote"

# ---- errors name the alias and the key, never a secret ----
"$vigilo" index query lake:pubs/none/manifest.json --queries "$tmp/q.jsonl" >"$tmp/missing.out" 2>&1
if grep -q "not_found" "$tmp/missing.out"; then pass "a missing publication is not_found"; else fail "missing publication: $(cat "$tmp/missing.out")"; fi
sed "s/$secret_key/wrong$secret_key/" "$tmp/credentials" >"$tmp/credentials.wrong"
sed "s|$tmp/credentials\"|$tmp/credentials.wrong\"|" "$tmp/stores.json" >"$tmp/stores.wrong.json"
VIGILO_STORES=$tmp/stores.wrong.json "$vigilo" dataset verify geo --store lake >"$tmp/wrong.out" 2>&1
if grep -q "SignatureDoesNotMatch" "$tmp/wrong.out"; then pass "a wrong secret is SignatureDoesNotMatch"; else fail "wrong secret: $(cat "$tmp/wrong.out")"; fi
clean "every command" "$tmp/ingest.out" "$tmp/build-s3.out" "$tmp/publish.out" "$tmp/s3.out" "$tmp/missing.out" "$tmp/wrong.out" \
  "$tmp/show-s3.json" "$tmp/inspect-s3.json"
finish

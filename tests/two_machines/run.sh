#!/usr/bin/env bash
# Two machines, simulated (issue 37): four process trees A, B, C and D, each
# with an environment of its own (env -i: its own HOME, cache, scratch
# directory, stores config and PostgreSQL password file), sharing only one
# PostgreSQL control plane (scripts/postgres, over TCP with a password) and
# one S3 bucket (scripts/ceph-rgw). Their stores configs each name the bucket
# "lake"; nothing else ties them together.
#   A ingests a dataset, plans a run over it, builds a vector publication
#     locally and publishes it to the bucket (index publish);
#   B and C each read their shards' chunks of A's run by name;
#   D queries A's publication by ALIAS:KEY, then binds it in the native
#     catalog and queries it by name (catalog:SOURCE/INDEX).
# Checked: B's and C's chunks together are the plan's chunks exactly once and
# their cases are A's dataset byte for byte; D's answers, both ways, are A's
# local answers byte for byte; every machine sees A's names, and A sees D's
# binding, through PostgreSQL; and B and D write nothing under their HOME but
# their cache, and no machine creates a SQLite control database.
#
#   tests/two_machines/run.sh VIGILO_BIN
#
# Prints PASS/FAIL lines, then `two machines: N checks passed` (exit 0) or
# `two machines: N checks passed, M failed` (exit 1).
# shellcheck disable=SC2154,SC2317  # access_key, bucket, endpoint, region, secret_key come from s3_rgw_up
set -uo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 VIGILO_BIN" >&2; exit 2; }
vigilo=$1
[[ $vigilo == /* ]] || vigilo=$PWD/$vigilo
here=$(cd "$(dirname "$0")" && pwd)
SUITE="two machines"
# shellcheck source=tests/s3/lib.sh
. "$here/../s3/lib.sh"  # $tmp, $root, the suite's RGW, pass/fail/check/expect/finish
chmod 755 "$tmp"         # as root, the PostgreSQL server runs as nobody and must reach $tmp/pg
trap 'bash "$root/scripts/postgres" down "$tmp/pg" >/dev/null 2>&1; s3_cleanup' EXIT

s3_rgw_up
start=$SECONDS
bash "$root/scripts/postgres" up "$tmp/pg" $$ >"$tmp/pg.env" 2>"$tmp/pg.err" || { fail "postgres: $(tail -c 600 "$tmp/pg.err")"; finish; }
echo "postgres up in $((SECONDS - start)) s"
# The machines reach the server over TCP with a password, as from another host.
pg_password=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
psql "$(sed -n 's/^url=//p' "$tmp/pg.env")" -qAt -c "ALTER ROLE vigilo PASSWORD '$pg_password'" >/dev/null ||
  { fail "postgres: cannot set the password"; finish; }
pg_port=$(sed -n 's/^port=//p' "$tmp/pg.env")
control=postgresql://vigilo@127.0.0.1:$pg_port/postgres

# ---- the machines: a HOME each, with its stores config, S3 credentials and .pgpass ----
machines=(A B C D)
for m in "${machines[@]}"; do
  home=$tmp/$m/home
  mkdir -p "$home/.config/vigilo" "$tmp/$m/scratch" "$tmp/$m/work"
  (
    umask 077
    printf '[vigilo]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$access_key" "$secret_key" >"$home/.s3-credentials"
    echo "127.0.0.1:$pg_port:*:vigilo:$pg_password" >"$home/.pgpass"
  )
  cat >"$home/.config/vigilo/stores.json" <<JSON
{"version":1,
 "stores":{
   "lake":{"url":"s3://$bucket/two-machines","writable":true,
           "guarantees":{"conditional_create":true,"read_after_create":true},
           "backend":{"endpoint":"$endpoint","region":"$region","addressing":"path",
                      "credentials":{"source":"file","path":"$home/.s3-credentials","profile":"vigilo"}}}}}
JSON
done

# on MACHINE ARGS...: vigilo ARGS as that machine, in its work directory, with
# nothing of this shell's environment but PATH.
on() {
  local m=$1; shift
  local home=$tmp/$m/home
  (cd "$tmp/$m/work" && env -i PATH="$PATH" HOME="$home" TMPDIR="$tmp/$m/scratch" \
    VIGILO_STORES="$home/.config/vigilo/stores.json" VIGILO_CONTROL="$control" PGPASSFILE="$home/.pgpass" \
    "$vigilo" "$@")
}
# snapshot MACHINE: every path under its HOME but .cache, with size and digest.
snapshot() {
  local path
  (cd "$tmp/$1/home" && find . -path ./.cache -prune -o -print | sort |
    while IFS= read -r path; do
      if [[ -f $path ]]; then echo "$path $(stat -c %s "$path") $(sha256sum <"$path" | cut -c1-16)"; else echo "$path"; fi
    done)
}
for m in "${machines[@]}"; do snapshot "$m" >"$tmp/$m.home.before"; done

# ---- inputs: 24 cases (4 run shards of 2 chunks of 3), 1,500 vectors of 8 dimensions ----
jq -c -n 'range(24) as $i | {task_type: "generation", input: {prompt: "question \($i)"},
  expected: {answer: "answer \($i)"}, tags: (if $i % 4 == 0 then ["rivers"] else ["cities"] end),
  metadata: {n: "q\($i)"}}' >"$tmp/A/work/cases.jsonl"
jq '.chunk_size = 3 | .shards = 4' "$root/examples/profiles/geography-qa.json" >"$tmp/A/work/profile.json"
perl -e '
  srand(11);
  open(my $f, ">", $ARGV[0]) or die; binmode $f;
  for my $i (0 .. 1499) { print $f pack("l<f<8", 8, map { ($i % 5) * 3 + rand() } 1 .. 8) }
  open(my $q, ">", $ARGV[1]) or die;
  for my $i (0 .. 3) { print $q "[" . join(",", map { sprintf("%.3f", $i * 3 + rand()) } 1 .. 8) . "]\n" }
' "$tmp/A/work/vectors.fvecs" "$tmp/A/work/queries.jsonl"
cp "$tmp/A/work/queries.jsonl" "$tmp/D/work/queries.jsonl"  # D's own copy: the queries are not shared state

# ---- A: ingest, plan, build, publish ----
check "A: dataset ingest --store lake" on A dataset ingest cases.jsonl --store lake --name tm \
  --derive-ids metadata.n --dataset-id two-machines --dataset-version 2026-12 --quiet
check "A: run plan --store lake" on A run plan --dataset tm --profile profile.json --store lake --name tm-run --quiet
on A run show tm-run --json >"$tmp/A/plan.json" 2>&1
chunk_count=$(jq -r '.chunk_count' "$tmp/A/plan.json" 2>/dev/null)
expect "A: the plan has 8 chunks in 4 shards" \
  test "$chunk_count" = 8 -a "$(jq -c '[.shards[].run_shard]' "$tmp/A/plan.json")" = "[0,1,2,3]"
on A dataset cases tm --store lake --from 0 --to 24 >"$tmp/A/cases.out" 2>"$tmp/A/cases.err"
check "A: index build into its own directory" on A index build --input vectors.fvecs --metric l2_squared \
  --encoding lvq8 --nlist 16 --source --seed 3 --threads 1 -q --out ./pub
on A index query ./pub/manifest.json --queries queries.jsonl -k 5 --nprobe 4 --json >"$tmp/A/answers.json" 2>"$tmp/A/query.err"
expect "A: its local query answers 4 queries × 5 neighbours" \
  test "$(jq -s '[.[] | select(._row != null)] | length' "$tmp/A/answers.json" 2>/dev/null)" = 20
check "A: index publish ./pub lake:pubs/tm" on A index publish ./pub lake:pubs/tm --quiet

# ---- B and C: their shards' chunks, by the run's name ----
read_shards() {  # read_shards MACHINE SHARD...: the chunks' table, then every chunk's cases
  local m=$1 s i; shift
  for s in "$@"; do
    on "$m" run chunks tm-run --store lake --shard "$s" --json >>"$tmp/$m/chunks.jsonl" 2>>"$tmp/$m/err" ||
      fail "$m: run chunks --shard $s: $(tail -c 300 "$tmp/$m/err")"
  done
  for i in $(jq -r '.chunk_index' "$tmp/$m/chunks.jsonl"); do
    on "$m" run chunk tm-run --store lake --index "$i" --quiet >>"$tmp/$m/cases.out" 2>>"$tmp/$m/err" ||
      fail "$m: run chunk --index $i: $(tail -c 300 "$tmp/$m/err")"
  done
}
read_shards B 0 1
read_shards C 2 3
jq -r '.chunk_index' "$tmp/B/chunks.jsonl" "$tmp/C/chunks.jsonl" | sort -n | tr '\n' ' ' >"$tmp/chunk-indexes"
expect "B and C: their shards hold chunks 0..7, each once ($(cat "$tmp/chunk-indexes"))" \
  test "$(cat "$tmp/chunk-indexes")" = "0 1 2 3 4 5 6 7 "
expect "B and C: neither reads a chunk of the other's shards" \
  test -z "$(jq -r '.run_shard' "$tmp/B/chunks.jsonl" | grep -v '^[01]$')$(jq -r '.run_shard' "$tmp/C/chunks.jsonl" | grep -v '^[23]$')"
cat "$tmp/B/cases.out" "$tmp/C/cases.out" | jq -c -s 'sort_by(.case_ordinal)[]' >"$tmp/workers.cases"
jq -c . "$tmp/A/cases.out" >"$tmp/A.cases"
if [[ $(wc -l <"$tmp/A.cases") -eq 24 ]] && cmp -s "$tmp/A.cases" "$tmp/workers.cases"; then
  pass "B and C: their chunks' cases are A's 24 cases exactly once, byte for byte"
else
  fail "B and C: cases differ from A's: $(diff "$tmp/A.cases" "$tmp/workers.cases" | head -c 400)"
fi

# ---- D: A's publication from the bucket, by ALIAS:KEY ----
on D index query lake:pubs/tm/manifest.json --queries queries.jsonl -k 5 --nprobe 4 --json >"$tmp/D/answers.json" 2>"$tmp/D/query.err"
d_status=$?
if [[ $d_status -eq 0 && -s $tmp/A/answers.json ]] && cmp -s "$tmp/A/answers.json" "$tmp/D/answers.json"; then
  pass "D: index query lake:pubs/tm answers as A's local publication, byte for byte"
else
  fail "D: exit $d_status, answers differ: $(diff "$tmp/A/answers.json" "$tmp/D/answers.json" | head -c 300) $(tail -c 300 "$tmp/D/query.err")"
fi

# ---- the catalog step (issue 37): D binds the publication in the catalog and queries it by name ----
check "D: catalog bind two-machines vectors lake:pubs/tm/manifest.json" \
  on D catalog bind two-machines vectors lake:pubs/tm/manifest.json
on D index query catalog:two-machines/vectors --queries queries.jsonl -k 5 --nprobe 4 --json \
  >"$tmp/D/catalog-answers.json" 2>"$tmp/D/catalog-query.err"
d_status=$?
if [[ $d_status -eq 0 && -s $tmp/A/answers.json ]] && cmp -s "$tmp/A/answers.json" "$tmp/D/catalog-answers.json"; then
  pass "D: index query catalog:two-machines/vectors answers as A's local publication, byte for byte"
else
  fail "D: by name, exit $d_status: $(diff "$tmp/A/answers.json" "$tmp/D/catalog-answers.json" | head -c 300) $(tail -c 300 "$tmp/D/catalog-query.err")"
fi
# The binding is control state: A sees it through the shared PostgreSQL.
on A catalog list --json >"$tmp/A/catalog.jsonl" 2>&1
expect "A: catalog list shows D's binding of two-machines/vectors" \
  test "$(jq -r 'select(.name == "two-machines/vectors") | .location' "$tmp/A/catalog.jsonl" 2>/dev/null)" \
  = "lake:pubs/tm/manifest.json"
# ---- end of the catalog step ----

# ---- the shared control plane: one state, seen from every machine ----
lists_a_names() {  # lists_a_names MACHINE: its dataset list and run list name A's tm and tm-run
  grep -q '^tm ' "$tmp/$1/datasets" && grep -q '^tm-run ' "$tmp/$1/runs"
}
for m in B C D; do
  on "$m" dataset list >"$tmp/$m/datasets" 2>&1
  on "$m" run list >"$tmp/$m/runs" 2>&1
  expect "$m: dataset list and run list show A's tm and tm-run" \
    lists_a_names "$m"
done

# ---- nothing written where it should not be ----
for m in B D; do
  snapshot "$m" >"$tmp/$m.home.after"
  if cmp -s "$tmp/$m.home.before" "$tmp/$m.home.after"; then
    pass "$m: nothing written under its HOME but .cache"
  else
    fail "$m: its HOME changed: $(diff "$tmp/$m.home.before" "$tmp/$m.home.after" | head -c 400)"
  fi
done
found=$(find "$tmp"/{A,B,C,D} -name 'control.sqlite3*' | head -3)
expect "no machine created a SQLite control database${found:+ ($found)}" test -z "$found"
finish

#!/usr/bin/env bash
# The control plane on SQLite against PostgreSQL (issue 37): latency and
# throughput of its hot operations from 1, 4 and 16 concurrent writer
# processes, each with its own connection (bench/control_bench.cc):
#   - publish: BeginAttempt, RecordKeys (8 keys), PublishRoot under a new name
#     (the control-plane part of one dataset ingest);
#   - renew:   RenewLease of the writer's own attempt;
#   - read:    GetRoot of one published name.
# And what one operation costs: transactions and statements (each a client
# round trip) on PostgreSQL, read from its statement log; transactions and
# fdatasync calls on SQLite, counted with strace.
#
# Both are durable and on the same disk: SQLite as vigilo opens it (WAL,
# synchronous = FULL) in a scratch directory under /tmp; PostgreSQL 15 from
# scripts/postgres (a private server on loopback, stopped by PID at the end)
# with fsync, synchronous_commit and full_page_writes turned back on (the test
# server turns them off), reached over loopback TCP with a password. Each (backend,
# operation, writers) cell runs SECS seconds; rounds interleave the two
# backends and the median of REPS rounds is reported. Rewrites only the
# control section of docs/benchmarks.md.
#
#   bench/control.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
#
# Environment: REPS 3, SECS 2, WRITERS "1 4 16".
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
driver=$build/bench/control_bench
reps=${REPS:-3}
secs=${SECS:-2}
read -r -a writers <<<"${WRITERS:-1 4 16}"
ops=(publish renew read)
log() { echo "control.sh: $*" >&2; }

[[ -x $driver ]] || bench_die "$driver not found; build it with: cmake --build ${build#"$root"/} --target control_bench"
for tool in jq psql; do command -v "$tool" >/dev/null || bench_die "$tool is not installed (scripts/setup)"; done

tmp=$(mktemp -d)
chmod 755 "$tmp"  # as root the server runs as nobody, which must reach $tmp/pg
cleanup() { bash "$root/scripts/postgres" down "$tmp/pg" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT

log "starting a private PostgreSQL"
bash "$root/scripts/postgres" up "$tmp/pg" $$ >"$tmp/pg.env"
admin_url=$(sed -n 's/^url=//p' "$tmp/pg.env")  # the Unix socket: trusted, for settings
pg_log=$tmp/pg/log/postgres.log
pg_set() {  # pg_set NAME VALUE: ALTER SYSTEM and reload
  psql "$admin_url" -qAt -c "ALTER SYSTEM SET $1 = '$2'" -c "SELECT pg_reload_conf()" >/dev/null
}
# The writers connect over loopback TCP with a password, as another machine would.
PGPASSWORD=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
export PGPASSWORD
psql "$admin_url" -qAt -c "ALTER ROLE vigilo PASSWORD '$PGPASSWORD'" >/dev/null
pg_url=$(sed -n 's/^tcp_url=//p' "$tmp/pg.env")
pg_set fsync on
pg_set synchronous_commit on
pg_set full_page_writes on
sleep 0.5  # the reload reaches every backend
[[ $(psql "$admin_url" -qAt -c "SHOW fsync") == on ]] || bench_die "PostgreSQL did not turn fsync on"
mkdir -p "$tmp/sqlite"
sqlite_locator=$tmp/sqlite/control.sqlite3
locator() { if [[ $1 == sqlite ]]; then echo "$sqlite_locator"; else echo "$pg_url"; fi; }

# ---- latency and throughput ----
results=$tmp/results.jsonl
load() { cut -d' ' -f1 /proc/loadavg; }  # the 1-minute load average: how shared the machine was
load_before=$(load)
for r in $(seq 1 "$reps"); do
  log "round $r of $reps"
  for op in "${ops[@]}"; do
    for n in "${writers[@]}"; do
      for backend in sqlite postgresql; do
        "$driver" --control "$(locator "$backend")" --op "$op" --writers "$n" --seconds "$secs" --tag "r$r" |
          jq -c --arg b "$backend" '. + {backend: $b}' >>"$results"
      done
    done
  done
done

load_after=$(load)

# median BACKEND OP WRITERS FIELD
median() {
  jq -r --arg b "$1" --arg o "$2" --argjson n "$3" --arg f "$4" \
    'select(.backend == $b and .op == $o and .writers == $n) | .[$f]' "$results" |
    sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ms() { awk -v us="$1" 'BEGIN { printf (us < 10000 ? "%.2f" : "%.1f"), us / 1000 }'; }
rate() { awk -v x="$1" 'BEGIN { printf "%.0f", x }' | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }

# ---- what one operation costs: (count after 20 ops - count after 10) / 10 ----
per_op() { awk -v a="$1" -v b="$2" 'BEGIN { x = (b - a) / 10; printf (x == int(x) ? "%d" : "%.1f"), x }'; }
pg_count() {  # pg_count OP K: "statements transactions" logged by one writer doing OP K times
  local mark
  mark=$(wc -l <"$pg_log")
  "$driver" --control "$pg_url" --op "$1" --writers 1 --ops "$2" --tag "count$2" >/dev/null
  sleep 0.3  # the log is written by the server, asynchronously
  tail -n +"$((mark + 1))" "$pg_log" >"$tmp/count.log"
  echo "$(grep -cE 'LOG:  (statement|execute [^:]*):' "$tmp/count.log") $(grep -cE 'LOG:  (statement|execute [^:]*): (COMMIT|ROLLBACK)' "$tmp/count.log")"
}
sqlite_syncs() {  # sqlite_syncs OP K: fdatasync/fsync calls of one writer doing OP K times
  strace -f -qq -c -e trace=fsync,fdatasync -o "$tmp/strace.out" \
    "$driver" --control "$sqlite_locator" --op "$1" --writers 1 --ops "$2" --tag "count$2" >/dev/null
  awk '$NF == "total" { print $(NF - 1) + 0; found = 1 } END { if (!found) print 0 }' "$tmp/strace.out"
}
declare -A pg_statements pg_transactions sqlite_fsyncs
pg_set log_statement all
sleep 0.5
for op in "${ops[@]}"; do
  "$driver" --control "$pg_url" --op "$op" --writers 1 --ops 1 --tag warm >/dev/null  # read: publish its name first
  read -r s10 t10 < <(pg_count "$op" 10)
  read -r s20 t20 < <(pg_count "$op" 20)
  pg_statements[$op]=$(per_op "$s10" "$s20")
  pg_transactions[$op]=$(per_op "$t10" "$t20")
  if command -v strace >/dev/null; then
    "$driver" --control "$sqlite_locator" --op "$op" --writers 1 --ops 1 --tag warm >/dev/null
    sqlite_fsyncs[$op]=$(per_op "$(sqlite_syncs "$op" 10)" "$(sqlite_syncs "$op" 20)")
  else
    sqlite_fsyncs[$op]="(no strace)"
  fi
done
pg_set log_statement none

# SQLite runs every ControlStore call as one transaction (sqlite_control_store.cc).
declare -A sqlite_transactions=([publish]=3 [renew]=1 [read]=1)
declare -A what=([publish]="publish (begin, 8 keys, root)" [renew]="lease renew" [read]="root read")
commit=$(git -C "$root" rev-parse --short HEAD)
pg_version=$(psql "$admin_url" -qAt -c "SHOW server_version" | cut -d' ' -f1)
sqlite_version=$(dpkg-query -W -f='${Version}' libsqlite3-0 2>/dev/null | cut -d- -f1)
section=$tmp/section.md
{
  echo "## Control plane: SQLite against PostgreSQL"
  echo
  echo "\`bench/control.sh\` at $commit on $(bench_cpu) ($(nproc) cores, shared with other work during the"
  echo "run: load average $load_before at its start, $load_after at its end), $(date -u +%Y-%m-%d). N writer"
  echo "processes, each with its own connection, repeat one operation for $secs s; median of $reps rounds"
  echo "interleaving the backends. SQLite $sqlite_version as vigilo opens it (WAL, synchronous = FULL);"
  echo "PostgreSQL $pg_version (scripts/postgres, over loopback TCP with a password) with fsync and"
  echo "synchronous_commit on; both on the same virtual disk. Latency is one whole operation; ops/s is the"
  echo "sum over writers (a publish is three control calls)."
  echo
  echo "| operation | writers | SQLite ops/s | p50 ms | p99 ms | PostgreSQL ops/s | p50 ms | p99 ms |"
  echo "|---|---|---|---|---|---|---|---|"
  for op in "${ops[@]}"; do
    for n in "${writers[@]}"; do
      echo "| ${what[$op]} | $n | $(rate "$(median sqlite "$op" "$n" ops_per_s)") | $(ms "$(median sqlite "$op" "$n" p50_us)") |" \
        "$(ms "$(median sqlite "$op" "$n" p99_us)") | $(rate "$(median postgresql "$op" "$n" ops_per_s)") |" \
        "$(ms "$(median postgresql "$op" "$n" p50_us)") | $(ms "$(median postgresql "$op" "$n" p99_us)") |"
    done
  done
  echo
  echo "What one operation costs (one writer; the difference between 20 and 10 operations, over 10):"
  echo
  echo "| operation | SQLite transactions | SQLite fdatasync | PostgreSQL transactions | PostgreSQL statements (round trips) |"
  echo "|---|---|---|---|---|"
  for op in "${ops[@]}"; do
    echo "| ${what[$op]} | ${sqlite_transactions[$op]} | ${sqlite_fsyncs[$op]} | ${pg_transactions[$op]} | ${pg_statements[$op]} |"
  done
  echo
  echo "PostgreSQL's statements are counted in its own log (log_statement = all), BEGIN and COMMIT"
  echo "included: each is one client round trip. A change is BEGIN, SELECT pg_current_xact_id() (so a lost"
  echo "COMMIT reply can be resolved), the row lock, the work and COMMIT; RecordKeys sends one INSERT per"
  echo "key. SQLite's transactions are by the code (one BEGIN IMMEDIATE per call); its fdatasync calls"
  echo "are counted with strace (WAL commits, and now and then a checkpoint)."
  echo
  echo "Reading the table: a change costs a disk flush on both, so one writer runs at the disk's"
  echo "fdatasync rate on either. SQLite lets one writer at a time hold its database lock (BEGIN"
  echo "IMMEDIATE): throughput stays at one writer's whatever their number, and a writer that finds the"
  echo "lock taken waits in SQLite's busy handler, which sleeps in steps of up to 100 ms, so with 4 or 16"
  echo "writers a few operations wait seconds (the p99). PostgreSQL locks per attempt and per name and"
  echo "flushes concurrent commits together (group commit): throughput grows with writers and the p99"
  echo "stays far below SQLite's. Reads go the other way: SQLite reads its file in process, where"
  echo "PostgreSQL pays three round trips (BEGIN, SELECT, COMMIT of a read-only snapshot) per read."
} >"$section"
cat "$section"
bench_replace_section "$root/docs/benchmarks.md" control "$section"

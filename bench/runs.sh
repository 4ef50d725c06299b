#!/usr/bin/env bash
# Run plans (issue 21): `vigilo run plan`, `run verify` (with and without
# --cases) and a worker's `run chunk` against a local store holding a
# generated dataset of the seed's shape (the inputs of bench/dataset.sh).
# Planning: wall clock, peak RSS and store requests/bytes by size (goal: flat
# RSS). Worker: chunk-read latency (median, p95), peak RSS against the floor
# of `run show` and the chunk's encoded batch bytes, and bytes fetched per
# chunk against the minimum (the batches the chunk's case range touches).
# Rewrites the runs section of docs/benchmarks.md.
#
#   bench/runs.sh [BUILD_DIR]        BUILD_DIR defaults to build/release
#   SIZES="1000 100000 1000000"      case counts (default "1000 100000"; 1M ingests in ~35 s, not timed)
#   RUNS=3                           runs of plan/verify per size: fastest wall time, largest RSS
#   CHUNKS=20                        chunks read per size (first, last, and random ones)
#   CHUNK_SIZE=100 SHARDS=16         the profile's chunk_size and shards
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
vigilo=$build/src/cli/vigilo
sizes=${SIZES:-1000 100000}
runs=${RUNS:-3}
chunks=${CHUNKS:-20}
chunk_size=${CHUNK_SIZE:-100}
shards=${SHARDS:-16}
data=$root/build/bench-data

[[ -x $vigilo ]] || bench_die "$vigilo not found; build it with: cmake --build $build --target vigilo"
for tool in python3 jq strace /usr/bin/time; do
  command -v "$tool" >/dev/null || bench_die "$tool is not installed (scripts/setup)"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The inputs are bench/dataset.sh's (same generator, same bytes, same files);
# a missing one is generated with the generator taken from that script.
input_for() {
  local file=$data/dataset-v1-$1.json
  if [[ ! -s $file ]]; then
    mkdir -p "$data"
    sed -n '/^cat >"\$tmp\/gen.py" <<'"'"'EOF'"'"'$/,/^EOF$/p' "$root/bench/dataset.sh" | sed '1d;$d' >"$tmp/gen.py"
    [[ -s $tmp/gen.py ]] || bench_die "no generator found in bench/dataset.sh"
    echo "runs.sh: generating $file ..." >&2
    python3 "$tmp/gen.py" "$1" >"$file.part"
    mv "$file.part" "$file"
  fi
  echo "$file"
}

# The profile: two gates (one counts every case, one only tagged cases),
# cases grouped by task type (one group here: every case is `generation`).
profile=$tmp/profile.json
cat >"$profile" <<EOF
{"profile_id":"bench","profile_version":"2026-12","agent":{"name":"bench-agent","version":"1"},
 "evaluators":[{"ref":"exact-match@1"},{"ref":"llm-judge@2","runnable":false}],
 "gates":[{"gate_id":"answer","evaluators":["exact-match@1"]},
          {"gate_id":"science","evaluators":["llm-judge@2"],"select":{"any_tags":["science"]}}],
 "profile_groups":{"by":"task_type"},"execution_plan":{"repetitions":1},
 "chunk_size":$chunk_size,"shards":$shards}
EOF

# store_io.py STORE LOG [KINDS]: the store requests in an `strace -f -e
# trace=openat,link,rename*` log, as "gets get_bytes puts put_bytes": a get is
# a successful read-only open of an object file under STORE (its size is the
# bytes fetched; objects are read whole), a put an object linked or renamed
# into place. KINDS, if given, gets "namespace/kind gets bytes" lines, the
# kind being the key's part after the attempt (manifest.json, index, batches...).
cat >"$tmp/store_io.py" <<'EOF'
import collections, os, re, sys
store, log = sys.argv[1].rstrip("/") + "/", sys.argv[2]
gets = get_bytes = puts = put_bytes = 0
kinds = collections.defaultdict(lambda: [0, 0])
for line in open(log):
    m = re.search(r'openat\(AT_FDCWD, "([^"]*)", ([A-Z_|]+)[^)]*\) = (-?\d+)', line)
    if m and m.group(1).startswith(store) and int(m.group(3)) >= 0:
        flags = m.group(2)
        if "O_DIRECTORY" not in flags and "O_CREAT" not in flags and "O_RDONLY" in flags:
            size = os.path.getsize(m.group(1))
            gets += 1
            get_bytes += size
            key = m.group(1)[len(store):].split("/")
            kind = key[0] + "/" + (key[key.index("attempts") + 3] if "attempts" in key else key[-1])
            kinds[kind][0] += 1
            kinds[kind][1] += size
        continue
    m = re.search(r'(?:link|rename)(?:at2?)?\((?:[^,]*, )?"[^"]*", (?:[^,]*, )?"([^"]*)"[^)]*\) = 0', line)
    if m and m.group(1).startswith(store) and not os.path.basename(m.group(1)).startswith("."):
        puts += 1
        put_bytes += os.path.getsize(m.group(1))
print(gets, get_bytes, puts, put_bytes)
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as f:
        for kind, (n, size) in sorted(kinds.items()):
            f.write("%s %d %d\n" % (kind, n, size))
EOF
store_io() {  # store_io STORE OUT CMD...: runs CMD under strace, then store_io.py STORE
  local store=$1 out=$2
  shift 2
  strace -f -qq -o "$tmp/strace" -e trace=openat,link,linkat,rename,renameat,renameat2 "$@" >"$out" 2>"$tmp/strace.err" ||
    bench_die "failed under strace: $*"
  python3 "$tmp/store_io.py" "$store" "$tmp/strace"
}

# measure VAR OUT CMD...: as bench/dataset.sh: runs CMD (stdout to OUT,
# stderr to $tmp/stderr) and folds "wall_seconds peak_rss_kib" into VAR: the
# fastest wall time and the largest RSS over calls.
measure() {
  local name=$1 out=$2
  shift 2
  local start stop
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$tmp/time" "$@" >"$out" 2>"$tmp/stderr" || bench_die "failed: $* ($(tail -1 "$tmp/stderr"))"
  stop=$(date +%s.%N)
  printf -v "$name" '%s' "$(awk -v o="${!name:-}" -v a="$start" -v b="$stop" -v rss="$(tail -1 "$tmp/time")" 'BEGIN {
    w = b - a; if (o != "") { split(o, p, " "); if (p[1] < w) w = p[1]; if (p[2] > rss) rss = p[2] }
    printf "%.4f %d", w, rss }')"
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
mb() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e6 }'; }
io() { awk -v g="$1" -v gb="$2" -v p="$3" -v pb="$4" 'BEGIN { printf "%d / %.2f | %d / %.2f", g, gb / 1e6, p, pb / 1e6 }'; }
row() {  # row LABEL CASES "wall rss" IO
  awk -v label="$1" -v c="$2" -v wr="$3" -v io="$4" 'BEGIN {
    split(wr, a, " "); printf "| %s | %.3f | %.0f | %.1f | %s |\n", label, a[1], c / a[1], a[2] / 1024, io }'
}
# quantile Q FILE: the Q-quantile (nearest rank) of FILE's numbers.
quantile() { sort -g "$2" | awk -v q="$1" '{ v[NR] = $1 } END { i = int(q * NR + 0.999999); if (i < 1) i = 1; print v[i] }'; }

load_start=$(cut -d' ' -f1-3 /proc/loadavg)  # other jobs skew the numbers; record it
plan_table=""
chunk_table=""
kinds_table=""
rss_plan="" rss_verify="" rss_cases="" rss_chunk=""  # peak RSS in MiB by size, per command
extra_batches=0 chunks_read=0
for n in $sizes; do
  input=$(input_for "$n")
  dir=$tmp/size-$n
  store=$dir/store
  mkdir -p "$dir"
  export VIGILO_CONTROL=$dir/control.db
  echo "runs.sh: $n cases: ingest (not timed) ..." >&2
  "$vigilo" dataset ingest "$input" --store "$store" --name bench --json -q >"$dir/ingest.json"
  dataset_bytes=$(jq -r .bytes_written "$dir/ingest.json")

  echo "runs.sh: $n cases: plan and verify, $runs runs ..." >&2
  t_plan="" t_verify="" t_cases="" t_show=""  # "wall rss" of each command
  for run in $(seq "$runs"); do
    # Each run publishes a new name (a fresh plan, nothing replayed).
    measure t_plan "$dir/plan-$run.json" "$vigilo" run plan --dataset bench --profile "$profile" --store "$store" \
      --name "bench.r$run" --json -q
  done
  name=bench.r$runs
  [[ $(jq -r .cases_read "$dir/plan-$runs.json") == "$n" ]] || bench_die "plan of $n cases did not read $n cases"
  for run in $(seq "$runs"); do
    measure t_verify "$dir/verify.json" "$vigilo" run verify "$name" --json
    measure t_cases "$dir/cases.json" "$vigilo" run verify "$name" --cases --json
    measure t_show /dev/null "$vigilo" run show "$name"
  done
  for f in verify cases; do
    [[ $(jq -r .verified "$dir/$f.json") == true ]] || bench_die "run verify ($f) of $n cases failed"
  done

  # Store requests and bytes, one extra untimed call of each under strace.
  s_plan=$(store_io "$store" "$dir/plan-strace.json" "$vigilo" run plan --dataset bench --profile "$profile" \
    --store "$store" --name bench.strace --json -q)
  s_verify=$(store_io "$store" /dev/null "$vigilo" run verify "$name" --json)
  s_cases=$(store_io "$store" /dev/null "$vigilo" run verify "$name" --cases --json)
  s_show=$(store_io "$store" /dev/null "$vigilo" run show "$name")
  read -r _ _ plan_puts plan_put_bytes <<<"$s_plan"
  [[ $plan_puts == $(jq -r .objects_written "$dir/plan-strace.json") &&
    $plan_put_bytes == $(jq -r .bytes_written "$dir/plan-strace.json") ]] ||
    bench_die "plan of $n cases: store writes seen ($plan_puts, $plan_put_bytes) differ from its record"

  plan_table+="| **$n cases**, $(mb "$dataset_bytes") MB stored | | | | | |"$'\n'
  plan_table+=$(row "vigilo run plan" "$n" "$t_plan" "$(io $s_plan)")$'\n'
  plan_table+=$(row "vigilo run verify" "$n" "$t_verify" "$(io $s_verify)")$'\n'
  plan_table+=$(row "vigilo run verify --cases" "$n" "$t_cases" "$(io $s_cases)")$'\n'
  plan_table+=$(row "floor: vigilo run show" "$n" "$t_show" "$(io $s_show)")$'\n'
  rss_plan+=" $(mib "${t_plan#* }")"
  rss_verify+=" $(mib "${t_verify#* }")"
  rss_cases+=" $(mib "${t_cases#* }")"

  # The worker: CHUNKS chunks (the first, the last, the rest drawn with a
  # fixed seed), each read once timed and once under strace.
  chunk_count=$(jq -r .chunk_count "$dir/plan-$runs.json")
  echo "runs.sh: $n cases: reading up to $chunks of $chunk_count chunks ..." >&2
  batch_dir=$(find "$store/datasets/bench" -type d -name batches)
  batches=$(find "$batch_dir" -name '*.jsonl' -printf '%f %s\n')
  : >"$dir/wall" && : >"$dir/rss" && : >"$dir/fetched" && : >"$dir/minimum" && : >"$dir/gets"
  t_chunk_max=""
  most_fetched=0
  for index in $(awk -v n="$chunk_count" -v k="$chunks" 'BEGIN { srand(21); print 0; if (n > 1) print n - 1
      for (i = 2; i < k && i < n; ++i) print 1 + int(rand() * (n - 2)) }' | sort -nu); do
    t_chunk=""
    measure t_chunk "$dir/chunk.jsonl" "$vigilo" run chunk "$name" --index "$index"
    t_chunk_max+="${t_chunk#* } "
    # "... cases [A, B) from K batches, F bytes fetched, projection verified"
    read -r a b k fetched < <(sed -nE 's/.*cases \[([0-9]+), ([0-9]+)\) from ([0-9]+) batches, ([0-9]+) bytes fetched.*/\1 \2 \3 \4/p' \
      "$tmp/stderr")
    [[ -n ${fetched:-} ]] || bench_die "chunk $index: no summary line: $(cat "$tmp/stderr")"
    [[ $(wc -l <"$dir/chunk.jsonl") == $((b - a)) ]] || bench_die "chunk $index printed not $((b - a)) cases"
    # The minimum: the batches [S, E) that overlap the chunk's cases [A, B).
    read -r touched minimum < <(awk -v a="$a" -v b="$b" '{ split($1, r, /[-.]/); s = r[1] + 0; e = r[2] + 0
        if (s < b && e > a) { k++; m += $2 } } END { print k + 0, m + 0 }' <<<"$batches")
    # What the worker fetched, under strace: every object, and the batches.
    read -r gets get_bytes _ _ < <(store_io "$store" /dev/null "$vigilo" run chunk "$name" --index "$index" -q)
    read -r batch_gets batch_bytes _ _ < <(python3 "$tmp/store_io.py" "$batch_dir" "$tmp/strace")
    if ((fetched > most_fetched)); then  # keep the kinds of the chunk that fetched the most
      python3 "$tmp/store_io.py" "$store" "$tmp/strace" "$dir/kinds" >/dev/null
      most_fetched=$fetched
    fi
    [[ $get_bytes == "$fetched" ]] || bench_die "chunk $index: opened $get_bytes bytes of objects, its summary says $fetched"
    echo "$gets" >>"$dir/gets"
    if [[ $touched != "$k" || $batch_gets != "$touched" || $batch_bytes != "$minimum" ]]; then
      echo "runs.sh: chunk $index [$a, $b): touches $touched batches ($minimum bytes), summary says $k," \
        "opened $batch_gets ($batch_bytes bytes)" >&2
      extra_batches=$((extra_batches + 1))
    fi
    chunks_read=$((chunks_read + 1))
    echo "${t_chunk%% *}" >>"$dir/wall"
    echo "${t_chunk#* }" >>"$dir/rss"
    echo "$fetched" >>"$dir/fetched"
    echo "$minimum" >>"$dir/minimum"
  done
  rss_max=$(tr ' ' '\n' <<<"$t_chunk_max" | awk 'NF && $1 > m { m = $1 } END { print m }')
  rss_chunk+=" $(mib "$rss_max")"
  chunk_table+=$(awk -v n="$n" -v cc="$chunk_count" -v k="$(wc -l <"$dir/wall")" \
    -v med="$(quantile 0.5 "$dir/wall")" -v p95="$(quantile 0.95 "$dir/wall")" \
    -v rss="$rss_max" -v show="${t_show#* }" -v enc="$(quantile 0.5 "$dir/minimum")" \
    -v f50="$(quantile 0.5 "$dir/fetched")" -v fmax="$(quantile 1 "$dir/fetched")" \
    -v ratio="$(paste "$dir/fetched" "$dir/minimum" | awk '{ print $1 / $2 }' >"$dir/ratio"; quantile 0.5 "$dir/ratio")" \
    -v rmax="$(quantile 1 "$dir/ratio")" -v gets="$(quantile 0.5 "$dir/gets")" 'BEGIN {
      printf "| %d | %d of %d | %.1f | %.1f | %.1f | %.1f | %d | %.1f | %.1f | %.1f | %.2f / %.2f |\n", n, k, cc,
        med * 1000, p95 * 1000, rss / 1024, (rss - show) / 1024, gets, enc / 1e3, f50 / 1e3, fmax / 1e3, ratio, rmax }')$'\n'
  kinds_table+="| $n | $(awk '{ printf "%s`%s` %d get%s, %.1f kB", sep, $1, $2, ($2 == 1 ? "" : "s"), $3 / 1e3; sep = ", " }' "$dir/kinds") |"$'\n'
  rm -rf "$dir"
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# Flat: no command's peak RSS grows by more than 10% between the two largest sizes.
flat() {
  awk 'NF >= 2 && $NF > 1.10 * $(NF - 1) { grew = 1 } NF < 2 { one = 1 }
    END { print (one ? "not judged (one size)" : grew ? "**not met**" : "met") }' <<<"$1"
}
flat_plan=$(flat "$rss_plan")
flat_verify=$(flat "$(printf '%s\n%s\n' "$rss_verify" "$rss_cases")")
flat_chunk=$(flat "$rss_chunk")
# Chunk reads touch only their batches: per chunk, the batch objects opened
# are exactly the batches its case range overlaps, as the summary line says.
only_batches="met ($chunks_read chunks: each opened exactly the batches its case range overlaps)"
((extra_batches == 0)) || only_batches="**not met** ($extra_batches of $chunks_read chunks opened other batches)"

section=$tmp/section.md
cat >"$section" <<EOF
## Run plans (run plan, verify, chunk; local store)

The datasets of the case-storage benchmark above (\`build/bench-data/\`, ~315 bytes per case), each
ingested once (not timed) into a fresh store with its own control database, then planned with a profile
of two gates (one counting every case, one only cases tagged \`science\`), cases grouped by task type (a
single group: every case is \`generation\`), \`chunk_size\` $chunk_size and $shards shards. Default batching is 100
cases, so each chunk of $chunk_size cases overlaps $(awk -v c="$chunk_size" 'BEGIN { print (100 % c == 0 || c % 100 == 0) ? "whole batches only" : "one or two batches" }').
Each plan run publishes a new name, so nothing is replayed. Wall clock of the whole process, fastest of
$runs; peak RSS (GNU time \`%M\`) the largest. Store requests come from one extra untimed call under
\`strace -f\`: a *get* is an object opened for reading (objects are read whole, so bytes = its size), a
*put* an object linked into place; the plan's puts are checked against its \`objects_written\` and
\`bytes_written\`. \`run show\` (the root manifest only) is the floor of a process that opens the store.

Goals (issue 21), over the sizes ${sizes// /, }:
- planning peak RSS flat across sizes (≤ 10% growth between the two largest) — $flat_plan (MiB by size:$rss_plan);
- verification peak RSS flat — $flat_verify (MiB by size: verify$rss_verify, verify --cases$rss_cases);
- chunk-read peak RSS flat — $flat_chunk (MiB by size:$rss_chunk);
- a chunk read fetches only the batches its case range touches — $only_batches.

| command | wall s | cases/s | peak RSS MiB | store gets / MB | store puts / MB |
|---|---:|---:|---:|---|---|
${plan_table%$'\n'}

The worker: \`vigilo run chunk NAME --index N\` for $chunks chunks per size (the first, the last, the others
drawn with a fixed seed), each printing its cases as JSON lines. Latency is the whole process. RSS over
floor = the chunk read's peak RSS minus \`run show\`'s: the encoded batch bytes plus the parsed values
and the output. *Fetched* is the command's own summary ("N bytes fetched": root manifest, chunk index
and page, dataset manifest, source fields, dataset index page and the batches); the *minimum* is the
sum of the sizes of the batches the chunk's case range overlaps (\`byte_count\` of the batch objects);
*gets* the objects it opened (under strace, untimed).

| cases | chunks read | median ms | p95 ms | peak RSS MiB | RSS over floor MiB | gets (median) | minimum kB (median) | fetched kB (median) | fetched kB (max) | fetched / minimum (median / max) |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${chunk_table%$'\n'}

Where the chunk read that fetched the most at each size got its bytes (objects by kind: gets, total size;
every object is fetched whole, and the summary's bytes equal the opened objects' sizes, which the script
checks for every chunk read):

| cases | objects fetched |
|---:|---|
${kinds_table%$'\n'}

- CPU: $(bench_cpu) ($(nproc) CPUs, shared); load average at start: $load_start, at the end: $load_end
- Date: $(date -u +%Y-%m-%d), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
- Regenerate: \`cmake --build build/release --target vigilo && SIZES="$sizes" RUNS=$runs CHUNKS=$chunks bench/runs.sh\`
  (this run used \`${vigilo#"$root"/}\`; $(strace -V | head -1))
EOF

bench_replace_section "$root/docs/benchmarks.md" runs "$section"
cat "$section"

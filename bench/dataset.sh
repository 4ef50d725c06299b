#!/usr/bin/env bash
# Case storage: `vigilo dataset ingest`, `verify` and `export` against a local
# store on generated datasets of the seed's shape (1k, 100k, 1M cases), with
# the parse+hash floor (`vigilo dataset identity`) and plain passes over the
# same bytes (b3sum, jq -c) as peers. Wall clock, peak RSS, and what reached
# the store. Goals (issue 20): peak RSS flat across sizes and ≤ 96 MiB;
# ingest ≥ 100 MB/s. Rewrites the dataset section of docs/benchmarks.md.
#
#   bench/dataset.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
#   SIZES="1000 100000 1000000"      case counts (default "1000 100000"; 1M is ~315 MB)
#   RUNS=3                           runs per size, fastest wall time, largest RSS
#
# Inputs are generated once, deterministically, into build/bench-data/.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
vigilo=$build/src/cli/vigilo
sizes=${SIZES:-1000 100000}
runs=${RUNS:-3}
data=$root/build/bench-data

[[ -x $vigilo ]] || bench_die "$vigilo not found; build it with: cmake --build $build --target vigilo"
for tool in python3 b3sum jq /usr/bin/time; do
  command -v "$tool" >/dev/null || bench_die "$tool is not installed (scripts/setup)"
done
# Store requests are counted as syscalls when strace is present (optional).
have_strace=0
command -v strace >/dev/null && have_strace=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The generator: bench/data/gen_cases.py (the same bytes for the same N on
# every machine; bump the version in the file name when changing it).

input_for() {
  local file=$data/dataset-v1-$1.json
  if [[ ! -s $file ]]; then
    mkdir -p "$data"
    echo "dataset.sh: generating $file ..." >&2
    python3 "$root/bench/data/gen_cases.py" "$1" >"$file.part"
    mv "$file.part" "$file"
  fi
  echo "$file"
}

# measure VAR OUT CMD...: runs CMD (stdout to OUT) and folds "wall_seconds
# peak_rss_kib" into VAR: the fastest wall time and the largest RSS over runs.
# Wall time from date +%s.%N around GNU time (which reports only 10 ms steps).
measure() {
  local name=$1 out=$2
  shift 2
  local start stop
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$tmp/time" "$@" >"$out" || bench_die "failed: $*"
  stop=$(date +%s.%N)
  printf -v "$name" '%s' "$(awk -v o="${!name:-}" -v a="$start" -v b="$stop" -v rss="$(tail -1 "$tmp/time")" 'BEGIN {
    w = b - a; if (o != "") { split(o, p, " "); if (p[1] < w) w = p[1]; if (p[2] > rss) rss = p[2] }
    printf "%.4f %d", w, rss }')"
}

# strace_store OUT CMD...: the file syscalls CMD makes, as "opens reads writes fsyncs renames".
strace_store() {
  local out=$1
  shift
  strace -f -qq -c -o "$tmp/strace" \
    -e trace=openat,read,pread64,write,pwrite64,fsync,fdatasync,rename,renameat,renameat2,link,linkat \
    "$@" >"$out" 2>/dev/null
  awk '$NF ~ /^(openat|read|pread64|write|pwrite64|fsync|fdatasync|rename|renameat|renameat2|link|linkat)$/ {
      n = $4  # % time, seconds, usecs/call, calls, [errors,] syscall
      if ($NF == "openat") o += n; else if ($NF ~ /read/) r += n; else if ($NF ~ /write/) w += n
      else if ($NF ~ /sync/) s += n; else m += n }
    END { printf "%d %d %d %d %d\n", o, r, w, s, m }' "$tmp/strace"
}

ratio() { awk -v a="${1%% *}" -v b="${2%% *}" 'BEGIN { printf "%.2f", a / b }'; }
fmt() { awk '{ printf "%d / %d / %d / %d / %d", $1, $2, $3, $4, $5 }' <<<"$1"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
mb() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }
row() {  # row LABEL BYTES CASES "wall rss" [RATIO]
  awk -v label="$1" -v n="$2" -v c="$3" -v wr="$4" -v ratio="${5:-}" 'BEGIN {
    split(wr, a, " "); w = a[1]; rss = a[2] / 1024
    printf "| %s | %.3f | %.0f | %.0f | %.0f | %s |\n", label, w, n / 1e6 / w, c / w, rss, ratio }'
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)  # other jobs skew the numbers; record it
table=""
store_table=""
rss_summary=""
rss_ingest="" rss_verify="" rss_export=""  # peak RSS in MiB by size, per command
ingest_summary=""
for n in $sizes; do
  input=$(input_for "$n")
  bytes=$(stat -c %s "$input")
  cat "$input" >/dev/null  # warm the page cache
  echo "dataset.sh: $n cases ($bytes bytes), $runs runs ..." >&2
  t_ingest="" t_verify="" t_export="" t_identity="" t_b3="" t_jq=""  # "wall rss" of each command
  for run in $(seq "$runs"); do
    dir=$tmp/run-$n-$run
    mkdir -p "$dir"
    export VIGILO_CONTROL=$dir/control.db
    measure t_ingest "$dir/ingest.json" "$vigilo" dataset ingest "$input" --store "$dir/store" \
      --name bench --json -q
    measure t_verify "$dir/verify.json" "$vigilo" dataset verify bench --json
    measure t_export /dev/null "$vigilo" dataset export bench -o "$dir/export.json"
    # The export must be the submitted document, or the timings mean nothing.
    hash=$(jq -r .dataset_hash "$dir/ingest.json")
    [[ $(b3sum --no-names "$dir/export.json") == "$hash" ]] || bench_die "export of $n cases does not hash to $hash"
    [[ $(jq -r .verified "$dir/verify.json") == true ]] || bench_die "verify of $n cases failed"
    measure t_identity /dev/null "$vigilo" dataset identity "$input"
    measure t_b3 /dev/null b3sum --num-threads 1 "$input"
    measure t_jq /dev/null jq -c . "$input"
    if [[ $run != "$runs" ]]; then rm -rf "$dir"; fi
  done
  table+="| **$n cases**, $(mb "$bytes") MB | | | | | |"$'\n'
  table+=$(row "vigilo dataset ingest" "$bytes" "$n" "$t_ingest" "$(ratio "$t_ingest" "$t_identity")")$'\n'
  table+=$(row "vigilo dataset verify" "$bytes" "$n" "$t_verify" "$(ratio "$t_verify" "$t_identity")")$'\n'
  table+=$(row "vigilo dataset export -o" "$bytes" "$n" "$t_export" "$(ratio "$t_export" "$t_identity")")$'\n'
  table+=$(row "floor: vigilo dataset identity" "$bytes" "$n" "$t_identity" "1.00")$'\n'
  table+=$(row "ceiling: b3sum --num-threads 1" "$bytes" "$n" "$t_b3" "$(ratio "$t_b3" "$t_identity")")$'\n'
  table+=$(row "peer: jq -c . >/dev/null" "$bytes" "$n" "$t_jq" "$(ratio "$t_jq" "$t_identity")")$'\n'

  # What reached the store, from the last run's ingest record and the directory.
  dir=$tmp/run-$n-$runs
  read -r objects written verified < <(jq -r '"\(.objects_written) \(.bytes_written) \(.verified_bytes)"' "$dir/ingest.json")
  files=$(find "$dir/store" -type f | wc -l)
  file_bytes=$(find "$dir/store" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  sys="| | | |"
  if ((have_strace)); then
    sdir=$tmp/strace-$n
    mkdir -p "$sdir"
    export VIGILO_CONTROL=$sdir/control.db
    s_ingest=$(strace_store "$sdir/ingest.json" "$vigilo" dataset ingest "$input" --store "$sdir/store" --name bench --json -q)
    s_verify=$(strace_store /dev/null "$vigilo" dataset verify bench --json)
    s_export=$(strace_store /dev/null "$vigilo" dataset export bench -o "$sdir/export.json")
    sys="| $(fmt "$s_ingest") | $(fmt "$s_verify") | $(fmt "$s_export") |"
    rm -rf "$sdir"
  fi
  store_table+=$(awk -v n="$n" -v o="$objects" -v w="$written" -v v="$verified" -v f="$files" -v fb="$file_bytes" \
    -v in_b="$bytes" -v sys="$sys" 'BEGIN {
      printf "| %d | %d | %.1f | %.1f | %d | %.1f | %.2f %s\n", n, o, w / 1e6, v / 1e6, f, fb / 1e6, fb / in_b, sys }')$'\n'
  rss_summary+="${t_ingest#* } ${t_verify#* } ${t_export#* } "
  rss_ingest+=" $(mib "${t_ingest#* }")"
  rss_verify+=" $(mib "${t_verify#* }")"
  rss_export+=" $(mib "${t_export#* }")"
  ingest_summary+="$(awk -v n="$bytes" -v w="${t_ingest%% *}" 'BEGIN { printf "%.0f", n / 1e6 / w }') "
  rm -rf "$dir"
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# Goals, judged over every size measured.
read -r rss_min rss_max < <(tr ' ' '\n' <<<"$rss_summary" | awk 'NF { v = $1 / 1024
  if (min == "" || v < min) min = v; if (v > max) max = v } END { printf "%.0f %.0f\n", min, max }')
rss_goal=$(awk -v m="$rss_max" 'BEGIN { print (m <= 96 ? "met" : "**not met**") }')
# Flat: no command's peak RSS grows by more than 10% between the two largest sizes.
flat=$(for series in "$rss_ingest" "$rss_verify" "$rss_export"; do echo "$series"; done | awk '
  NF >= 2 && $NF > 1.10 * $(NF - 1) { grew = 1 } NF < 2 { one = 1 }
  END { print (one ? "not judged (one size)" : grew ? "**not met**" : "met") }')
ingest_max=$(tr ' ' '\n' <<<"$ingest_summary" | awk 'NF && $1 > max { max = $1 } END { print max }')
ingest_goal=$(awk -v m="$ingest_max" 'BEGIN { print (m >= 100 ? "met" : "**not met**") }')
strace_note="Syscall columns are empty: strace is not installed."
if ((have_strace)); then
  strace_note="Syscalls (one extra run under \`strace -f -c\`, not timed): openat / read+pread / write+pwrite /
fsync+fdatasync / rename+link, the whole process (control database included). The local store reads
objects through mmap, so reads of objects show as opens, not reads."
fi

section=$tmp/section.md
cat >"$section" <<EOF
## Case storage (dataset ingest, verify, export; local store)

Generated datasets of the seed's shape (one JSON document, \`dataset_id\`, \`dataset_version\`, a
\`description\`, and N \`generation\` cases with a UUID, an English-ish prompt of 6–29 words, an
expected object, tags and metadata; ~315 bytes per case; \`bench/dataset.sh\` writes them once into
\`build/bench-data/\`), in a warm page cache. Each run ingests into a fresh store directory with its own
control database (default batching: 100 cases, 8 MiB), then verifies and exports the published name
(the export is checked to hash to the \`dataset_hash\`). Peers on the same file: \`vigilo dataset
identity\` (parse + canonical hash of every case: the floor any ingest pays) and \`b3sum --num-threads 1\`
(read + hash the bytes: the I/O ceiling; it maps the file, so its RSS counts the file's pages), \`jq -c .\`
(parse + print; it holds the whole document). Wall clock of the whole process,
fastest of $runs; peak RSS (GNU time \`%M\`) the largest of the runs. MB = 10^6 bytes of the input
file; ×floor = wall time / \`identity\`'s wall time. At 1,000 cases process start-up dominates.

Goals (issue 20), over the sizes ${sizes// /, }:
- peak RSS ≤ 96 MiB — $rss_goal ($rss_min–$rss_max MiB over ingest, verify and export);
- peak RSS flat across sizes (≤ 10% growth between the two largest) — $flat (MiB by size: ingest$rss_ingest,
  verify$rss_verify, export$rss_export);
- ingest ≥ 100 MB/s — $ingest_goal (ingest MB/s by size: ${ingest_summary% }).

| command | wall s | MB/s | cases/s | peak RSS MiB | ×floor |
|---|---:|---:|---:|---:|---:|
${table%$'\n'}

What reached the store (the ingest record's \`objects_written\`, \`bytes_written\`, \`verified_bytes\`,
then the store directory's files). $strace_note

| cases | objects written | MB written | MB read back | files in store | MB in store | store / input | ingest syscalls | verify syscalls | export syscalls |
|---:|---:|---:|---:|---:|---:|---:|---|---|---|
${store_table%$'\n'}

- CPU: $(bench_cpu) ($(nproc) CPUs, shared); load average at start: $load_start, at the end: $load_end
- Date: $(date -u +%Y-%m-%d), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
- Regenerate: \`cmake --build build/release --target vigilo && SIZES="$sizes" RUNS=$runs bench/dataset.sh\`
  (this run used \`${vigilo#"$root"/}\`; $(b3sum --version), $(jq --version))
EOF

bench_replace_section "$root/docs/benchmarks.md" dataset "$section"
cat "$section"

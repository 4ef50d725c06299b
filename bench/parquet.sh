#!/usr/bin/env bash
# Parquet decoding: vigilo's native column-chunk decoder against DuckDB
# reading the same files, on two shapes vigilo publishes:
#
#   vectors  1,000,000 rows of one required LIST<FLOAT> of 100 floats
#   lvq      1,000,000 rows of INT32, FLOAT, FLOAT, 50-byte BYTE_ARRAY
#
# each written twice: by vigilo's writer (ZSTD, 100,000-row row groups) and by
# DuckDB (its default SNAPPY, same row groups). Rewrites only the parquet
# section of docs/benchmarks.md.
#
#   bench/parquet.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
#
# vigilo: wall clock of the whole `parquet_decode FILE --repeat 1` process
# (maps the file, slices every column chunk out of the mapping and decodes
# it), best of 3 after a warm-up, and its own in-process decode-only time:
# the mean of 3 passes after an untimed one, over chunks read into their own
# buffers first (`--pread`), like DuckDB's in-process best of 3 after a
# warm-up. DuckDB: in-process
# time of a query that materialises every value, best of 3 after a warm-up
# (bench/parquet_duckdb.mjs; excludes its start-up), single-threaded and with
# its default thread count.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
decoder=$build/bench/parquet_decode
generator=$build/tests/parquet_interop/parquet_bench_writer
runs=3
rows=1000000

[[ -x $decoder ]] || bench_die "$decoder not found; build it with: cmake --build $build --target parquet_decode"
[[ -x $generator ]] || bench_die "$generator not found; build it with: cmake --build $build --target parquet_bench_writer"
command -v node >/dev/null || bench_die "node is not installed (scripts/setup)"
[[ -d $root/tools/node_modules/@duckdb/node-api ]] || bench_die "tools/node_modules missing; run: (cd tools && npm ci)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
duck() { node "$root/bench/parquet_duckdb.mjs" "$@"; }
declare -A query=(
  [vectors]="SELECT count(*), sum(len(embedding)) FROM read_parquet({file})"
  [lvq]="SELECT sum(id), sum(scale), sum(bias), sum(octet_length(code)) FROM read_parquet({file})"
)

echo "parquet.sh: writing inputs in $tmp ..." >&2
for shape in vectors lvq; do
  "$generator" "$shape" "$rows" "$tmp/$shape-vigilo.parquet" zstd
  duck "$tmp/$shape-vigilo.parquet" \
    "COPY (SELECT * FROM read_parquet({file})) TO '$tmp/$shape-duckdb.parquet' (FORMAT parquet, ROW_GROUP_SIZE 100000)" \
    1 0 >/dev/null
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ms() { awk -v s="$1" 'BEGIN { printf "%.0f", s * 1000 }'; }
mib() { awk -v n="$(stat -c %s "$1")" 'BEGIN { printf "%.0f", n / 1048576 }'; }

load=$(cut -d' ' -f1-3 /proc/loadavg)
table=""
for shape in vectors lvq; do
  for writer in vigilo duckdb; do
    file=$tmp/$shape-$writer.parquet
    cat "$file" >/dev/null  # warm the page cache
    echo "parquet.sh: timing $shape ($writer-written) ..." >&2
    v=$(bench_best_seconds "$runs" "$decoder" "$file" --repeat 1)
    # In-process: mean of $runs decode passes over chunks already in memory.
    vin=$("$decoder" "$file" --repeat "$runs" --warmup 1 --pread | sed -n 's/.* seconds=\([0-9.]*\).*/\1/p')
    vin=$(awk -v s="$vin" -v n="$runs" 'BEGIN { print s / n }')
    d1=$(duck "$file" "${query[$shape]}" 1 "$runs")
    dn=$(duck "$file" "${query[$shape]}" default "$runs")
    table+="| $shape | $writer | $(mib "$file") | $(ms "$v") | $(ms "$vin") | $(ms "$d1") | $(ratio "$d1" "$v") | $(ratio "$d1" "$vin") | $(ms "$dn") | $(ratio "$dn" "$v") |"$'\n'
  done
done

if command -v hyperfine >/dev/null && command -v jq >/dev/null; then timer=$(hyperfine --version); else timer="date +%s.%N"; fi
duck_version=$(node -e "console.log(require('$root/tools/node_modules/@duckdb/node-api/package.json').version)")
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
section=$tmp/section.md
cat >"$section" <<EOF2
## Parquet decode

Decoding every value of 1,000,000-row files (warm page cache). vigilo, single thread: "process" is the
wall clock of the whole \`parquet_decode FILE --repeat 1\` process (start-up, footer, a read-only
\`mmap\` of the file that the chunks are sliced from, one decode of every chunk), best of $runs after a
warm-up (timer: $timer); "decode-only" is its in-process mean over $runs decode passes, after one untimed
pass, of chunks already read into memory (\`--pread\`). DuckDB
(@duckdb/node-api $duck_version): in-process query time, best of $runs after a warm-up, for
\`${query[vectors]}\` (vectors) and \`${query[lvq]}\` (lvq), with \`SET threads = 1\` and with its default
threads ($(nproc) CPUs). Ratio = DuckDB time / vigilo *process* time (above 1: vigilo is faster);
"decode ratio" = DuckDB 1 thread / vigilo decode-only. vectors = one
LIST<FLOAT> of 100 floats per row; lvq = INT32, FLOAT, FLOAT, 50-byte BYTE_ARRAY. "written by" vigilo
= ZSTD, DuckDB = its default SNAPPY; both 100,000-row row groups.

| shape | written by | MiB | vigilo process ms | vigilo decode-only ms | DuckDB 1 thread ms | ratio | decode ratio | DuckDB default threads ms | ratio |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
${table%$'\n'}

- CPU: $(bench_cpu) ($(nproc) CPUs); load average at start: $load
- Date: $(date -u +%Y-%m-%d), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
- Load average at the end: $load_end (the CPUs are shared; a busy machine slows the process column most)
- Regenerate: \`cmake --build build/release --target parquet_decode parquet_bench_writer && bench/parquet.sh\`
  (this run used the binaries in \`${build#"$root"/}\`)
EOF2

bench_replace_section "$root/docs/benchmarks.md" parquet "$section"
cat "$section"

#!/usr/bin/env bash
# Parquet interop with real peers, both directions (see README.md here):
#
#   ours/NAME   vigilo's writer -> DuckDB and hyparquet (values, metadata,
#               statistics, one row group by byte range); tools/interop_read_ours.mjs
#   self/NAME   vigilo's writer -> `vigilo parquet cat` == NAME.expected.jsonl
#   duck/NAME   DuckDB's writer -> `vigilo parquet cat` == DuckDB's own reading
#   edge/NAME   edge files of DuckDB and hyparquet-writer (NULL fixed-size
#               arrays, 0 rows) -> `vigilo parquet cat` == the peer's reading
#
#   tests/parquet_interop/run.sh BUILD_DIR
#
# Needs node on PATH and tools/node_modules (scripts/setup runs npm ci).
# Prints one PASS/FAIL line per file and check; exits 1 on any failure.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$1
[[ $build == /* ]] || build=$PWD/$build
vigilo=$build/src/cli/vigilo
fixture_writer=$build/tests/parquet_interop/parquet_fixture_writer

die() { echo "FAIL parquet_interop: $*"; exit 1; }
command -v node >/dev/null || die "node is not on PATH (scripts/setup installs nodejs)"
[[ -d $root/tools/node_modules/@duckdb/node-api && -d $root/tools/node_modules/hyparquet ]] ||
  die "tools/node_modules is missing; run: (cd tools && npm ci)"
[[ -x $vigilo ]] || die "$vigilo not built"
[[ -x $fixture_writer ]] || die "$fixture_writer not built"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
passed=0
count() { if [[ $1 -eq 0 ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi; }

# cat_check LABEL FILE EXPECTED: `vigilo parquet cat` must print EXPECTED exactly.
cat_check() {
  local label=$1 file=$2 expected=$3 got=$tmp/got.jsonl
  if ! "$vigilo" parquet cat "$file" >"$got" 2>"$tmp/err"; then
    echo "FAIL $label: vigilo parquet cat failed: $(head -c 400 "$tmp/err")"
    count 1
  elif cmp -s "$got" "$expected"; then
    echo "PASS $label"
    count 0
  else
    local line
    line=$(cmp "$got" "$expected" 2>&1 | sed -n 's/.* line \([0-9]*\).*/\1/p')
    line=${line:-1}
    echo "FAIL $label: first difference at line $line"
    echo "    got:  $(sed -n "${line}p" "$got" | head -c 400)"
    echo "    want: $(sed -n "${line}p" "$expected" | head -c 400)"
    count 1
  fi
}

# 1. Our files, read by the peers.
mkdir -p "$tmp/ours" "$tmp/duck"
"$fixture_writer" "$tmp/ours" >/dev/null || die "parquet_fixture_writer failed"
node "$root/tools/interop_read_ours.mjs" "$tmp/ours" >"$tmp/ours.log" 2>&1
rc=$?
grep -E '^(PASS|FAIL|    )' "$tmp/ours.log"
passed=$((passed + $(grep -c '^PASS' "$tmp/ours.log")))
failed=$((failed + $(grep -c '^FAIL' "$tmp/ours.log")))
if [[ $rc -ne 0 ]] && ! grep -q '^FAIL' "$tmp/ours.log"; then
  echo "FAIL ours: interop_read_ours.mjs exited $rc"
  tail -n 20 "$tmp/ours.log"
  count 1
fi

# 2. Our files, read by our own reader.
for expected in "$tmp"/ours/*.expected.jsonl; do
  name=$(basename "$expected" .expected.jsonl)
  cat_check "self/$name vigilo-cat" "$tmp/ours/$name.parquet" "$expected"
done

# 3. DuckDB's files, read by our reader.
if node "$root/tools/interop_duckdb_writes.mjs" "$tmp/duck" >"$tmp/duck.log" 2>&1; then
  for expected in "$tmp"/duck/*.expected.jsonl; do
    name=$(basename "$expected" .expected.jsonl)
    cat_check "duck/$name vigilo-cat" "$tmp/duck/$name.parquet" "$expected"
  done
else
  echo "FAIL duck: interop_duckdb_writes.mjs failed"
  tail -n 20 "$tmp/duck.log"
  count 1
fi

# 4. Edge files of mainstream writers (peer_edge_writes.mjs), read by our reader.
if node "$root/tests/parquet_interop/peer_edge_writes.mjs" "$tmp/edge" >"$tmp/edge.log" 2>&1; then
  for expected in "$tmp"/edge/*.expected.jsonl; do
    name=$(basename "$expected" .expected.jsonl)
    cat_check "edge/$name vigilo-cat" "$tmp/edge/$name.parquet" "$expected"
  done
else
  echo "FAIL edge: peer_edge_writes.mjs failed"
  tail -n 20 "$tmp/edge.log"
  count 1
fi

echo "parquet_interop: $passed passed, $failed failed"
[[ $failed -eq 0 ]]

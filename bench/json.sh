#!/usr/bin/env bash
# Canonical JSON throughput: `vigilo json canon --lines` against the serde_json
# oracle's `canon-lines` on the same JSON Lines corpora, whole processes, best
# of 3. Goal: vigilo ≥ 2× the oracle. Rewrites the json section of
# docs/benchmarks.md.
#
#   bench/json.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
vigilo=$build/src/cli/vigilo
gen=$build/tests/json_gen
oracle=$("$root/scripts/build-json-oracle")
runs=3
[[ -x $vigilo && -x $gen ]] || bench_die "build first: cmake --build $build"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" 200000 1 dataset >"$tmp/dataset.jsonl"
"$gen" 300000 1 adversarial >"$tmp/adversarial.jsonl"

rows=""
for corpus in dataset adversarial; do
  input=$tmp/$corpus.jsonl
  cat "$input" >/dev/null
  # Same bytes out, or the comparison means nothing.
  "$oracle" canon-lines <"$input" >"$tmp/o"
  "$vigilo" json canon --lines "$input" >"$tmp/v"
  cmp -s "$tmp/o" "$tmp/v" || bench_die "outputs differ on $corpus"
  bytes=$(wc -c <"$input")
  t_oracle=$(bench_best_seconds_stdin "$runs" "$input" "$oracle" canon-lines)
  t_vigilo=$(bench_best_seconds_stdin "$runs" "$input" "$vigilo" json canon --lines)
  row=$(awk -v n="$bytes" -v o="$t_oracle" -v v="$t_vigilo" -v name="$corpus" 'BEGIN {
    r = o / v; printf "| %s | %.1f | %.0f | %.0f | %.2f | %s |", name, n / 1e6, n / 1e6 / o, n / 1e6 / v, r,
      (r >= 2 ? "yes" : "**no**") }')
  rows+="$row"$'\n'
done

section=$tmp/section.md
cat >"$section" <<EOF
## Canonical JSON (parse + canonical write, JSON Lines)

\`vigilo json canon --lines\` vs the serde_json 1.0.87 oracle (\`json-oracle canon-lines\`, roundtrip
build) on the same file, reading stdin and writing canonical lines; wall clock of the whole process, best
of $runs. Both outputs are checked byte-identical first. Goal: ratio ≥ 2.

- *dataset*: 200,000 evaluation-case objects as users submit them (English prompts, UUIDs, tags,
  scores; keys out of order, spaces).
- *adversarial*: 300,000 random documents from the differential-test generator (deep nesting, every
  escape, astral characters, extreme numbers): short strings, little plain text.

| corpus | MB | oracle MB/s | vigilo MB/s | ratio | goal met |
|---|---:|---:|---:|---:|:---:|
${rows%$'\n'}

- CPU: $(bench_cpu) ($(nproc) CPUs); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)
- Date: $(date -u +%Y-%m-%d), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
- Regenerate: \`cmake --build build/release && bench/json.sh\`
EOF
bench_replace_section "$root/docs/benchmarks.md" json "$section"
cat "$section"

#!/usr/bin/env bash
# Differential test: vigilo's canonical JSON must be byte-identical to the
# serde_json oracle's (`json-oracle canon-lines`, roundtrip build) on COUNT
# random documents.
# usage: json_oracle_diff.sh VIGILO JSON_GEN ORACLE [COUNT] [SEED]
set -euo pipefail
vigilo=$1 gen=$2 oracle=$3 count=${4:-100000} seed=${5:-20261202}
if [ ! -x "$oracle" ]; then
  echo "json oracle not found at $oracle (scripts/build-json-oracle builds it)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$gen" "$count" "$seed" > "$work/in.jsonl"
"$oracle" canon-lines < "$work/in.jsonl" > "$work/oracle.jsonl"
"$vigilo" json canon --lines "$work/in.jsonl" > "$work/vigilo.jsonl"
lines=$(wc -l < "$work/in.jsonl")
if ! cmp -s "$work/oracle.jsonl" "$work/vigilo.jsonl"; then
  n=$(cmp "$work/oracle.jsonl" "$work/vigilo.jsonl" | sed -n 's/.* line \([0-9]*\).*/\1/p')
  echo "MISMATCH at line ${n:-?} of $lines" >&2
  echo "input:  $(sed -n "${n:-1}p" "$work/in.jsonl")" >&2
  echo "oracle: $(sed -n "${n:-1}p" "$work/oracle.jsonl")" >&2
  echo "vigilo: $(sed -n "${n:-1}p" "$work/vigilo.jsonl")" >&2
  exit 1
fi
echo "json differential: $lines documents ($(wc -c < "$work/in.jsonl") bytes), canonical bytes identical to the oracle"

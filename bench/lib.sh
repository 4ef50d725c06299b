# Shared helpers for bench/*.sh (sourced, not run). Each script times real
# processes the same way and rewrites only its own section of
# docs/benchmarks.md, between <!-- bench:NAME:begin --> and <!-- bench:NAME:end -->.

bench_die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# bench_best_seconds RUNS CMD...: fastest wall-clock time of CMD (stdout
# discarded) over RUNS runs after one warm-up, via hyperfine when present.
bench_best_seconds() {
  local runs=$1
  shift
  if command -v hyperfine >/dev/null && command -v jq >/dev/null; then
    local json cmd
    json=$(mktemp)
    # Quoted for bash, so arguments with spaces or quotes survive (hyperfine
    # subtracts the shell's own start-up time).
    cmd=$(printf '%q ' "$@")
    hyperfine --shell=bash --warmup 1 --runs "$runs" --style none --export-json "$json" "$cmd" >/dev/null
    jq -r '.results[0].min' "$json"
    rm -f "$json"
    return
  fi
  "$@" >/dev/null
  local best="" start stop
  for _ in $(seq "$runs"); do
    start=$(date +%s.%N)
    "$@" >/dev/null
    stop=$(date +%s.%N)
    best=$(awk -v a="$start" -v b="$stop" -v best="$best" 'BEGIN { t = b - a; if (best == "" || t < best) best = t; print best }')
  done
  echo "$best"
}

# bench_best_seconds_stdin RUNS INPUT CMD...: as above, with INPUT on stdin.
bench_best_seconds_stdin() {
  local runs=$1 input=$2
  shift 2
  bench_best_seconds "$runs" bash -c "exec \"\$@\" < '$input'" _ "$@"
}

bench_cpu() { grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*:[[:space:]]*//'; }

# bench_replace_section DOC NAME SECTION_FILE: puts SECTION_FILE between the
# markers for NAME in DOC, creating the file or the markers if missing.
bench_replace_section() {
  local doc=$1 name=$2 section=$3
  local begin="<!-- bench:$name:begin -->" end="<!-- bench:$name:end -->"
  mkdir -p "$(dirname "$doc")"
  [[ -f $doc ]] || printf '# Benchmarks\n' >"$doc"
  if ! grep -qxF "$begin" "$doc"; then
    printf '\n%s\n%s\n' "$begin" "$end" >>"$doc"
  elif ! grep -qxF "$end" "$doc"; then
    bench_die "$doc has '$begin' but no '$end'; fix the file by hand"
  fi
  local out
  out=$(mktemp)
  awk -v begin="$begin" -v end="$end" -v section="$section" '
    $0 == begin { print; while ((getline line < section) > 0) print line; skip = 1; next }
    $0 == end { skip = 0 }
    !skip { print }
  ' "$doc" >"$out"
  mv "$out" "$doc"
}

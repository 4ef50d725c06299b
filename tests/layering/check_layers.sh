#!/usr/bin/env bash
# The layering rule of docs/architecture.md, checked on every source file:
# a layer includes only its own headers and those of layers below it, and no
# code outside src/store (and common/file.cc, the one local open) opens,
# maps or streams a file by itself. Usage: check_layers.sh SOURCE_DIR
set -euo pipefail
root=${1:?usage: check_layers.sh SOURCE_DIR}
cd "$root"

declare -A rank=([common]=0 [json]=1 [hash]=1 [parquet]=2 [store]=3 [control]=4
                 [ivf]=5 [cases]=5 [engine]=6 [cli]=7 [web]=7 [python]=7)
failures=0

for dir in src/* include/vigilo/*; do
  [ -d "$dir" ] || continue
  layer=${dir##*/}
  [ -n "${rank[$layer]:-}" ] || { echo "unknown layer folder: $dir"; failures=$((failures + 1)); continue; }
  while IFS=: read -r file _ line; do
    dep=$(sed -E 's|.*#include "vigilo/([a-z_]+)/.*|\1|' <<<"$line")
    [ "$dep" = "$layer" ] && continue
    if [ -z "${rank[$dep]:-}" ] || [ "${rank[$dep]}" -ge "${rank[$layer]}" ]; then
      echo "$file: layer '$layer' must not include layer '$dep': $line"
      failures=$((failures + 1))
    fi
  done < <(grep -rn --include='*.h' --include='*.cc' '#include "vigilo/' "$dir" || true)
done

# Object bytes are read and written only through the ObjectStore seam. The
# allowed opens: the seam's backends, the one OpenRegularFile helper (input
# files; mapping a descriptor it opened is fine), the builder's scratch spill
# files and the external sort's scratch runs (neither is an object),
# parquet::FileSink (a Parquet file at a path the user chose, not an object),
# the ingestion's copy of standard input (a scratch file, not an object),
# and test code writing its fixtures.
allowed='^(src/store/|src/common/file\.cc|src/engine/input_spool\.cc|src/ivf/builder_spill\.cc|src/common/external_sort\.cc|src/parquet/byte_sink\.cc)'
while IFS= read -r hit; do
  file=${hit%%:*}
  [[ $file =~ $allowed ]] && continue
  [[ $file =~ _test\.cc$|_test_support\.h$|test_[a-z_]*\.(cc|h)$ ]] && continue
  echo "$hit: opens a file outside the store seam (use an ObjectStore, or OpenRegularFile for input files)"
  failures=$((failures + 1))
done < <(grep -rnE '::open\(|[^a-z_.]fopen\(|std::(i|o)?fstream' src include --include='*.cc' --include='*.h' || true)

# The edge reads the environment; nothing below it may (engine::Settings
# takes a lookup function), so a second Context in one process can differ.
while IFS= read -r hit; do
  file=${hit%%:*}
  [[ $file =~ ^src/cli/ ]] && continue
  [[ $file =~ _test\.cc$|_test_support\.h$|test_[a-z_]*\.(cc|h)$ ]] && continue
  echo "$hit: reads the environment below the edge (take an engine::Settings value instead)"
  failures=$((failures + 1))
done < <(grep -rnE 'std::getenv|[^a-z_]getenv\(' src include --include='*.cc' --include='*.h' | grep -v '^[^:]*:[0-9]*: *//' || true)

# Library errors name settings (`nlist`), never flags (--nlist): the CLI
# renders settings as its flags, a binding as its own spelling. A string
# literal below the edge that holds a flag fails here.
while IFS= read -r hit; do
  file=${hit%%:*}
  [[ $file =~ ^src/(cli|web)/ ]] && continue
  [[ $file =~ _test\.cc$|_test_support\.h$|test_[a-z_]*\.(cc|h)$ ]] && continue
  echo "$hit: a library message names a flag (write the setting as \`name\`; docs/errors.md)"
  failures=$((failures + 1))
done < <(grep -rnE '"([^"\\]|\\.)*--[a-z]' src include --include='*.cc' --include='*.h' | grep -vE '^[^:]*:[0-9]*: *//' || true)

# The command line composes through the engine: it names no control backend
# (SQLite is the engine's Context's business, PostgreSQL will be too).
while IFS= read -r hit; do
  echo "$hit: the CLI opens control state through engine::Context, not a backend"
  failures=$((failures + 1))
done < <(grep -rnE '#include (["<]sqlite3\.h[">]|"vigilo/control/sqlite_)' src/cli || true)

# The target graph (docs/architecture.md, "Targets"). The sans-IO targets,
# vigilo_read_core and vigilo_parquet_read, link only each other, vigilo_json
# and vigilo_common (and the page codecs), never a store, hash, thread, BLAS,
# TLS or HTTP library; OpenBLAS and threads come in only with vigilo_ivf_build;
# the WebAssembly build links those targets and lists no layer's sources.
flat() { tr '\n' ' ' <"$1" | tr -s ' '; }
sans_io_deps='^(vigilo_parquet_read|vigilo_json|vigilo_common)$'
for spec in src/ivf/read_core.cmake:vigilo_read_core src/parquet/CMakeLists.txt:vigilo_parquet_read; do
  file=${spec%%:*}
  target=${spec#*:}
  call=$(flat "$file" | grep -oE "vigilo_library\( ?$target [^)]*\)" || true)
  if [ -z "$call" ]; then
    echo "$file: no vigilo_library($target …) found"
    failures=$((failures + 1))
    continue
  fi
  for dep in $(sed -E 's/.*DEPS ([^)]*)\)/\1/' <<<"$call"); do
    [[ $dep =~ $sans_io_deps && $dep != "$target" ]] && continue
    echo "$file: $target (sans-IO) must not link $dep"
    failures=$((failures + 1))
  done
  while IFS= read -r hit; do
    echo "$file: $target (sans-IO) must link no I/O, thread or crypto library: $hit"
    failures=$((failures + 1))
  done < <(flat "$file" | grep -oE "target_link_libraries\( ?$target [^)]*\)" |
           grep -E 'OpenSSL|Threads|OPENBLAS|openblas|CURL|SQLite|vigilo_(store|hash|control|ivf_|parquet )' || true)
done
while IFS= read -r hit; do
  [[ $hit =~ target_link_libraries\(\ ?vigilo_ivf_build\  ]] && continue
  echo "src/ivf: only vigilo_ivf_build links OpenBLAS or threads: $hit"
  failures=$((failures + 1))
done < <(cat src/ivf/*.cmake src/ivf/CMakeLists.txt | tr '\n' ' ' | tr -s ' ' |
         grep -oE 'target_link_libraries\( ?[a-z_]+ [^)]*(OPENBLAS|Threads::Threads)[^)]*\)' || true)
while IFS= read -r hit; do
  echo "src/web/CMakeLists.txt: the WebAssembly build links the layers' targets, it does not list their sources: $hit"
  failures=$((failures + 1))
done < <(grep -nE '(src/(common|json|hash|parquet|store|ivf|cases|engine)/|\$\{VIGILO_ROOT\}/src/[a-z]+/)[a-z0-9_]+\.(cc|c)\b' \
           src/web/CMakeLists.txt | grep -vE 'set_source_files_properties|^[0-9]+: *#' || true)

if [ "$failures" -gt 0 ]; then
  echo "layering: $failures violation(s)"
  exit 1
fi
echo "layering: ok"

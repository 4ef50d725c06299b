#!/usr/bin/env bash
# The read core stays sans-IO (docs/format/wasm.md): vigilo_read_core's link
# line names no OpenBLAS, OpenSSL, pthread/Threads or curl, nor the ivf targets
# above it or the whole parquet layer (only vigilo_parquet_read), and its sources
# (with every project header they reach) include no header that opens files
# or sockets, starts threads, or belongs to the store, hash or build-input code.
# Usage: read_core_deps.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
fail=0

# 1. The link line of read_core_link_check, which links vigilo_read_core alone.
ninja_file="$build/build.ninja"
if [[ ! -f "$ninja_file" ]]; then
  echo "read_core_deps: $ninja_file not found (a Ninja build is needed)" >&2
  exit 1
fi
link=$(grep -A8 -E '^build [^ ]*read_core_link_check: ' "$ninja_file" | grep -m1 'LINK_LIBRARIES' || true)
if [[ -z "$link" ]]; then
  echo "read_core_deps: no link line for read_core_link_check in $ninja_file" >&2
  exit 1
fi
for bad in openblas libssl libcrypto -lssl -lcrypto pthread Threads curl vigilo_ivf vigilo_store vigilo_hash \
           libvigilo_parquet.a; do
  if grep -q -- "$bad" <<<"$link"; then
    echo "read_core_deps: vigilo_read_core's link line names $bad: $link" >&2
    fail=1
  fi
done

# 2. Includes, followed through the project's own headers.
mapfile -t sources < <(sed -n 's|.*\${CMAKE_CURRENT_LIST_DIR}/\([a-z0-9_]*\.cc\).*|src/ivf/\1|p' \
  "$src/src/ivf/read_core.cmake")
if (( ${#sources[@]} < 8 )); then
  echo "read_core_deps: could not read the source list of src/ivf/read_core.cmake" >&2
  exit 1
fi
declare -A seen=()
queue=()
for s in "${sources[@]}"; do queue+=("$src/$s"); done
forbidden='^#include [<"](thread|mutex|condition_variable|future|fstream|pthread\.h|unistd\.h|fcntl\.h|sys/mman\.h|sys/socket\.h|netdb\.h|curl/.*|openssl/.*|cblas\.h|openblas.*|vigilo/store/.*|vigilo/hash/.*|vigilo/ivf/input\.h|vigilo/ivf/query\.h|vigilo/ivf/source_lookup\.h|vigilo/ivf/publication_check\.h|vigilo/common/file\.h|vigilo/parquet/local_file\.h)[>"]'
while (( ${#queue[@]} )); do
  f=${queue[0]}
  queue=("${queue[@]:1}")
  [[ -n "${seen[$f]:-}" ]] && continue
  seen[$f]=1
  if [[ ! -f "$f" ]]; then
    echo "read_core_deps: missing $f" >&2
    fail=1
    continue
  fi
  if hits=$(grep -nE "$forbidden" "$f"); then
    echo "read_core_deps: ${f#"$src"/} includes what the read core must not: $hits" >&2
    fail=1
  fi
  while read -r inc; do
    if [[ "$inc" == vigilo/* ]]; then
      queue+=("$src/include/$inc")
    elif [[ -f "$(dirname "$f")/$inc" ]]; then
      queue+=("$(dirname "$f")/$inc")
    fi
  done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
if (( fail == 0 )); then
  echo "read_core_deps: ok (${#seen[@]} files checked; link: ${link#*= })"
fi
exit $fail

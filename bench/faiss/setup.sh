#!/usr/bin/env bash
# bench/faiss/setup.sh: the FAISS peer of the IVF benchmarks, built once and cached
# under ${VIGILO_BENCH_CACHE:-$HOME/.cache/vigilo/bench}/faiss (idempotent: every step
# is skipped when its output exists; delete a file or folder to redo it).
#
#   1. Debian's libfaiss-dev (1.7.3, static, compiled "OPTIMIZE GENERIC": no AVX2)
#      and libopenblas-dev, installed with apt when missing (as scripts/setup does).
#   2. An AVX2 FAISS from Debian's own source package (`apt-get source faiss`; a
#      deb-src entry is added under /etc/apt/sources.list.d/ only if none exists),
#      cmake -DFAISS_OPT_LEVEL=avx2, target faiss_avx2 (~4 minutes on 2 cores).
#   3. bench/faiss/ivf_sq8_build.cc compiled twice:
#        bin/ivf_sq8_build_generic   against Debian's /usr/lib/x86_64-linux-gnu/libfaiss.a
#        bin/ivf_sq8_build_avx2      against the AVX2 libfaiss_avx2.a, -mavx2 -mfma
#   4. with --search: bench/faiss/ivf_search.cc (bench/ivf_query.sh) compiled the same
#      two ways, bin/ivf_search_generic and bin/ivf_search_avx2.
#
#   bench/faiss/setup.sh [--search]
#
# Prints the two ivf_sq8_build binaries' paths on the last two lines (stdout), or
# with --search the two ivf_search binaries' paths; everything else on stderr.
#
# Environment: VIGILO_BENCH_CACHE; JOBS (make parallelism for the FAISS build,
# default 1 — the machine is shared; JOBS=2 when nothing else builds).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
search=0
case "${1:-}" in
  "") ;;
  --search) search=1 ;;
  *) echo "usage: bench/faiss/setup.sh [--search]" >&2; exit 2 ;;
esac
cache=${VIGILO_BENCH_CACHE:-$HOME/.cache/vigilo/bench}/faiss
jobs=${JOBS:-1}
mkdir -p "$cache/bin"
log() { echo "faiss/setup.sh: $*" >&2; }

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
apt_updated=0
apt_update() { if [ $apt_updated = 0 ]; then $SUDO apt-get update -qq >&2; apt_updated=1; fi; }

# --- 1. Debian packages ---
packages=(libfaiss-dev libopenblas-dev dpkg-dev cmake g++ libomp-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
faiss_version=$(dpkg-query -W -f='${Version}' libfaiss-dev)
generic_lib=$(dpkg -L libfaiss-dev | grep '/libfaiss\.a$' || true)
generic_lib=${generic_lib%%$'\n'*}
[ -n "$generic_lib" ] || { log "libfaiss-dev has no libfaiss.a"; exit 1; }

# --- 2. AVX2 FAISS from the Debian source package ---
avx2_lib=$cache/build-avx2/faiss/libfaiss_avx2.a
src_dir=""
find_src() {
  src_dir=""
  [ -d "$cache/src" ] || return 0
  src_dir=$(find "$cache/src" -mindepth 1 -maxdepth 1 -type d -name 'faiss-*' | sort | tail -n1)
}
find_src
if [ -z "$src_dir" ]; then
  has_deb_src() {
    grep -rqsE '^[[:space:]]*(deb-src[[:space:]]|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/
  }
  if ! has_deb_src; then
    log "adding a deb-src entry: /etc/apt/sources.list.d/vigilo-deb-src.sources"
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    $SUDO tee /etc/apt/sources.list.d/vigilo-deb-src.sources >/dev/null <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt_updated=0
  fi
  apt_update
  tmp=$(mktemp -d "$cache/.src.XXXXXX")
  log "apt-get source faiss=$faiss_version (into $cache/src)"
  # The same version as the installed binary package, so both peers share their sources.
  (cd "$tmp" && apt-get source -qq "faiss=${faiss_version%+b*}" >&2 || apt-get source -qq faiss >&2)
  rm -rf "$cache/src" && mkdir -p "$cache/src"
  for d in "$tmp"/faiss-*/; do mv "$d" "$cache/src/"; done
  rm -rf "$tmp"
  find_src
  [ -n "$src_dir" ] || { log "apt-get source faiss gave no faiss-* folder"; exit 1; }
fi

if [ ! -s "$avx2_lib" ]; then
  log "building faiss_avx2 from $src_dir (nice -n 10, -j$jobs; ~4 minutes with -j2)"
  rm -rf "$cache/build-avx2"
  nice -n 10 cmake -S "$src_dir" -B "$cache/build-avx2" -DCMAKE_BUILD_TYPE=Release \
    -DFAISS_OPT_LEVEL=avx2 -DFAISS_ENABLE_GPU=OFF -DFAISS_ENABLE_PYTHON=OFF -DFAISS_ENABLE_C_API=OFF \
    -DBUILD_TESTING=OFF -DBUILD_SHARED_LIBS=OFF -DBLA_VENDOR=OpenBLAS >&2
  start=$(date +%s)
  nice -n 10 cmake --build "$cache/build-avx2" --target faiss_avx2 -j "$jobs" >&2
  log "faiss_avx2 built in $(($(date +%s) - start)) s"
fi

# --- 3. The benchmark binary, once per FAISS build ---
# Rebuilt when the source is newer than the binary.
cxxflags=(-std=c++17 -O2 -DNDEBUG -fopenmp)
generic_bin=$cache/bin/ivf_sq8_build_generic
avx2_bin=$cache/bin/ivf_sq8_build_avx2
if [ ! -x "$generic_bin" ] || [ "$here/ivf_sq8_build.cc" -nt "$generic_bin" ]; then
  log "compiling $generic_bin (Debian libfaiss $faiss_version, generic)"
  g++ "${cxxflags[@]}" -DVIGILO_FAISS_FLAVOUR='"debian-generic"' "$here/ivf_sq8_build.cc" \
    "$generic_lib" -lopenblas -o "$generic_bin.tmp"
  mv "$generic_bin.tmp" "$generic_bin"
fi
if [ ! -x "$avx2_bin" ] || [ "$here/ivf_sq8_build.cc" -nt "$avx2_bin" ]; then
  log "compiling $avx2_bin (FAISS from source, AVX2)"
  g++ "${cxxflags[@]}" -mavx2 -mfma -mf16c -mpopcnt -DVIGILO_FAISS_FLAVOUR='"source-avx2"' \
    -I"$src_dir" "$here/ivf_sq8_build.cc" "$avx2_lib" -lopenblas -o "$avx2_bin.tmp"
  mv "$avx2_bin.tmp" "$avx2_bin"
fi
if [ $search = 1 ]; then
  # --- 4. The query benchmark binary, the same two ways ---
  search_generic=$cache/bin/ivf_search_generic
  search_avx2=$cache/bin/ivf_search_avx2
  if [ ! -x "$search_generic" ] || [ "$here/ivf_search.cc" -nt "$search_generic" ]; then
    log "compiling $search_generic (Debian libfaiss $faiss_version, generic)"
    g++ "${cxxflags[@]}" -DVIGILO_FAISS_FLAVOUR='"debian-generic"' "$here/ivf_search.cc" \
      "$generic_lib" -lopenblas -o "$search_generic.tmp"
    mv "$search_generic.tmp" "$search_generic"
  fi
  if [ ! -x "$search_avx2" ] || [ "$here/ivf_search.cc" -nt "$search_avx2" ]; then
    log "compiling $search_avx2 (FAISS from source, AVX2)"
    g++ "${cxxflags[@]}" -mavx2 -mfma -mf16c -mpopcnt -DVIGILO_FAISS_FLAVOUR='"source-avx2"' \
      -I"$src_dir" "$here/ivf_search.cc" "$avx2_lib" -lopenblas -o "$search_avx2.tmp"
    mv "$search_avx2.tmp" "$search_avx2"
  fi
  echo "$search_generic"
  echo "$search_avx2"
else
  echo "$generic_bin"
  echo "$avx2_bin"
fi

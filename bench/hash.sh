#!/usr/bin/env bash
# Single-threaded hashing throughput of vigilo against the usual command-line
# tools, on one 256 MiB file of random bytes in a warm page cache. Rewrites
# only the hash section of docs/benchmarks.md.
#
#   bench/hash.sh [BUILD_DIR]     BUILD_DIR defaults to build/release
#
# Every tool, ours included, is timed the same way: wall clock of a whole
# process (hyperfine if installed, else date +%s.%N), best of 3 after a warm-up.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/bench/lib.sh"
build=${1:-build/release}
[[ $build == /* ]] || build=$root/$build
bin=$build/bench/hash_throughput
runs=3

[[ -x $bin ]] || bench_die "$bin not found; build it with: cmake --build $build --target hash_throughput"
for tool in b3sum sha256sum; do
  command -v "$tool" >/dev/null || bench_die "$tool is not installed"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
input=$tmp/input.bin
bytes=$((256 << 20))
head -c "$bytes" /dev/urandom >"$input"
cat "$input" >/dev/null  # warm the page cache

mibps() { awk -v s="$1" -v n="$bytes" 'BEGIN { printf "%.0f", n / 1048576 / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { awk -v r="$1" 'BEGIN { print (r >= 0.95 ? "yes" : "**no**") }'; }

load=$(cut -d' ' -f1-3 /proc/loadavg)  # other jobs skew the numbers; record it
echo "hash.sh: timing on $input ..." >&2
v_b3=$(mibps "$(bench_best_seconds "$runs" "$bin" --algo blake3 --runs 1 "$input")")
p_b3=$(mibps "$(bench_best_seconds "$runs" b3sum --num-threads 1 "$input")")
# b3sum mmaps files by default; reading with read(2) can be faster (page faults).
p_b3r=$(mibps "$(bench_best_seconds "$runs" b3sum --num-threads 1 --no-mmap "$input")")
v_sha=$(mibps "$(bench_best_seconds "$runs" "$bin" --algo sha256 --runs 1 "$input")")
p_sha=$(mibps "$(bench_best_seconds "$runs" sha256sum "$input")")
# For reference: in-process timings (no process start-up), file and memory.
in_file=$("$bin" --runs "$runs" "$input")
in_mem=$("$bin" --runs "$runs")
field() { awk -v algo="$1" '$1 == algo { printf "%.0f", $2 }' <<<"$2"; }

r_b3=$(ratio "$v_b3" "$p_b3")
r_b3r=$(ratio "$v_b3" "$p_b3r")
r_sha=$(ratio "$v_sha" "$p_sha")
cpu=$(bench_cpu)
flags=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'sse4_1|avx2|avx512f|sha_ni' | tr '\n' ' ')
# Mirrors bench_best_seconds' choice of timer.
if command -v hyperfine >/dev/null && command -v jq >/dev/null; then timer=$(hyperfine --version); else timer="date +%s.%N"; fi

section=$tmp/section.md
cat >"$section" <<EOF
## Hashing (single thread)

256 MiB of random bytes in a warm page cache; wall clock of the whole process,
best of $runs after a warm-up (timer: $timer). Goal: vigilo/peer ≥ 0.95.
vigilo reads with read(2) and hashes with OpenSSL (SHA-NI where present);
coreutils sha256sum uses its own portable C, so that row is not like for like.

| tool | MiB/s | ratio vigilo/peer | goal met |
|---|---:|---:|:---:|
| vigilo BLAKE3 (\`hash_throughput --algo blake3 FILE\`) | $v_b3 | | |
| \`b3sum --num-threads 1 FILE\` ($(b3sum --version)) | $p_b3 | $r_b3 | $(verdict "$r_b3") |
| \`b3sum --num-threads 1 --no-mmap FILE\` | $p_b3r | $r_b3r | $(verdict "$r_b3r") |
| vigilo SHA-256 (\`hash_throughput --algo sha256 FILE\`) | $v_sha | | |
| \`sha256sum FILE\` ($(sha256sum --version | head -1)) | $p_sha | $r_sha | $(verdict "$r_sha") |

In-process, best of $runs: \`DigestFile\` (read(2) in 1 MiB chunks) BLAKE3
$(field blake3 "$in_file") MiB/s, SHA-256 $(field sha256 "$in_file") MiB/s; hashing a 256 MiB
buffer already in memory BLAKE3 $(field blake3 "$in_mem") MiB/s, SHA-256 $(field sha256 "$in_mem") MiB/s.

- CPU: $cpu ($(nproc) CPUs; flags: ${flags% }); load average at start: $load
- Date: $(date -u +%Y-%m-%d), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
- Regenerate: \`cmake --build build/release --target hash_throughput && bench/hash.sh\`
  (this run used the binary in \`${build#"$root"/}\`)
EOF

bench_replace_section "$root/docs/benchmarks.md" hash "$section"
cat "$section"

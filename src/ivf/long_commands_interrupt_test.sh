#!/usr/bin/env bash
# SIGINT and SIGTERM on the long index commands besides the build's passes
# (docs/errors.md, "Signals"; issue 34): `index eval` computing its ground
# truth over --base, and `index build` inside k-means training (which now
# checks the cancel token itself), each stop with `cancelled`'s exit status
# (10), the message naming the signal, and nothing left (no cached .npy, no
# output directory). The training case must stop promptly: its 100,000 Lloyd
# iterations would otherwise take hours. Usage:
#   long_commands_interrupt_test.sh VIGILO WORK_DIR
set -euo pipefail
vigilo=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work"
export VIGILO_CONTROL=$work/control.sqlite3
export XDG_CACHE_HOME=$work/cache
fail() { echo "long_commands_interrupt_test: $*" >&2; exit 1; }

# 40,000 base and 3,000 query vectors of 32 random bytes (.bvecs).
python3 - <<'PY'
import random, struct
random.seed(11)
d = 32
head = struct.pack('<i', d)
for name, n in (('base.bvecs', 40000), ('queries.bvecs', 3000)):
    data = random.randbytes(n * d)
    with open(name, 'wb') as f:
        f.write(b''.join(head + data[i * d:(i + 1) * d] for i in range(n)))
PY
"$vigilo" index build base.bvecs --metric l2_squared --out pub --quiet >/dev/null 2>build.stderr ||
  fail "the build failed: $(cat build.stderr)"

# Waits for $pid after sending it $1, at most $2 seconds; sets $status and $waited (seconds).
stop() {
  local sig=$1 limit=$2 start
  start=$(date +%s.%N)
  kill -s "$sig" "$pid"
  for _ in $(seq 1 $((limit * 100))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  kill -0 "$pid" 2>/dev/null && { kill -s KILL "$pid"; fail "SIG$sig: still running ${limit} s after the signal"; }
  status=0
  wait "$pid" || status=$?
  waited=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$start" "$(date +%s.%N)")
}

# index eval --base: the exact search over 40,000 × 3,000 takes several seconds.
"$vigilo" index eval pub --queries queries.bvecs --base base.bvecs --nprobe 1 --warmup 0 --quiet \
  >eval.stdout 2>eval.stderr &
pid=$!
sleep 1
kill -0 "$pid" 2>/dev/null || fail "eval ended before the signal: $(cat eval.stderr)"
stop INT 30
[[ $status == 10 ]] || fail "eval: exit status $status, expected 10: $(cat eval.stderr)"
grep -q "^vigilo: SIGINT: cancelling" eval.stderr || fail "eval: no notice of the signal: $(cat eval.stderr)"
grep -q "^vigilo: cancelled: interrupted by SIGINT; no result was printed, and nothing was written" eval.stderr ||
  fail "eval: no cancellation message: $(cat eval.stderr)"
[[ ! -s eval.stdout ]] || fail "eval: printed a result: $(head -3 eval.stdout)"
left=$(find cache -type f 2>/dev/null | head -3 | tr '\n' ' ')
[[ -z "$left" ]] || fail "eval: left a ground-truth file: $left"
echo "eval: SIGINT → exit 10 after ${waited} s, nothing cached"

# index build with 100,000 k-means iterations: SIGTERM lands in training.
"$vigilo" index build base.bvecs --metric l2_squared --iterations 100000 --out train --quiet \
  >train.stdout 2>train.stderr &
pid=$!
sleep 1.5
kill -0 "$pid" 2>/dev/null || fail "the training build ended before the signal: $(cat train.stderr)"
stop TERM 30
[[ $status == 10 ]] || fail "training: exit status $status, expected 10: $(cat train.stderr)"
grep -q "^vigilo: cancelled: interrupted by SIGTERM; nothing was published" train.stderr ||
  fail "training: no cancellation message: $(cat train.stderr)"
[[ ! -e train ]] || fail "training: the build left $(find train | head -5 | tr '\n' ' ')"
echo "training: SIGTERM → exit 10 after ${waited} s, nothing left"
echo "long_commands_interrupt_test: ok"

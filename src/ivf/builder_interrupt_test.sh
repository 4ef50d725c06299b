#!/usr/bin/env bash
# A build stopped by SIGINT or SIGTERM, and one killed with SIGKILL
# (docs/format/ivf-build.md, "Interrupted and killed builds"): the signals
# cancel with a message and `cancelled`'s exit status (10, docs/errors.md)
# and leave nothing; after SIGKILL the rerun removes what the dead build
# left, and the published directory holds exactly the files its manifest
# names. Usage: builder_interrupt_test.sh VIGILO WORK_DIR
set -euo pipefail
vigilo=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "builder_interrupt_test: $*" >&2; exit 1; }

# 300,000 random 32-byte vectors (.bvecs): a build of a few seconds.
python3 - <<'PY'
import random, struct
random.seed(7)
n, d = 300000, 32
head = struct.pack('<i', d)
data = random.randbytes(n * d)
with open('v.bvecs', 'wb') as f:
    f.write(b''.join(head + data[i * d:(i + 1) * d] for i in range(n)))
PY

# Starts a build into $1 in the background (its pid in $pid) and waits until
# it has its scratch directory: the assign pass has begun. Up to 180 s: an
# ASan build on a busy 2-core machine takes far longer to get there than a
# release build (the wait ends as soon as the directory appears).
start_build() {
  "$vigilo" index build v.bvecs --out "$1" --quiet >"$1.stdout" 2>"$1.stderr" &
  pid=$!
  local deadline=$((SECONDS + 180))
  while ((SECONDS < deadline)); do
    compgen -G "$1/.vigilo-build-*" >/dev/null && return
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
  done
  fail "the build into $1 never made its scratch directory: $(cat "$1.stderr")"
}

# Every file below $1 is one its manifest names, and manifest.json.
only_named_files() {
  python3 - "$1" <<'PY'
import json, os, sys
root = sys.argv[1]
named = {'manifest.json'}
def walk(v):
    if isinstance(v, dict):
        if isinstance(v.get('path'), str): named.add(v['path'])
        for x in v.values(): walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
walk(json.load(open(os.path.join(root, 'manifest.json'))))
found = {os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs}
extra = sorted(found - named)
if extra:
    sys.exit('files the manifest does not name: ' + ', '.join(extra))
PY
}

for sig in INT TERM; do
  start_build "out-$sig"
  kill -s "$sig" "$pid"
  status=0
  wait "$pid" || status=$?
  [[ $status == 10 ]] || fail "SIG$sig: exit status $status, expected 10: $(cat "out-$sig.stderr")"
  grep -q "^vigilo: cancelled: interrupted by SIG$sig; nothing was published" "out-$sig.stderr" ||
    fail "SIG$sig: no cancellation message: $(cat "out-$sig.stderr")"
  [[ ! -e "out-$sig" ]] || fail "SIG$sig: the build left $(find "out-$sig" | head -5 | tr '\n' ' ')"
done

# SIGKILL: the scratch directory stays, and so would the local store's
# temporaries; the rerun removes both (a dead one of each is planted, with
# the pid of a process that has exited) but leaves a live build's alone.
start_build out-KILL
kill -s KILL "$pid"
wait "$pid" 2>/dev/null || true
compgen -G "out-KILL/.vigilo-build-*" >/dev/null || fail "SIGKILL: no scratch directory left to clean"
sh -c 'exit 0' &
dead=$!
wait "$dead"
mkdir -p out-KILL/ivf_postings
touch "out-KILL/.centroids.parquet.tmp-$dead-0123abcd" "out-KILL/ivf_postings/.x.parquet.tmp-$dead-ff00"
mkdir "out-KILL/.vigilo-build-$dead-7"
touch "out-KILL/.keep.parquet.tmp-$$-00ff"   # this shell is alive: a running build's
"$vigilo" index build v.bvecs --out out-KILL --quiet >/dev/null 2>out-KILL.rerun ||
  fail "SIGKILL: the rerun failed: $(cat out-KILL.rerun)"
[[ -e "out-KILL/.keep.parquet.tmp-$$-00ff" ]] || fail "SIGKILL: the rerun removed a live process's temporary"
rm "out-KILL/.keep.parquet.tmp-$$-00ff"
dots=$(find out-KILL -name '.*' | head -5 | tr '\n' ' ')
[[ -z "$dots" ]] || fail "SIGKILL: the rerun left hidden entries: $dots"
only_named_files out-KILL || fail "SIGKILL: after the rerun: $(find out-KILL -name '.*' | head -5 | tr '\n' ' ')"
echo "builder_interrupt_test: ok (SIGINT, SIGTERM: exit 10, nothing left; SIGKILL: the rerun left only what the manifest names)"

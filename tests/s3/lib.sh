# The harness the tests/s3/*.sh suites share (sourced, not run): a scratch
# directory, one private Ceph RGW (scripts/ceph-rgw) stopped with it on exit,
# optionally a tests/s3/fault_proxy.mjs in front of RGW, and PASS/FAIL lines
# ending in "SUITE: N checks passed[, M failed]".
#
#   SUITE="s3 faults"; . "$here/lib.sh"; s3_rgw_up; …; finish
#
# After s3_rgw_up: endpoint, region, bucket, access_key, secret_key,
# credentials and stores from the RGW's rgw.env; VIGILO_STORES names its
# stores config (alias "rgw"), and the control database, caches and XDG
# directories are the scratch directory's.

: "${SUITE:?set SUITE before sourcing tests/s3/lib.sh}"
s3_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$s3_here/../.." && pwd)
rgw=$root/scripts/ceph-rgw

tmp=$(mktemp -d)
proxy_pid=""
s3_cleanup() {
  [[ -n $proxy_pid ]] && kill "$proxy_pid" 2>/dev/null
  bash "$rgw" down "$tmp/rgw" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap s3_cleanup EXIT

passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
finish() {
  if [[ $failed -eq 0 ]]; then echo "$SUITE: $passed checks passed"; exit 0; fi
  echo "$SUITE: $passed checks passed, $failed failed"; exit 1
}
check() {  # check NAME COMMAND...: pass when the command succeeds (its output in $tmp/check.out)
  local name=$1; shift
  if "$@" >"$tmp/check.out" 2>&1; then pass "$name"; else fail "$name: $(tail -c 400 "$tmp/check.out")"; fi
}
expect() {  # expect NAME CONDITION-COMMAND...: pass when the condition holds
  local name=$1; shift
  if "$@"; then pass "$name"; else fail "$name"; fi
}

s3_rgw_up() {  # starts the suite's RGW and points vigilo at it; a failure ends the suite
  local start=$SECONDS
  bash "$rgw" up "$tmp/rgw" $$ >"$tmp/rgw.env" 2>"$tmp/rgw.err" || { fail "rgw: $(tail -c 600 "$tmp/rgw.err")"; finish; }
  echo "rgw up in $((SECONDS - start)) s"
  # shellcheck disable=SC1091
  . "$tmp/rgw.env"
  export VIGILO_STORES=$stores VIGILO_CONTROL=$tmp/control.sqlite3 VIGILO_CACHE=off
  export XDG_DATA_HOME=$tmp/xdg XDG_CACHE_HOME=$tmp/xdg-cache
}

# start_proxy MODE: a fault_proxy.mjs (storm | writes | puts=N) in front of
# RGW; $tmp/stores.cut.json is the stores config with an alias "cut" through it.
start_proxy() {
  : >"$tmp/proxy.port"
  node "$s3_here/fault_proxy.mjs" "${endpoint##*:}" "$1" >"$tmp/proxy.port" 2>"$tmp/proxy.err" &
  proxy_pid=$!
  for _ in $(seq 1 100); do [[ -s $tmp/proxy.port ]] && break; sleep 0.05; done
  jq --arg e "http://127.0.0.1:$(cat "$tmp/proxy.port")" '.stores.cut = (.stores.rgw | .backend.endpoint = $e)' \
    "$stores" >"$tmp/stores.cut.json"
}
stop_proxy() { kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null; proxy_pid=""; }

#!/usr/bin/env bash
# A throwaway single-node Ceph RGW (S3) on loopback for tests: one mon, one
# memstore OSD and radosgw, all under BASE, started as this script's children
# in the foreground (never a system service) and stopped by their PIDs.
# Recipe and quirks: ../shared/notes/ceph-rgw-trial.md (Ceph 16.2, Debian 12;
# `scripts/setup` installs the packages).
#
#   rgw.sh up BASE [OWNER_PID]   start; prints endpoint=, region=, bucket=,
#                                access_key=, secret_key= lines (also in
#                                BASE/rgw.env). With OWNER_PID, a watchdog
#                                stops the cluster once that process is gone.
#   rgw.sh down BASE             stop the daemons by PID, remove BASE.
#
# The S3 user's keys are random per cluster; the bucket "vigilo" exists.
set -euo pipefail

usage() { echo "usage: rgw.sh up BASE [OWNER_PID] | rgw.sh down BASE" >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1
BASE=$2

alive() { [ -r "/proc/$1/status" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }

down() {
  [ -d "$BASE" ] || return 0
  local pids="" p
  if [ -f "$BASE/pids" ]; then
    # rgw and osd first (the osd shuts down quickly only with a live mon).
    for p in $(tac "$BASE/pids"); do
      # Guard against PID reuse: only processes started with this BASE's conf.
      { tr '\0' ' ' < "/proc/$p/cmdline"; } 2>/dev/null | grep -qF "$BASE/ceph.conf" && pids="$pids $p"
    done
  fi
  [ -f "$BASE/watchdog.pid" ] && kill "$(cat "$BASE/watchdog.pid")" 2>/dev/null || true
  if [ -n "$pids" ]; then
    kill -9 $pids 2>/dev/null || true
    for p in $pids; do while alive "$p"; do sleep 0.05; done; done
  fi
  rm -rf "$BASE"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
  local p
  for _ in $(seq 1 100); do
    p=$((20000 + RANDOM % 40000))
    port_free "$p" && { echo "$p"; return; }
  done
  echo "rgw.sh: no free loopback port" >&2; exit 1
}

up() {
  local owner=${1:-}
  for tool in monmaptool ceph-mon ceph-osd radosgw radosgw-admin ceph curl; do
    command -v "$tool" >/dev/null || { echo "rgw.sh: $tool is not installed (run scripts/setup)" >&2; exit 1; }
  done
  mkdir -p "$BASE"; BASE=$(cd "$BASE" && pwd)
  [ -e "$BASE/ceph.conf" ] && { echo "rgw.sh: $BASE is in use; run rgw.sh down first" >&2; exit 1; }
  mkdir -p "$BASE"/{run,log,mon,osd,rgw}
  local fsid mon_port rgw_port conf
  fsid=$(cat /proc/sys/kernel/random/uuid)
  mon_port=$(free_port); rgw_port=$(free_port)
  conf=$BASE/ceph.conf
  cat > "$conf" <<CONF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$mon_port]
mon initial members = a
public addr = 127.0.0.1
ms bind msgr1 = false
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
run dir = $BASE/run
admin socket = $BASE/run/\$name.asok
pid file = $BASE/run/\$name.pid
log file = $BASE/log/\$name.log
mon cluster log file = $BASE/log/\$cluster.\$channel.log
mon data = $BASE/mon/\$id
osd data = $BASE/osd/\$id
keyring = $BASE/keyring
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon warn on insecure global id reclaim allowed = false
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon max pg per osd = 1000
osd crush chooseleaf type = 0
osd crush initial weight = 1
osd objectstore = memstore
memstore device bytes = 2147483648
osd max object name len = 256
osd max object namespace len = 64
mon osd full ratio = 0.97
mon osd backfillfull ratio = 0.96
mon osd nearfull ratio = 0.95
mon data avail warn = 2
mon data avail crit = 1

[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $BASE/rgw
rgw dns name = 127.0.0.1
# radosgw defaults ms_mon_client_mode to "secure", which cannot work with auth=none
ms mon client mode = crc
rgw thread pool size = 64
CONF
  : > "$BASE/keyring"
  : > "$BASE/pids"
  export CEPH_CONF=$conf
  # Every daemon runs in the foreground as a child of this script's
  # subshell, so its PID is known; stdout/stderr go to BASE/log.
  start() {  # start NAME ARGS...
    local name=$1; shift
    "$@" > "$BASE/log/$name.out" 2>&1 < /dev/null &
    echo $! >> "$BASE/pids"
  }
  # On failure the daemons are killed and BASE (with its logs) is kept.
  fail() {
    echo "rgw.sh: $1 (logs in $BASE/log)" >&2
    tail -n 5 "$BASE"/log/*.out >&2 2>/dev/null || true
    local p; for p in $(tac "$BASE/pids"); do kill -9 "$p" 2>/dev/null || true; done
    exit 1
  }
  trap 'fail "a step failed at line $LINENO"' ERR

  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$BASE/monmap" >/dev/null
  ceph-mon -c "$conf" -i a --mkfs --monmap "$BASE/monmap" > "$BASE/log/mon-mkfs.out" 2>&1
  start mon ceph-mon -c "$conf" -i a -f
  timeout 60 ceph -c "$conf" mon stat > /dev/null 2>&1 || fail "the monitor did not answer"

  local osd_uuid osd_id
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  osd_id=$(ceph -c "$conf" osd new "$osd_uuid" 2>/dev/null) || fail "osd new failed"
  mkdir -p "$BASE/osd/$osd_id"
  ceph-osd -c "$conf" -i "$osd_id" --mkfs --osd-uuid "$osd_uuid" > "$BASE/log/osd-mkfs.out" 2>&1 || fail "osd mkfs failed"
  start osd ceph-osd -c "$conf" -i "$osd_id" -f
  local i
  for i in $(seq 1 120); do
    ceph -c "$conf" osd stat 2>/dev/null | grep -q " 1 up" && break; sleep 0.5
  done
  ceph -c "$conf" osd stat 2>/dev/null | grep -q " 1 up" || fail "the osd did not come up"

  start rgw radosgw -c "$conf" -n client.rgw.a -f
  for i in $(seq 1 240); do
    curl -s -o /dev/null "http://127.0.0.1:$rgw_port/" && break; sleep 0.5
  done
  curl -sf -o /dev/null "http://127.0.0.1:$rgw_port/" || fail "radosgw did not answer"

  local access secret
  access=VIGILO$(od -An -tx1 -N7 /dev/urandom | tr -d ' \n' | tr 'a-f' 'A-F')
  secret=$(od -An -tx1 -N20 /dev/urandom | tr -d ' \n')
  radosgw-admin -c "$conf" user create --uid=vigilo --display-name=vigilo \
    --access-key="$access" --secret-key="$secret" > /dev/null 2>&1 || fail "user create failed"
  # libcurl 7.88 signs a payload hash only when given one (x-amz-content-sha256), and RGW requires it.
  curl -sf -o /dev/null -X PUT --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access:$secret" \
    -H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" \
    "http://127.0.0.1:$rgw_port/vigilo" || fail "bucket create failed"

  if [ -n "$owner" ]; then
    # Stops the cluster once the owner is gone, even if it never calls down.
    # Its own session, so that a signal to this script's process group
    # does not take it along.
    setsid bash "$0" watch "$BASE" "$owner" > /dev/null 2>&1 < /dev/null &
  fi
  umask 077
  cat > "$BASE/rgw.env" <<ENV
endpoint=http://127.0.0.1:$rgw_port
region=us-east-1
bucket=vigilo
access_key=$access
secret_key=$secret
ENV
  cat "$BASE/rgw.env"
}

# The watchdog: waits for OWNER to end (a zombie counts as ended), then
# stops the cluster.
watch() {
  local owner=$1
  echo $$ > "$BASE/watchdog.pid"
  while alive "$owner"; do sleep 1; done
  rm -f "$BASE/watchdog.pid"
  down
}

case "$cmd" in
  up) up "${3:-}" ;;
  watch) watch "$3" ;;
  down) down ;;
  *) usage ;;
esac

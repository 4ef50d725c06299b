#!/usr/bin/env bash
# Every `vigilo index` command over HTTP prints exactly what it prints for the
# local publication: a tiny publication (with a source table) is built, served
# by a private nginx (own config and prefix in a temp dir, a free loopback
# port, `daemon off`, stopped by its PID), and each command runs on the local
# manifest.json and on its http:// URL. nginx's access log is the independent
# witness: only GETs, no HEAD, every Range a single explicit `bytes=a-b`.
#
#   tests/http/run.sh VIGILO_BIN
#
# Prints PASS/FAIL lines, then `http reading: N checks passed` (exit 0) or
# `http reading: N checks passed, M failed` (exit 1).
set -uo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 VIGILO_BIN" >&2; exit 2; }
vigilo=$1
[[ $vigilo == /* ]] || vigilo=$PWD/$vigilo
export VIGILO_CACHE=off  # every check reads cold and nothing lands in ~/.cache; cache.sh turns it on
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $nginx_bin ]] || { echo "FAIL http: nginx is not installed (scripts/setup installs it)"; exit 1; }

tmp=$(mktemp -d)
nginx_pid=
cleanup() {
  [[ -n $nginx_pid ]] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
finish() {
  if [[ $failed -eq 0 ]]; then echo "http reading: $passed checks passed"; exit 0; fi
  echo "http reading: $passed checks passed, $failed failed"; exit 1
}

# 1,500 vectors of d = 8 in 5 clusters, and 4 queries: deterministic.
perl -e '
  srand(7);
  open(my $f, ">", $ARGV[0]) or die; binmode $f;
  for my $i (0 .. 1499) { print $f pack("l<f<8", 8, map { ($i % 5) * 3 + rand() } 1 .. 8) }
  open(my $q, ">", $ARGV[1]) or die;
  for my $i (0 .. 3) { print $q "[" . join(",", map { sprintf("%.3f", $i * 3 + rand()) } 1 .. 8) . "]\n" }
' "$tmp/in.fvecs" "$tmp/q.jsonl"
mkdir -p "$tmp/www"
"$vigilo" index build --input "$tmp/in.fvecs" --metric l2_squared --encoding lvq8 --nlist 16 --source \
  --out "$tmp/www/pub" -q >"$tmp/build.out" 2>&1 || { fail "index build: $(tail -c 400 "$tmp/build.out")"; finish; }

# nginx on a free port: retried if another process takes the port first.
mkdir -p "$tmp/nginx/tmp"
for attempt in 1 2 3 4 5; do
  port=$(perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0")->sockport')
  cat >"$tmp/nginx/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events { worker_connections 64; }
http {
  log_format vigilo '\$request_method \$request_uri "\$http_range" \$status \$body_bytes_sent';
  access_log $tmp/nginx/access.log vigilo;
  client_body_temp_path $tmp/nginx/tmp/body;
  proxy_temp_path $tmp/nginx/tmp/proxy;
  fastcgi_temp_path $tmp/nginx/tmp/fastcgi;
  uwsgi_temp_path $tmp/nginx/tmp/uwsgi;
  scgi_temp_path $tmp/nginx/tmp/scgi;
  default_type application/octet-stream;
  types { }
  server { listen 127.0.0.1:$port; root $tmp/www; location / { } }
}
CONF
  "$nginx_bin" -p "$tmp/nginx/" -c "$tmp/nginx/nginx.conf" -e "$tmp/nginx/error.log" >"$tmp/nginx/out" 2>&1 &
  nginx_pid=$!
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$nginx_pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -0 "$nginx_pid" 2>/dev/null && break
  wait "$nginx_pid" 2>/dev/null
  nginx_pid=
done
[[ -n $nginx_pid ]] || { fail "nginx did not start: $(cat "$tmp/nginx/error.log" "$tmp/nginx/out" | tail -c 400)"; finish; }

local_manifest=$tmp/www/pub/manifest.json
url=http://127.0.0.1:$port/pub/manifest.json
# same NAME ARGS...: `vigilo ARGS` with the local manifest, then with the URL, in place of MANIFEST.
same() {
  local name=$1
  shift
  local a=() b=() x
  for x in "$@"; do
    if [[ $x == MANIFEST ]]; then a+=("$local_manifest"); b+=("$url"); else a+=("$x"); b+=("$x"); fi
  done
  "$vigilo" "${a[@]}" >"$tmp/local.out" 2>&1
  local rl=$?
  "$vigilo" "${b[@]}" >"$tmp/http.out" 2>&1
  local rh=$?
  if [[ $rl -eq 0 && $rh -eq 0 ]] && cmp -s "$tmp/local.out" "$tmp/http.out"; then
    pass "$name: identical over HTTP"
  else
    fail "$name: exit $rl locally, $rh over HTTP; $(diff "$tmp/local.out" "$tmp/http.out" | head -c 400)"
  fi
}
same "query" index query MANIFEST --queries "$tmp/q.jsonl" -k 5 --nprobe 4
same "query --json" index query MANIFEST --queries "$tmp/q.jsonl" -k 5 --json
same "query --nprobe 16 (every list)" index query MANIFEST --queries "$tmp/q.jsonl" -k 3 --nprobe 16
same "query --columns (source payload lookup)" index query MANIFEST --queries "$tmp/q.jsonl" -k 3 --columns vector
same "inspect" index inspect MANIFEST
same "validate" index validate MANIFEST
same "validate --deep" index validate --deep MANIFEST
same "verify" index verify MANIFEST

# index eval over HTTP: the same recall and bytes per query (its timings differ) as the local
# publication read in place (held in memory, the default, it would fetch no row group).
XDG_CACHE_HOME=$tmp/xdg-eval "$vigilo" index eval "$local_manifest" --queries "$tmp/q.jsonl" --base "$tmp/in.fvecs" \
  --resident-max-bytes 0 --nprobe 2,16 --json -q 2>"$tmp/eval.err" | jq -c '{nprobe, recall, bytes_per_query, requests_per_query}' >"$tmp/eval-local.out"
XDG_CACHE_HOME=$tmp/xdg-eval "$vigilo" index eval "$url" --queries "$tmp/q.jsonl" --base "$tmp/in.fvecs" \
  --nprobe 2,16 --json -q 2>>"$tmp/eval.err" | jq -c '{nprobe, recall, bytes_per_query, requests_per_query}' >"$tmp/eval-http.out"
if [[ $(wc -l <"$tmp/eval-local.out") == 2 ]] && cmp -s "$tmp/eval-local.out" "$tmp/eval-http.out"; then
  pass "eval: the same recall and bytes per query over HTTP"
else
  fail "eval: $(diff "$tmp/eval-local.out" "$tmp/eval-http.out" | head -c 400) $(head -c 300 "$tmp/eval.err")"
fi

# The base URL stands for its manifest.json.
"$vigilo" index query "http://127.0.0.1:$port/pub/" --queries "$tmp/q.jsonl" -k 5 --nprobe 4 >"$tmp/base.out" 2>&1
"$vigilo" index query "$local_manifest" --queries "$tmp/q.jsonl" -k 5 --nprobe 4 >"$tmp/local.out" 2>&1
cmp -s "$tmp/base.out" "$tmp/local.out" && pass "base URL reads manifest.json" || fail "base URL: $(head -c 300 "$tmp/base.out")"
# Without its trailing '/' it is the same directory (issue 34: no GET of /pub
# that nginx would answer with a redirect to /pub/).
"$vigilo" index query "http://127.0.0.1:$port/pub" --queries "$tmp/q.jsonl" -k 5 --nprobe 4 >"$tmp/noslash.out" 2>&1
cmp -s "$tmp/noslash.out" "$tmp/local.out" && pass "base URL without its '/' reads manifest.json" ||
  fail "base URL without '/': $(head -c 300 "$tmp/noslash.out")"

# A missing publication: not_found naming the key, never the URL.
"$vigilo" index query "http://127.0.0.1:$port/none/manifest.json" --vector '[0,0,0,0,0,0,0,0]' >"$tmp/missing.out" 2>&1
rc=$?
if [[ $rc -ne 0 ]] && grep -q '^vigilo: not_found: manifest.json: HTTP 404$' "$tmp/missing.out" &&
   ! grep -q 127.0.0.1 "$tmp/missing.out"; then
  pass "missing manifest: not_found naming the key only"
else
  fail "missing manifest: exit $rc: $(head -c 300 "$tmp/missing.out")"
fi

# A copy whose manifest states another size for a postings file: the server's
# Content-Range total disagrees, an integrity_error naming the object, never an answer.
cp -r "$tmp/www/pub" "$tmp/www/tampered"
perl -0pi -e 's/("path":"ivf_postings\/cid_bucket=000000\/part-000000\.parquet","rows":[0-9]+,"sha256":"[0-9a-f]+","size":)([0-9]+)/$1 . ($2 + 1)/e' \
  "$tmp/www/tampered/manifest.json"
if cmp -s "$tmp/www/pub/manifest.json" "$tmp/www/tampered/manifest.json"; then
  fail "tampered manifest: the size edit did not apply"
else
  "$vigilo" index query "http://127.0.0.1:$port/tampered/manifest.json" --queries "$tmp/q.jsonl" -k 5 --nprobe 16 \
    >"$tmp/tampered.out" 2>&1
  rc=$?
  if [[ $rc -ne 0 ]] && grep -q '^vigilo: integrity_error: ivf_postings/cid_bucket=000000/part-000000.parquet: ' "$tmp/tampered.out" &&
     ! grep -q 127.0.0.1 "$tmp/tampered.out"; then
    pass "changed size in the manifest: integrity_error naming the object"
  else
    fail "changed size in the manifest: exit $rc: $(head -c 300 "$tmp/tampered.out")"
  fi
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/http/tampered.sh
source "$here/tampered.sh"
# shellcheck source=tests/http/stats.sh
source "$here/stats.sh"
# shellcheck source=tests/http/cache.sh
source "$here/cache.sh"
# shellcheck source=tests/http/text.sh
source "$here/text.sh"

log=$tmp/nginx/access.log
total=$(wc -l <"$log")
[[ $total -gt 0 ]] && pass "nginx logged $total requests" || fail "nginx logged no request"
bad=$(grep -v '^GET ' "$log" | head -3)
[[ -z $bad ]] && pass "only GET requests (no HEAD)" || fail "non-GET requests: $bad"
bad=$(grep -v -E '^GET [^ ]+ "(-|bytes=[0-9]+-[0-9]+)" ' "$log" | head -3)
[[ -z $bad ]] && pass "every Range a single explicit bytes=a-b" || fail "other Range forms: $bad"
bad=$(grep -E '"bytes=[0-9]+-[0-9]+" ' "$log" | grep -v -E '" 206 ' | head -3)
[[ -z $bad ]] && pass "every ranged request answered 206" || fail "ranged requests not answered 206: $bad"
finish

# Sourced by tests/http/run.sh (uses its $vigilo, $tmp, $port, pass, fail):
# publications whose manifest or objects were changed on the server. Each
# command must fail with its specific error (code, object path, message) and
# print nothing else — never an answer — or, where the bytes read are intact,
# print exactly the untampered local answer.

postings=ivf_postings/cid_bucket=000000/part-000000.parquet
postings_size=$(stat -c %s "$tmp/www/pub/$postings")

# expect_error NAME EXPECTED VIGILO_ARGS...: exit 6 (integrity) and the whole output is the one line EXPECTED.
expect_error() {
  local name=$1 expected=$2
  shift 2
  "$vigilo" "$@" >"$tmp/err.out" 2>&1
  local rc=$?
  if [[ $rc -eq 6 && "$(cat "$tmp/err.out")" == "$expected" ]]; then
    pass "$name"
  else
    fail "$name: exit $rc, wanted 6 and '$expected'; got: $(head -c 400 "$tmp/err.out")"
  fi
}

# copy_publication NAME: www/NAME, a copy of the test publication.
copy_publication() { rm -rf "$tmp/www/$1" && cp -r "$tmp/www/pub" "$tmp/www/$1"; }

# adopt_manifest NAME: sets the manifest's artifact-uuid to the one derived
# from its (edited) content, as a careful forger would, so the edit itself is
# what the reader must catch.
adopt_manifest() {
  local derived
  derived=$("$vigilo" index verify "$tmp/www/$1/manifest.json" 2>&1 |
    sed -n "s/.*is not the UUID derived from the manifest's content (\([0-9a-f-]*\)).*/\1/p")
  [[ -n $derived ]] || { fail "$1: no derived artifact-uuid to adopt"; return 1; }
  perl -pi -e "s/\"artifact-uuid\":\"[0-9a-f-]+\"/\"artifact-uuid\":\"$derived\"/" "$tmp/www/$1/manifest.json"
}

# edit_postings_entry NAME MEMBER PERL_EXPR: rewrites MEMBER ("size" or
# "sha256") of $postings' manifest entry; $v is its current value.
edit_postings_entry() {
  local name=$1 member=$2 expr=$3
  local quoted=${postings//\//\\/}
  perl -0pi -e "s/(\"path\":\"$quoted\"[^}]*\"$member\":\"?)([0-9a-f]+)/my \$v = \$2; \$1 . ($expr)/e" \
    "$tmp/www/$name/manifest.json"
  if cmp -s "$tmp/www/pub/manifest.json" "$tmp/www/$name/manifest.json"; then
    fail "$name: the $member edit did not apply"
    return 1
  fi
}

url_of() { echo "http://127.0.0.1:$port/$1/manifest.json"; }
query_args=(--queries "$tmp/q.jsonl" -k 5 --nprobe 16)

# The edited manifest as it was left (artifact-uuid not re-derived): verify names the manifest.
copy_publication uuid-stale
if edit_postings_entry uuid-stale size '$v + 1'; then
  "$vigilo" index verify "$(url_of uuid-stale)" >"$tmp/err.out" 2>&1
  rc=$?
  if [[ $rc -eq 6 ]] && grep -q -E "^vigilo: integrity_error: manifest.json: \\\$.artifact-uuid: artifact-uuid [0-9a-f-]+ is not the UUID derived from the manifest's content \([0-9a-f-]+\): the manifest was changed after it was built$" "$tmp/err.out" &&
     [[ $(wc -l <"$tmp/err.out") -eq 1 ]]; then
    pass "edited manifest, stale artifact-uuid: verify names manifest.json's artifact-uuid"
  else
    fail "edited manifest, stale artifact-uuid: exit $rc: $(head -c 400 "$tmp/err.out")"
  fi
fi

# (a) A postings object's size changed (artifact-uuid re-derived): the
# server's Content-Range total disagrees with the manifest.
copy_publication sized
if edit_postings_entry sized size '$v + 1' && adopt_manifest sized; then
  want="vigilo: integrity_error: $postings: object is $postings_size bytes, expected $((postings_size + 1))"
  expect_error "size changed: query over HTTP" "$want" index query "$(url_of sized)" "${query_args[@]}"
  expect_error "size changed: verify over HTTP" "$want" index verify "$(url_of sized)"
  expect_error "size changed: verify --quick over HTTP" "$want" index verify --quick "$(url_of sized)"
fi

# (b) Its SHA-256 changed (artifact-uuid re-derived): verify reads the whole
# object and names the mismatch. The query reads this small postings file
# whole too (its footer read takes all of it), so it checks the same digest
# and refuses rather than answer from bytes the manifest does not name
# (issue 34; a file read in ranges is guarded by its footer and row checks).
copy_publication digest
if edit_postings_entry digest sha256 '(substr($v, 0, 1) eq "0" ? "1" : "0") . substr($v, 1)' && adopt_manifest digest; then
  actual=$(sha256sum "$tmp/www/pub/$postings" | cut -d' ' -f1)
  stated=$(grep -o "\"path\":\"$postings\"[^}]*" "$tmp/www/digest/manifest.json" |
    sed 's/.*"sha256":"\([0-9a-f]*\)".*/\1/')
  [[ $stated != "$actual" && ${#stated} -eq 64 ]] || fail "digest: the manifest's digest is '$stated'"
  expect_error "digest changed: verify over HTTP" \
    "vigilo: integrity_error: $postings: SHA-256 $actual does not match the manifest's $stated" \
    index verify "$(url_of digest)"
  expect_error "digest changed: query over HTTP refuses the whole object it read" \
    "vigilo: integrity_error: $postings: sha256 of the object is $actual, expected $stated (the manifest names another object of this size)" \
    index query "$(url_of digest)" "${query_args[@]}"
fi

# (c) The object truncated on the server (manifest untouched).
copy_publication truncated
truncate -s $((postings_size - 10)) "$tmp/www/truncated/$postings"
want="vigilo: integrity_error: $postings: object is $((postings_size - 10)) bytes, expected $postings_size"
expect_error "truncated on the server: query over HTTP" "$want" index query "$(url_of truncated)" "${query_args[@]}"
expect_error "truncated on the server: verify over HTTP" "$want" index verify "$(url_of truncated)"

# (d) A byte of the object flipped on the server (same size, manifest
# untouched): the last byte before the footer, the last row's last code byte
# (any value is a valid LVQ code), so only verify's digest check can name it.
copy_publication flipped
perl -e 'open(my $f, "+<", $ARGV[0]) or die; binmode $f; my $size = -s $f;
         seek($f, $size - 8, 0); read($f, my $len, 4); my $at = $size - 8 - unpack("V", $len) - 1;
         seek($f, $at, 0); read($f, my $b, 1); seek($f, $at, 0); print $f chr(ord($b) ^ 0x01); close $f' \
  "$tmp/www/flipped/$postings"
expect_error "byte flipped on the server: verify over HTTP" \
  "vigilo: integrity_error: $postings: SHA-256 $(sha256sum "$tmp/www/flipped/$postings" | cut -d' ' -f1) does not match the manifest's $(sha256sum "$tmp/www/pub/$postings" | cut -d' ' -f1)" \
  index verify "$(url_of flipped)"

# Request accounting of a full verify over HTTP, from nginx's access log
# alone: only GETs, each Range a single bytes=a-b answered 206.
before=$(wc -l <"$tmp/nginx/access.log")
"$vigilo" index verify "$url" >"$tmp/verify.out" 2>&1 || fail "verify over HTTP: $(head -c 300 "$tmp/verify.out")"
tail -n +$((before + 1)) "$tmp/nginx/access.log" >"$tmp/verify.log"
if [[ -s $tmp/verify.log ]] && ! grep -q -v -E '^GET [^ ]+ "(-" 200|bytes=[0-9]+-[0-9]+" 206) [0-9]+$' "$tmp/verify.log"; then
  pass "verify over HTTP: $(wc -l <"$tmp/verify.log") requests, all GET, plain (200) or one bytes=a-b range (206)"
else
  fail "verify's requests: $(grep -v -E '^GET [^ ]+ "(-" 200|bytes=[0-9]+-[0-9]+" 206) [0-9]+$' "$tmp/verify.log" | head -3)"
fi

# A manifest stating an enormous nlist (the last cid-offset moved with it):
# the centroids object holds fewer rows, an invalid_format naming it — never
# an allocation of nlist × dimension floats (which once aborted the process).
copy_publication huge-nlist
nlist=$(sed -n 's/.*"nlist":\([0-9]*\).*/\1/p' "$tmp/www/pub/manifest.json")
perl -pi -e "s/(\"cid-offsets\":\[[0-9,]*,)$nlist\]/\${1}2147483647]/; s/\"nlist\":$nlist,/\"nlist\":2147483647,/" \
  "$tmp/www/huge-nlist/manifest.json"
"$vigilo" index query "$(url_of huge-nlist)" "${query_args[@]}" >"$tmp/err.out" 2>&1
rc=$?
if [[ $rc -eq 4 && "$(cat "$tmp/err.out")" == "vigilo: invalid_format: centroids.parquet: centroids.parquet holds $nlist rows; nlist is 2147483647" ]]; then
  pass "nlist inflated in the manifest: query over HTTP is invalid_format naming centroids.parquet"
else
  fail "nlist inflated in the manifest: exit $rc: $(head -c 400 "$tmp/err.out")"
fi

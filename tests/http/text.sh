# Sourced by tests/http/run.sh (uses its $vigilo, $tmp, $port, same, pass,
# fail and stats.sh's stats_of): text queries over HTTP. A fixture model (16
# words × 4, packed like the npm package) is imported, a publication of 40
# short texts built with it and served; `index query --text` answers exactly
# as locally, in the vector query's round trips + 2, and a changed asset on
# the server is an integrity error while vector queries still work.
mkdir -p "$tmp/model-src/package"
printf '%s' '{"name":"wink-fixture","version":"0.0.1","main":"./fixture.json"}' >"$tmp/model-src/package/package.json"
perl -e '
  my @w = (["the","0.1","-0.2","0.3","0.4"], ["a","0.25","0.5","-0.125","1.5"], ["small","-0.038194","-0.24487","0.72812","-0.39961"],
           ["feline","0.083172","0.043953","-0.39141","0.3344"], ["cat","0.7","0.1","0.1","0.2"], ["salt","-1.25","2.5","0.003","1e-3"],
           ["water","3.14159","-2.71828","1.41421","0.57721"], ["fox","0.33333","0.66667","-0.11111","0.22222"],
           ["don","0.9","0.8","0.7","0.6"], ["t","-0.9","0.05","0.05","0.01"], ["caf\xc3\xa9","0.12","0.34","0.56","0.78"],
           ["1984","-0.5","-0.5","0.5","0.5"], ["france","0.011","0.022","0.033","0.044"], ["capital","2","0","0","-2"],
           ["well","0.2","0.2","0.2","-0.2"]);
  print "{\"precision\":8,\"l2NormIndex\":4,\"wordIndex\":5,\"size\":", scalar(@w), ",\"dimensions\":4,\"words\":[",
        join(",", map { "\"$_->[0]\"" } @w), "],\"vectors\":{",
        join(",", map { my $i = $_; "\"$w[$i][0]\":[" . join(",", @{$w[$i]}[1..4]) . ",1,$i]" } 0 .. $#w),
        "},\"unkVector\":[0,0,0,0,0,-1]}";' >"$tmp/model-src/package/fixture.json"
tar -C "$tmp/model-src" -czf "$tmp/fixture-model.tgz" package
if "$vigilo" embed import "$tmp/fixture-model.tgz" --out "$tmp/model" -q >"$tmp/import.out" 2>&1; then
  perl -e 'my @w = qw(the a small feline cat salt water fox don t france capital well 1984);
    for my $i (0 .. 39) { my @t = map { $w[($i * 7 + $_ * 3) % @w] } 0 .. ($i % 4); print "{\"id\":$i,\"title\":\"doc $i\",\"text\":\"@t\"}\n" }' \
    >"$tmp/texts.jsonl"
  if "$vigilo" index build "$tmp/texts.jsonl" --embed-model "$tmp/model" --text-field text --key id --source \
       --nlist 4 -q -o "$tmp/www/textpub" >"$tmp/textbuild.out" 2>&1; then
    pass "text publication built with the fixture model"
  else
    fail "text build: $(tail -c 400 "$tmp/textbuild.out")"
  fi
else
  fail "embed import: $(tail -c 400 "$tmp/import.out")"
fi

saved_local=$local_manifest saved_url=$url
local_manifest=$tmp/www/textpub/manifest.json
url=http://127.0.0.1:$port/textpub/manifest.json
same "query --text" index query MANIFEST --text "salt water" --text "a small cat" -k 3 --nprobe 4 --columns title
same "query --text --json" index query MANIFEST --text "the capital of France" -k 5 --json

# Counted against nginx's log: manifest, [model top + centroids], pages,
# buckets, footers, row groups = 6 dependent round trips.
before=$(wc -l <"$tmp/nginx/access.log")
if "$vigilo" index query "$url" --text "salt water" -k 3 --nprobe 4 --stats >/dev/null 2>"$tmp/text-stats.err"; then
  expected=$(stats_of "$tmp/text-stats.err" total requests)
  for _ in $(seq 200); do (($(wc -l <"$tmp/nginx/access.log") - before >= expected)) && break; sleep 0.01; done
  logged=$(($(wc -l <"$tmp/nginx/access.log") - before))
  if [[ $(stats_of "$tmp/text-stats.err" total round_trips) == 6 && $(stats_of "$tmp/text-stats.err" embed round_trips) == 3 &&
        $(stats_of "$tmp/text-stats.err" query round_trips) == 2 && $logged == "$expected" ]]; then
    pass "query --text --stats over HTTP: 6 round trips (the vector query's 4 + 2), $expected requests as nginx logged"
  else
    fail "query --text --stats: $(tr '\n' ';' <"$tmp/text-stats.err"); nginx logged $logged"
  fi
else
  fail "query --text --stats: $(head -c 300 "$tmp/text-stats.err")"
fi

# A bucket byte changed on the server: text refused, naming the asset; a
# vector query of the same publication still answers.
cp -r "$tmp/www/textpub" "$tmp/www/textbad"
perl -e 'open(my $f, "+<", $ARGV[0]) or die; binmode $f; my $n = -s $f; seek $f, int($n / 2), 0; read $f, $b, 1;
  seek $f, int($n / 2), 0; print $f chr(ord($b) ^ 1)' "$tmp/www/textbad/embedding/words-buckets.bin"
"$vigilo" index query "http://127.0.0.1:$port/textbad/" --text "the a small feline cat salt water fox don t france capital well 1984" \
  >"$tmp/textbad.out" 2>&1
rc=$?
if [[ $rc -ne 0 ]] && grep -q '^vigilo: integrity_error: embedding/words-buckets.bin: sha256 prefix of bytes' "$tmp/textbad.out"; then
  pass "a changed model byte on the server: integrity_error naming embedding/words-buckets.bin"
else
  fail "changed model byte: exit $rc: $(head -c 300 "$tmp/textbad.out")"
fi
if "$vigilo" index query "http://127.0.0.1:$port/textbad/" --vector '[0.7,0.1,0.1,0.2]' -k 1 --nprobe 4 >/dev/null 2>&1; then
  pass "the same publication answers vector queries"
else
  fail "vector query on the publication with a changed model byte failed"
fi
local_manifest=$saved_local url=$saved_url

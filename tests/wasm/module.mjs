// The ES module (web/vigilo.mjs) against the native CLI, over HTTP from a
// private nginx (docs/format/wasm.md, "The ES module"): publications built
// with `vigilo index build` (LVQ4 and LVQ8, l2_squared and cosine, with and
// without a source table, and a text publication with a fixture word-vector
// model) are searched through openPublication() with node's global fetch and
// with `vigilo index query --json`; keys (BigInt for long), order, float32
// distances and payload values must be equal, and the round trips, requests
// and bytes equal to the CLI's --stats over the same server. Then the rules:
// nginx's log shows only GETs with single `bytes=a-b` ranges, and each broken
// answer (200 to a range, missing or wrong Content-Range, short or long body,
// an unsafe integer in the manifest, a changed model byte, a tampered object
// under verify) is refused with its specific error.
// Usage: node module.mjs VIGILO_BINARY WEB_DIR SCRATCH_DIR
import fs from 'node:fs';
import path from 'node:path';
import { buildFixtures, check, cliQuery, publications, rawField, startNginx, freePort, texts } from './support.mjs';

const [vigilo, webDir, scratchArg] = process.argv.slice(2);
if (!vigilo || !webDir || !scratchArg) {
  console.error('usage: node module.mjs VIGILO_BINARY WEB_DIR SCRATCH_DIR');
  process.exit(2);
}
if (!fs.existsSync(path.join(webDir, 'vigilo.mjs'))) {
  console.error(`wasm module: ${webDir}/vigilo.mjs is missing: run scripts/build-wasm`);
  process.exit(1);
}
const { openPublication, VigiloError } = await import(path.resolve(webDir, 'vigilo.mjs'));
fs.rmSync(scratchArg, { recursive: true, force: true });
fs.mkdirSync(scratchArg, { recursive: true });
const scratch = fs.realpathSync(scratchArg);
const www = path.join(scratch, 'www');
fs.mkdirSync(www);

let passed = 0;
function pass(what) {
  ++passed;
  console.log(`PASS ${what}`);
}
async function refused(what, promise, pattern) {
  try {
    await promise;
  } catch (e) {
    check(e instanceof VigiloError, `${what}: ${e.name} instead of a VigiloError: ${e.message}`);
    check(pattern.test(e.message), `${what}: the error ${JSON.stringify(e.message)} does not match ${pattern}`);
    pass(`${what}: ${e.message}`);
    return;
  }
  throw new Error(`${what}: accepted`);
}

const { queries, tamperedPostings: postings } = buildFixtures(vigilo, scratch, www);

// nginx: /norange/ ignores Range (max_ranges 0: a 200 with the whole object);
// /gzip/ compresses what it can (a plain GET: the manifest; never a 206).
const port = await freePort();
const nginx = await startNginx(path.join(scratch, 'nginx'), [{ port, body: `    root ${www};
    location / { }
    location /norange/ { alias ${www}/; max_ranges 0; }
    location /gzip/ { alias ${www}/; gzip on; gzip_types *; gzip_min_length 1; }` }]);
const base = `http://127.0.0.1:${port}`;

// ---- comparison with the CLI --------------------------------------------
const cliRun = (name, queryArgs, k, nprobe, columns) =>
  cliQuery(vigilo, `${base}/${name}/manifest.json`, queryArgs, k, nprobe, columns);

function compareRows(where, mine, native, keyName, columns) {
  check(mine.length === native.rows.length, `${where}: ${mine.length} rows, the CLI ${native.rows.length}`);
  mine.forEach((row, i) => {
    const n = native.rows[i];
    const line = native.lines[i];
    check(row.rank === n.rank, `${where}: row ${i} rank ${row.rank}, CLI ${n.rank}`);
    const keyText = rawField(line, keyName);
    check(typeof row[keyName] === 'bigint' && row[keyName] === BigInt(keyText),
      `${where}: row ${i} key ${String(row[keyName])} (${typeof row[keyName]}), CLI ${keyText}`);
    const distanceText = rawField(line, '_distance');
    check(row._distance === Math.fround(Number(distanceText)),
      `${where}: row ${i} distance ${row._distance}, CLI ${distanceText}`);
    for (const c of columns) {
      check(JSON.stringify(row[c]) === JSON.stringify(n[c]), `${where}: row ${i} ${c} ${JSON.stringify(row[c])}, CLI ${JSON.stringify(n[c])}`);
    }
  });
}
function compareStats(where, mine, native, phases) {
  for (const phase of phases) {
    for (const f of ['requests', 'round_trips', 'bytes']) {
      check(mine[phase][f] === native[phase][f],
        `${where}: ${phase} ${f} ${mine[phase][f]} in the module, ${native[phase][f]} in the CLI`);
    }
  }
}

const started = Date.now();
let failed = false;
try {
  const k = 10;
  const nprobe = 6;
  for (const p of publications) {
    // Cold: a fresh publication per query for the first, to count its rounds.
    const cold = await openPublication(`${base}/${p.name}/manifest.json`);
    check(cold.info.metric === (p.name.startsWith('l2') ? 'l2_squared' : 'cosine') && cold.info.ntotal === 2000 &&
      cold.info.encoding === p.name.split('-')[1], `${p.name}: info ${JSON.stringify(cold.info)}`);
    const rows = await cold.search({ vector: queries[0], k, nprobe, columns: p.columns });
    const native = cliRun(p.name, ['--vector', JSON.stringify(Array.from(queries[0]))], k, nprobe, p.columns);
    const keyName = cold.info.key[0].name;
    compareRows(`${p.name} cold`, rows, native, keyName, p.columns);
    const stats = cold.stats();
    const phases = ['manifest', 'query', ...(p.columns.length ? ['payload'] : []), 'total'];
    compareStats(`${p.name} cold`, stats, native.stats, phases);
    check(stats.total.round_trips - (p.columns.length ? stats.payload.round_trips : 0) <= 4,
      `${p.name}: a cold vector query took ${stats.total.round_trips} round trips`);
    pass(`${p.name}: cold vector query equal to the CLI, ${stats.total.round_trips} round trips, ` +
      `${stats.total.requests} requests, ${stats.total.bytes} bytes (the CLI's --stats: the same), ${stats.ms} ms`);
    // Warm: 19 more queries on the same publication, each against the CLI.
    for (let q = 1; q < queries.length; ++q) {
      const warm = await cold.search({ vector: queries[q], k, nprobe, columns: p.columns });
      compareRows(`${p.name} query ${q}`, warm, cliRun(p.name, ['--vector', JSON.stringify(Array.from(queries[q]))], k, nprobe, p.columns),
        keyName, p.columns);
    }
    check(cold.stats().query.cache_hits > 0, `${p.name}: warm queries hit no cached range`);
    pass(`${p.name}: 19 warm vector queries equal to the CLI (the last: ${cold.stats().total.requests - 1} requests, ` +
      `${cold.stats().query.cache_hits} cache hits)`);
  }

  // Text: 10 texts, each cold (its own publication) and against the CLI.
  for (const [i, text] of texts.entries()) {
    const pub = await openPublication(`${base}/text/manifest.json`);
    check(pub.info.embedding && pub.info.embedding.contract === 'static-word-vectors-v1', `text: info ${JSON.stringify(pub.info)}`);
    const rows = await pub.search({ text, k: 5, nprobe: 4, columns: ['title'] });
    const native = cliRun('text', ['--text', text], 5, 4, ['title']);
    compareRows(`text ${JSON.stringify(text)}`, rows, native, 'id', ['title']);
    const stats = pub.stats();
    compareStats(`text ${JSON.stringify(text)}`, stats, native.stats, ['manifest', 'embed', 'query', 'payload', 'total']);
    check(stats.total.round_trips - stats.payload.round_trips <= 6, `text: ${stats.total.round_trips} round trips`);
    if (i === 0) {
      pass(`text ${JSON.stringify(text)}: cold, equal to the CLI, ${stats.total.round_trips - stats.payload.round_trips} ` +
        `round trips + ${stats.payload.round_trips} for the payload, ${stats.total.requests} requests, ${stats.total.bytes} bytes, ${stats.ms} ms`);
    }
  }
  pass('10 cold text queries equal to the CLI (keys as BigInt, distances, titles, stats)');

  // The server's log: only GETs, every Range one explicit `bytes=a-b`.
  // The module's requests (node's fetch says "node"; the CLI names itself).
  const log = nginx.log().filter((l) => / "node" "-"$/.test(l) && !l.startsWith('GET / '));  // not nginx's start probe
  check(log.length > 100, `nginx logged ${log.length} requests from node`);
  const bad = log.filter((l) => !/^GET \S+ "(-|bytes=[0-9]+-[0-9]+)" (200|206) [0-9]+ "node" "-"$/.test(l) ||
    (/^GET \S+ "-"/.test(l) && !/manifest\.json /.test(l)));
  check(bad.length === 0, `nginx logged requests other than GET with one bytes=a-b range (or the manifest): ${bad.slice(0, 3).join(' | ')}`);
  pass(`nginx's log: ${log.length} requests, all GET, every object read by one explicit bytes=a-b range, no HEAD, suffix or multi-range`);

  // A manifest sent gzip-encoded (fetch decodes it; a browser always asks
  // for it): read as the decoded bytes, the ranges as usual.
  const gz = await openPublication(`${base}/gzip/l2-lvq4/manifest.json`);
  compareRows('gzip-encoded manifest', await gz.search({ vector: queries[0], k, nprobe }),
    cliRun('l2-lvq4', ['--vector', JSON.stringify(Array.from(queries[0]))], k, nprobe, []), gz.info.key[0].name, []);
  const gzipLog = nginx.log().filter((l) => l.startsWith('GET /gzip/'));
  const manifestSize = fs.statSync(path.join(www, 'l2-lvq4', 'manifest.json')).size;
  const gzipped = gzipLog.map((l) => /manifest\.json "-" 200 ([0-9]+) /.exec(l)).find(Boolean);
  check(gzipped && +gzipped[1] < manifestSize && gzipLog.every((l) => / (200|206) /.test(l)),
    `the /gzip/ requests (the manifest is ${manifestSize} bytes): ${gzipLog.join(' | ')}`);
  pass('a manifest the server gzip-encodes (as JSON often is) is read decoded; the object ranges as usual');

  // ---- refusals --------------------------------------------------------
  await refused('a 200 to a range', openPublication(`${base}/norange/l2-lvq4/manifest.json`)
    .then((p) => p.search({ vector: queries[0], k: 3, nprobe: 2 })), /integrity_error: centroids\.parquet: HTTP 200 to a range request \(the server ignores Range\)/);
  const withHeaders = (edit) => async (url, init) => {
    const res = await fetch(url, init);
    if (!init.headers.Range) return res;
    const headers = new Headers(res.headers);
    const body = new Uint8Array(await res.arrayBuffer());
    const out = edit(headers, body);
    return new Response(out.body ?? body, { status: res.status, headers });
  };
  await refused('a 206 whose Content-Range is not readable (another origin without Access-Control-Expose-Headers)',
    openPublication(`${base}/l2-lvq4/manifest.json`, { fetch: withHeaders((h) => { h.delete('content-range'); return {}; }) })
      .then((p) => p.search({ vector: queries[0], k: 3, nprobe: 2 })),
    /without a valid Content-Range.*Access-Control-Expose-Headers: Content-Range/);
  await refused('a Content-Range for other bytes', openPublication(`${base}/l2-lvq4/manifest.json`, {
    fetch: withHeaders((h) => { const m = /bytes (\d+)-(\d+)\/(\d+)/.exec(h.get('content-range')); h.set('content-range', `bytes ${+m[1] + 1}-${+m[2] + 1}/${m[3]}`); return {}; }),
  }).then((p) => p.search({ vector: queries[0], k: 3, nprobe: 2 })), /Content-Range bytes \d+-\d+ does not match the requested bytes/);
  await refused('a short body', openPublication(`${base}/l2-lvq4/manifest.json`, {
    fetch: withHeaders((h, b) => { h.delete('content-length'); return { body: b.subarray(0, b.length - 1) }; }),
  }).then((p) => p.search({ vector: queries[0], k: 3, nprobe: 2 })), /integrity_error: centroids\.parquet: HTTP 206 with a body of \d+ bytes, expected \d+/);
  await refused('a long body', openPublication(`${base}/l2-lvq4/manifest.json`, {
    fetch: withHeaders((h, b) => { h.delete('content-length'); const l = new Uint8Array(b.length + 1); l.set(b); return { body: l }; }),
  }).then((p) => p.search({ vector: queries[0], k: 3, nprobe: 2 })), /integrity_error: centroids\.parquet: HTTP 206 with a body of \d+ bytes, expected \d+/);
  await refused('an integer above 9007199254740991 in the manifest', openPublication(`${base}/unsafe/manifest.json`),
    /out_of_range: .*\$\.index\.ntotal.*9007199254740991|\$\.index\.ntotal.*out of range/);
  await refused('a changed model byte: text refused', openPublication(`${base}/textbad/manifest.json`)
    .then((p) => p.search({ text: 'the a small feline cat salt water fox don t france capital well', k: 3, nprobe: 4 })),
  /integrity_error: embedding\/words-buckets\.bin: sha256 prefix of bytes/);
  const bad2 = await openPublication(`${base}/textbad/manifest.json`);
  const vectorRows = await bad2.search({ vector: [0.7, 0.1, 0.1, 0.2], k: 1, nprobe: 4 });
  check(vectorRows.length === 1, 'the publication with a changed model byte answers no vector query');
  pass('the same publication still answers a vector query');
  await refused('verify: a changed postings byte', openPublication(`${base}/tampered/manifest.json`, { verify: true }),
    new RegExp(`integrity_error: ${postings.replace(/[.=]/g, '\\$&')}: sha256 of the object is [0-9a-f]{64}, expected [0-9a-f]{64}`));
  const verified = await openPublication(`${base}/l2-lvq4/manifest.json`, { verify: true });
  compareRows('verified l2-lvq4', await verified.search({ vector: queries[0], k, nprobe }),
    cliRun('l2-lvq4', ['--vector', JSON.stringify(Array.from(queries[0]))], k, nprobe, []), verified.info.key[0].name, []);
  pass(`verify: every object of an intact publication matches its SHA-256 (${verified.info.objects} objects), and it answers`);
} catch (e) {
  failed = true;
  console.error(`FAIL ${e.message}`);
} finally {
  nginx.stop();
}
if (failed) {
  console.error(`wasm module: ${passed} checks passed, then a failure`);
  process.exit(1);
}
console.log(`wasm module: ${passed} checks passed in ${Date.now() - started} ms`);
fs.rmSync(scratch, { recursive: true, force: true });

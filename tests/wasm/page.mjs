// The search page (web/search/) in Debian's headless Chromium, driven by
// playwright-core (tools/node_modules; never a downloaded browser), the page
// and the publications served by a private nginx (docs/format/wasm.md, "The
// search page"). Through the page's form: 20 vector queries over LVQ4 and
// LVQ8, l2 and cosine, with and without a source table, and 10 text queries,
// each table equal to `vigilo index query --json` (keys as the CLI prints
// them and shown as BigInt cells, distances as printed, payload values);
// from a second origin: answers when Content-Range is exposed, the exposure
// error when not; refusals shown as the page's error; nginx's log holds no
// HEAD, OPTIONS, suffix or multi-range. A screenshot lands in SHOT.
// Usage: node page.mjs VIGILO_BINARY WEB_DIR SCRATCH_DIR SHOT.png
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { buildFixtures, check, cliQuery, freePort, publications, rawField, startNginx, texts } from './support.mjs';

const [vigilo, webDir, scratchArg, shot] = process.argv.slice(2);
if (!vigilo || !webDir || !scratchArg || !shot) {
  console.error('usage: node page.mjs VIGILO_BINARY WEB_DIR SCRATCH_DIR SHOT.png');
  process.exit(2);
}
const chromiumPath = '/usr/bin/chromium';
const require = createRequire(path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../tools/package.json'));
let chromium;
try {
  ({ chromium } = require('playwright-core'));
} catch {
  console.error('wasm page: playwright-core is missing from tools/node_modules: run scripts/setup');
  process.exit(1);
}
check(fs.existsSync(chromiumPath), `wasm page: ${chromiumPath} is missing: run scripts/setup (Debian package chromium)`);
check(fs.existsSync(path.join(webDir, 'search', 'index.html')), `wasm page: ${webDir}/search is missing: run scripts/build-wasm`);

fs.rmSync(scratchArg, { recursive: true, force: true });
fs.mkdirSync(scratchArg, { recursive: true });
const scratch = fs.realpathSync(scratchArg);
const www = path.join(scratch, 'www');
fs.mkdirSync(www);
fs.cpSync(webDir, path.join(www, 'web'), { recursive: true });
const { queries } = buildFixtures(vigilo, scratch, www);

// Three origins: the page's (and same-origin publications, /norange/ with
// Range ignored); one exposing Content-Range to any origin; one allowing any
// origin but exposing nothing.
const [pagePort, exposedPort, hiddenPort] = [await freePort(), await freePort(), await freePort()];
const nginx = await startNginx(path.join(scratch, 'nginx'), [
  { port: pagePort, body: `    root ${www};\n    location / { }\n    location /norange/ { alias ${www}/; max_ranges 0; }` },
  { port: exposedPort, body: `    root ${www};\n    location / {\n      add_header Access-Control-Allow-Origin * always;\n` +
    '      add_header Access-Control-Expose-Headers "Content-Range, Content-Length" always;\n    }' },
  { port: hiddenPort, body: `    root ${www};\n    location / { add_header Access-Control-Allow-Origin * always; }` },
]);
const origin = (port) => `http://127.0.0.1:${port}`;
const pageUrl = (manifest) => `${origin(pagePort)}/web/search/?manifest=${encodeURIComponent(manifest)}`;

let passed = 0;
function pass(what) {
  ++passed;
  console.log(`PASS ${what}`);
}

const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox'] });
const page = await browser.newPage();
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(e.message));

// The key field's name, from the page's summary ("NAME (TYPE)").
const keyNameOnPage = () => page.evaluate(() => document.querySelector('#summary dd:nth-of-type(7)').textContent.split(' ')[0]);

async function openPage(manifest) {
  await page.goto(pageUrl(manifest));
  await page.waitForFunction(() => ['open', 'error'].includes(document.body.dataset.state) && document.body.dataset.busy === 'no',
    null, { timeout: 30000 });
  return page.evaluate(() => ({ state: document.body.dataset.state, error: document.getElementById('error').textContent }));
}

// Fills the form, searches, and returns the table (header and cells with
// their JavaScript types) or the page's error.
async function searchPage({ vector, text, k, nprobe, columns }) {
  if (text !== undefined) await page.fill('#text', text);
  else await page.fill('#vector', JSON.stringify(vector));
  await page.fill('#k', String(k));
  await page.fill('#nprobe', String(nprobe));
  await page.evaluate((asked) => {
    document.querySelectorAll('#columns input').forEach((b) => { b.checked = asked.includes(b.value); });
  }, columns);
  await page.evaluate(() => { document.body.dataset.state = 'searching'; });
  await page.click('#search-button');
  await page.waitForFunction(() => ['results', 'error'].includes(document.body.dataset.state) && document.body.dataset.busy === 'no',
    null, { timeout: 30000 });
  return page.evaluate(() => ({
    state: document.body.dataset.state,
    error: document.getElementById('error').textContent,
    header: [...document.querySelectorAll('#results thead th')].map((th) => th.textContent),
    rows: [...document.querySelectorAll('#results tbody tr')].map((tr) =>
      [...tr.cells].map((td) => ({ text: td.textContent, type: td.dataset.type }))),
    stats: document.getElementById('stats').textContent,
  }));
}

function compareTable(where, table, native, keyName, columns) {
  check(table.state === 'results', `${where}: the page shows an error: ${table.error}`);
  check(JSON.stringify(table.header) === JSON.stringify(['rank', keyName, '_distance', ...columns]),
    `${where}: header ${JSON.stringify(table.header)}`);
  check(table.rows.length === native.rows.length, `${where}: ${table.rows.length} rows, the CLI ${native.rows.length}`);
  table.rows.forEach((cells, i) => {
    const line = native.lines[i];
    check(cells[0].text === String(native.rows[i].rank), `${where}: row ${i} rank ${cells[0].text}`);
    check(cells[1].text === rawField(line, keyName) && cells[1].type === 'bigint',
      `${where}: row ${i} key ${cells[1].text} (${cells[1].type}), the CLI ${rawField(line, keyName)}`);
    check(cells[2].text === rawField(line, '_distance'), `${where}: row ${i} distance ${cells[2].text}, the CLI ${rawField(line, '_distance')}`);
    columns.forEach((c, j) => {
      const want = typeof native.rows[i][c] === 'string' ? native.rows[i][c] : JSON.stringify(native.rows[i][c]);
      check(cells[3 + j].text === want, `${where}: row ${i} ${c} ${cells[3 + j].text}, the CLI ${want}`);
    });
  });
}

let failed = false;
const started = Date.now();
try {
  // 5 vector queries on each of the four vector publications (20).
  for (const p of publications) {
    const url = `${origin(pagePort)}/${p.name}/manifest.json`;
    const opened = await openPage(url);
    check(opened.state === 'open', `${p.name}: the page did not open it: ${opened.error}`);
    const keyName = await keyNameOnPage();
    for (let q = 0; q < 5; ++q) {
      const vector = Array.from(queries[q]);
      const table = await searchPage({ vector, k: 10, nprobe: 6, columns: p.columns });
      compareTable(`${p.name} query ${q}`, table, cliQuery(vigilo, url, ['--vector', JSON.stringify(vector)], 10, 6, p.columns),
        keyName, p.columns);
    }
    pass(`${p.name}: 5 vector queries through the page equal to the CLI`);
    if (p.name === 'l2-lvq8-source') {
      // "Use row N's vector": the row's own vector from the source table, then
      // a search with it: equal to the CLI, row 7 itself first.
      await page.fill('#row', '7');
      await page.evaluate(() => { document.body.dataset.state = 'fetching'; });
      await page.click('#row-button');
      await page.waitForFunction(() => ['open', 'error'].includes(document.body.dataset.state) && document.body.dataset.busy === 'no');
      const own = JSON.parse(await page.inputValue('#vector'));
      check(Array.isArray(own) && own.length === 24, `row 7's vector: ${JSON.stringify(own)}`);
      const table = await searchPage({ vector: own, k: 10, nprobe: 6, columns: [] });
      compareTable('row 7\'s vector', table, cliQuery(vigilo, url, ['--vector', JSON.stringify(own)], 10, 6, []), keyName, []);
      check(table.rows[0][1].text === '7', `row 7's vector finds ${table.rows[0][1].text} first`);
      pass("\"use row N's vector\" (row 7): the search equals the CLI's and finds row 7 first");
    }
  }
  // 10 text queries.
  const textUrl = `${origin(pagePort)}/text/manifest.json`;
  check((await openPage(textUrl)).state === 'open', 'the text publication did not open');
  let firstStats = '';
  for (const [i, text] of texts.entries()) {
    const table = await searchPage({ text, k: 5, nprobe: 4, columns: ['title'] });
    compareTable(`text ${JSON.stringify(text)}`, table, cliQuery(vigilo, textUrl, ['--text', text], 5, 4, ['title']), 'id', ['title']);
    if (i === 0) firstStats = table.stats;
  }
  pass(`10 text queries through the page equal to the CLI (the first, cold: ${firstStats})`);
  fs.mkdirSync(path.dirname(shot), { recursive: true });
  await page.screenshot({ path: shot, fullPage: true });
  pass(`screenshot of the page with results: ${shot}`);

  // Another origin.
  const exposedUrl = `${origin(exposedPort)}/l2-lvq4/manifest.json`;
  check((await openPage(exposedUrl)).state === 'open', 'the exposing origin did not open');
  const vector = Array.from(queries[0]);
  compareTable('another origin exposing Content-Range', await searchPage({ vector, k: 10, nprobe: 6, columns: [] }),
    cliQuery(vigilo, exposedUrl, ['--vector', JSON.stringify(vector)], 10, 6, []), await keyNameOnPage(), []);
  pass('from another origin that exposes Content-Range: results equal to the CLI');
  const hidden = await openPage(`${origin(hiddenPort)}/l2-lvq4/manifest.json`);
  const hiddenSearch = hidden.state === 'open' ? await searchPage({ vector, k: 10, nprobe: 6, columns: [] }) : hidden;
  check(hiddenSearch.state === 'error' && /Access-Control-Expose-Headers: Content-Range/.test(hiddenSearch.error),
    `another origin hiding Content-Range: ${JSON.stringify(hiddenSearch.error)}`);
  pass(`from another origin that does not expose Content-Range: ${hiddenSearch.error}`);

  // Refusals shown by the page.
  const refusal = async (what, manifest, pattern, request) => {
    let shown = await openPage(manifest);
    if (shown.state === 'open' && request) shown = await searchPage(request);
    check(shown.state === 'error' && pattern.test(shown.error), `${what}: ${JSON.stringify(shown)}`);
    pass(`${what}: ${shown.error}`);
  };
  await refusal('an unsafe integer in the manifest', `${origin(pagePort)}/unsafe/manifest.json`, /\$\.index\.ntotal: integer out of range \[0, 9007199254740991\]/);
  await refusal('a changed model byte', `${origin(pagePort)}/textbad/manifest.json`,
    /integrity_error: embedding\/words-buckets\.bin: sha256 prefix of bytes/, { text: 'the a small feline cat salt water fox don t france capital well', k: 3, nprobe: 4, columns: [] });
  await refusal('a server answering 200 to a range', `${origin(pagePort)}/norange/l2-lvq4/manifest.json`,
    /HTTP 200 to a range request \(the server ignores Range\)/, { vector, k: 3, nprobe: 2, columns: [] });
  await refusal('an unreachable URL', `http://127.0.0.1:${await freePort()}/x/manifest.json`, /cannot fetch/);
  check(consoleErrors.length === 0, `uncaught errors in the page: ${consoleErrors.join(' | ')}`);

  // Chromium's requests (the CLI's, which name it, and nginx's start probe aside).
  const log = nginx.log().filter((l) => !l.startsWith('GET / ') && !/ "vigilo[^"]*" "[^"]*"$/.test(l));
  const bad = log.filter((l) => !/^GET \S+ "(-|bytes=[0-9]+-[0-9]+)" /.test(l) ||
    (/^GET \S+ "-"/.test(l) && !/^GET (\S*manifest\.json|\/web\/\S*|\/favicon\.ico) /.test(l)));
  check(bad.length === 0, `nginx logged HEAD, OPTIONS, a suffix or multi-range, or a whole object: ${bad.slice(0, 3).join(' | ')}`);
  pass(`nginx's log: ${log.length} requests, no HEAD, OPTIONS, suffix or multi-range; objects only by bytes=a-b`);
} catch (e) {
  failed = true;
  console.error(`FAIL ${e.message}`);
} finally {
  await browser.close();
  nginx.stop();
}
if (failed) {
  console.error(`wasm page: ${passed} checks passed, then a failure`);
  process.exit(1);
}
console.log(`wasm page: ${passed} checks passed in ${Date.now() - started} ms`);
fs.rmSync(scratch, { recursive: true, force: true });

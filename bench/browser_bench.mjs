// The measuring loop of bench/browser.sh: for each round, each delay (a
// bench/delay_proxy.mjs per delay, already running) and each query, in that
// interleaved order, one query in headless Chromium through the ES module
// (web/vigilo.mjs: cold in a fresh browser context, then warm: the same query
// again on the same publication object), the native CLI over the same proxy
// (cold: --no-cache; warm: a second process with a filled cache directory),
// and hyparquet (bench/http_hyparquet.mjs) reading the same Parquet row groups
// the CLI's cold query read. Counts come from each reader's own stats and
// from nginx's access log (the lines naming the publication, after a mark).
//
//   node bench/browser_bench.mjs CONFIG.json
//
// CONFIG: { modules, chromium, vigilo, hyparquet_script, access_log, www, tmp,
//   reps, delays: [{delay, port}], queries: [{name, rel, text | vector_file, k, nprobe, columns}] }
// Prints one JSON line per measurement (round, delay, query, reader, ms,
// requests, round_trips, bytes, log_requests, log_bytes, same_answer).
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const require = createRequire(path.join(config.modules, 'package.json'));
const { chromium } = require('playwright-core');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const logLines = () => fs.readFileSync(config.access_log, 'utf8').split('\n').filter(Boolean);
// The access-log lines after MARK that name the publication REL, waiting up
// to 2 s for at least EXPECTED of them (nginx logs after it answers).
async function logSince(mark, rel, expected) {
  let lines = [];
  for (let i = 0; i < 200; ++i) {
    lines = logLines().slice(mark).filter((l) => l.split(' ')[1]?.startsWith(`/${rel}/`));
    if (lines.length >= expected) break;
    await sleep(10);
  }
  return { log_requests: lines.length, log_bytes: lines.reduce((s, l) => s + Number(l.split(' ').at(-1)), 0), lines };
}
const emit = (o) => process.stdout.write(JSON.stringify(o) + '\n');

function statsOf(stderr) {
  const m = stderr.match(/^vigilo: stats: total .*$/m);
  if (!m) throw new Error(`no stats line in: ${stderr.slice(-400)}`);
  const get = (f) => Number(m[0].match(new RegExp(`${f}=(\\d+)`))[1]);
  return { requests: get('requests'), round_trips: get('round_trips'), bytes: get('bytes'), cache_hits: get('cache_hits') };
}
// The key fields of a CLI --json answer, in order (the first field after rank/_distance is not assumed:
// every field but _distance, rank and the asked columns).
function cliKeys(stdout, columns) {
  return stdout.split('\n').filter(Boolean).map((l) => {
    const o = JSON.parse(l);
    return Object.keys(o).filter((k) => !['_distance', 'rank', 'query', ...columns].includes(k)).map((k) => String(o[k])).join('/');
  });
}
function runCli(q, url, env, extra) {
  const args = ['index', 'query', `${url}/${q.rel}/manifest.json`, '-k', String(q.k), '--nprobe', String(q.nprobe),
    '--json', '--stats', ...extra];
  if (q.text !== undefined) args.push('--text', q.text);
  else args.push('--vector', `@${q.vector_file}`);
  if (q.columns.length) args.push('--columns', q.columns.join(','));
  const t0 = process.hrtime.bigint();
  const r = spawnSync(config.vigilo, args, { env: { ...process.env, OPENBLAS_NUM_THREADS: '1', ...env }, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`vigilo ${args.join(' ')}: ${r.stderr}`);
  return { ms, ...statsOf(r.stderr), keys: cliKeys(r.stdout, q.columns) };
}

const browser = await chromium.launch({ executablePath: config.chromium, headless: true, args: ['--no-sandbox'] });
const rangesFiles = new Map();  // query name -> the CLI's cold Parquet ranges (for hyparquet)
try {
  for (let round = 1; round <= config.reps; ++round) {
    for (const { delay, port } of config.delays) {
      const url = `http://127.0.0.1:${port}`;
      for (const q of config.queries) {
        const base = { round, delay, query: q.name };
        // Native CLI, cold (no cache).
        let mark = logLines().length;
        const cold = runCli(q, url, {}, ['--no-cache']);
        let log = await logSince(mark, q.rel, cold.requests);
        emit({ ...base, reader: 'cli-cold', ...cold, keys: undefined, log_requests: log.log_requests, log_bytes: log.log_bytes });
        if (!rangesFiles.has(q.name)) {
          const ranges = log.lines.map((l) => l.split(' ')).filter((f) => f[1].endsWith('.parquet') && /bytes=/.test(f[2]))
            .map((f) => {
              const [a, b] = f[2].replace(/"|bytes=/g, '').split('-');
              return `${decodeURIComponent(f[1].slice(q.rel.length + 2))} ${a} ${b}`;
            });
          const file = path.join(config.tmp, `ranges-${q.name}.txt`);
          fs.writeFileSync(file, ranges.join('\n') + '\n');
          rangesFiles.set(q.name, file);
        }
        // Native CLI, warm: a fresh cache directory filled by one run, then a second process timed.
        const xdg = fs.mkdtempSync(path.join(config.tmp, 'xdg-'));
        runCli(q, url, { XDG_CACHE_HOME: xdg }, []);
        mark = logLines().length;
        const warm = runCli(q, url, { XDG_CACHE_HOME: xdg }, []);
        log = await logSince(mark, q.rel, warm.requests);
        emit({ ...base, reader: 'cli-warm', ...warm, keys: undefined, log_requests: log.log_requests, log_bytes: log.log_bytes });
        fs.rmSync(xdg, { recursive: true, force: true });

        // Chromium: a fresh context (empty HTTP cache), the bench page, then import + open + search (cold),
        // and the same search again on the same publication (warm: the module's range cache).
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${url}/bench.html`);
        mark = logLines().length;
        const got = await page.evaluate(async ({ manifest, q }) => {
          const t0 = performance.now();
          const m = await import('/web/vigilo.mjs');
          const t1 = performance.now();
          const pub = await m.openPublication(manifest);
          const ask = q.text !== undefined ? { text: q.text } : { vector: q.vector };
          const rows = await pub.search({ ...ask, k: q.k, nprobe: q.nprobe, columns: q.columns });
          const t2 = performance.now();
          const s1 = pub.stats().total;
          const again = await pub.search({ ...ask, k: q.k, nprobe: q.nprobe, columns: q.columns });
          const t3 = performance.now();
          const s2 = pub.stats();
          const keysOf = (rs) => rs.map((r) => Object.keys(r).filter((k) => !['_distance', 'rank', ...q.columns].includes(k))
            .map((k) => String(r[k])).join('/'));
          return { import_ms: t1 - t0, cold_ms: t2 - t0, warm_ms: t3 - t2, cold: s1, warm: s2.total, warm_query: s2,
            keys: keysOf(rows), keys2: keysOf(again) };
        }, { manifest: `${url}/${q.rel}/manifest.json`, q: { ...q, vector: q.vector_file ? JSON.parse(fs.readFileSync(q.vector_file, 'utf8')) : undefined } });
        log = await logSince(mark, q.rel, got.cold.requests);
        await context.close();
        const same = JSON.stringify(got.keys) === JSON.stringify(cold.keys);
        emit({ ...base, reader: 'browser-cold', ms: got.cold_ms, import_ms: got.import_ms, requests: got.cold.requests,
          round_trips: got.cold.round_trips, bytes: got.cold.bytes, cache_hits: got.cold.cache_hits,
          log_requests: log.log_requests, log_bytes: log.log_bytes, same_answer: same });
        // The warm search's own counts: stats() totals the manifest's and the last search's phases.
        const w = {};
        for (const f of ['requests', 'round_trips', 'bytes', 'cache_hits']) w[f] = got.warm[f] - got.warm_query.manifest[f];
        emit({ ...base, reader: 'browser-warm', ms: got.warm_ms, ...w,
          same_answer: JSON.stringify(got.keys2) === JSON.stringify(cold.keys) });

        // hyparquet (node), the same Parquet row groups the CLI's cold query read.
        if (config.hyparquet_script) {
          mark = logLines().length;
          const r = spawnSync('node', [config.hyparquet_script, config.modules_dir, path.join(config.www, q.rel), `${url}/${q.rel}/`, rangesFiles.get(q.name)],
            { encoding: 'utf8' });
          if (r.status !== 0) throw new Error(`hyparquet: ${r.stderr.slice(-600)}`);
          const h = JSON.parse(r.stdout.trim().split('\n').at(-1));
          log = await logSince(mark, q.rel, h.requests);
          emit({ ...base, reader: 'hyparquet', ms: h.ms, requests: h.requests, round_trips: h.round_trips, bytes: h.bytes,
            log_requests: log.log_requests, log_bytes: log.log_bytes, files: h.files, row_groups: h.row_groups, rows: h.rows });
        }
      }
    }
  }
} finally {
  await browser.close();
}

// What the module test (module.mjs) and the page test (page.mjs) share: the
// publications they search, a private nginx, and the native CLI's answers.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export function check(cond, what) {
  if (!cond) throw new Error(what);
}

// A deterministic generator (xorshift32), so every run sees the same vectors.
let state = 0x2545f491;
function random() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state / 4294967296;
}

export const d = 24;
export const texts = ['salt water', 'a small cat', 'the capital of france', 'fox', 'well well well', 'don t', 'feline',
  'the cat and the fox', 'water capital', 'small small small cat'];
export const publications = [
  { name: 'l2-lvq8-source', args: ['--metric', 'l2_squared', '--encoding', 'lvq8', '--nlist', '24', '--source'], columns: ['vector'] },
  { name: 'cosine-lvq4', args: ['--metric', 'cosine', '--encoding', 'lvq4', '--nlist', '16'], columns: [] },
  { name: 'l2-lvq4', args: ['--metric', 'l2_squared', '--encoding', 'lvq4', '--nlist', '20'], columns: [] },
  { name: 'cosine-lvq8-source', args: ['--metric', 'cosine', '--encoding', 'lvq8', '--nlist', '16', '--source'], columns: ['vector'] },
];

// Under `www`: the four vector publications above (2,000 deterministic 24-d
// vectors around 12 centres), `text` (40 short texts embedded with the
// fixture word-vector model of tests/http/text.sh, with source), and the
// broken copies the refusals read: `unsafe` (ntotal 9007199254740993),
// `textbad` (a flipped byte in words-buckets.bin), `tampered` (a flipped
// postings byte). Returns the 20 query vectors and the tampered path.
export function buildFixtures(vigilo, scratch, www) {
  const centres = Array.from({ length: 12 }, () => Array.from({ length: d }, () => random() * 4 - 2));
  const vectors = (n) => Array.from({ length: n }, (_, i) => Float32Array.from({ length: d },
    (_, j) => centres[i % centres.length][j] + (random() - 0.5) * 0.6));
  const base = vectors(2000);
  const buf = Buffer.alloc(base.length * (4 + 4 * d));
  base.forEach((row, i) => {
    buf.writeInt32LE(d, i * (4 + 4 * d));
    row.forEach((x, j) => buf.writeFloatLE(x, i * (4 + 4 * d) + 4 + 4 * j));
  });
  fs.writeFileSync(path.join(scratch, 'base.fvecs'), buf);
  const queries = vectors(20);
  const run = (args) => execFileSync(vigilo, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  for (const p of publications) {
    run(['index', 'build', '--input', path.join(scratch, 'base.fvecs'), ...p.args, '-q', '-o', path.join(www, p.name)]);
  }

  const words = [['the', 0.1, -0.2, 0.3, 0.4], ['a', 0.25, 0.5, -0.125, 1.5], ['small', -0.038194, -0.24487, 0.72812, -0.39961],
    ['feline', 0.083172, 0.043953, -0.39141, 0.3344], ['cat', 0.7, 0.1, 0.1, 0.2], ['salt', -1.25, 2.5, 0.003, 1e-3],
    ['water', 3.14159, -2.71828, 1.41421, 0.57721], ['fox', 0.33333, 0.66667, -0.11111, 0.22222], ['don', 0.9, 0.8, 0.7, 0.6],
    ['t', -0.9, 0.05, 0.05, 0.01], ['france', 0.011, 0.022, 0.033, 0.044], ['capital', 2, 0, 0, -2], ['well', 0.2, 0.2, 0.2, -0.2]];
  const modelDir = path.join(scratch, 'model-src', 'package');
  fs.mkdirSync(modelDir, { recursive: true });
  fs.writeFileSync(path.join(modelDir, 'package.json'), '{"name":"wink-fixture","version":"0.0.1","main":"./fixture.json"}');
  fs.writeFileSync(path.join(modelDir, 'fixture.json'), JSON.stringify({
    precision: 8, l2NormIndex: 4, wordIndex: 5, size: words.length, dimensions: 4, words: words.map((w) => w[0]),
    vectors: Object.fromEntries(words.map((w, i) => [w[0], [...w.slice(1), 1, i]])), unkVector: [0, 0, 0, 0, 0, -1],
  }));
  execFileSync('tar', ['-C', path.join(scratch, 'model-src'), '-czf', path.join(scratch, 'model.tgz'), 'package']);
  run(['embed', 'import', path.join(scratch, 'model.tgz'), '--out', path.join(scratch, 'model'), '-q']);
  const vocabulary = words.map((w) => w[0]);
  fs.writeFileSync(path.join(scratch, 'texts.jsonl'), Array.from({ length: 40 }, (_, i) => JSON.stringify({
    id: i, title: `doc ${i}`, text: Array.from({ length: 1 + (i % 4) }, (_, j) => vocabulary[(i * 7 + j * 3) % vocabulary.length]).join(' '),
  })).join('\n') + '\n');
  run(['index', 'build', path.join(scratch, 'texts.jsonl'), '--embed-model', path.join(scratch, 'model'), '--text-field', 'text',
    '--key', 'id', '--source', '--nlist', '4', '-q', '-o', path.join(www, 'text')]);

  fs.cpSync(path.join(www, 'cosine-lvq4'), path.join(www, 'unsafe'), { recursive: true });
  const unsafeManifest = path.join(www, 'unsafe', 'manifest.json');
  const manifestText = fs.readFileSync(unsafeManifest, 'utf8');
  check(/"ntotal":\s*2000/.test(manifestText), 'the manifest has no "ntotal": 2000 to change');
  fs.writeFileSync(unsafeManifest, manifestText.replace(/"ntotal":\s*2000/, '"ntotal": 9007199254740993'));
  fs.cpSync(path.join(www, 'text'), path.join(www, 'textbad'), { recursive: true });
  flipMiddleByte(path.join(www, 'textbad', 'embedding', 'words-buckets.bin'));
  fs.cpSync(path.join(www, 'l2-lvq4'), path.join(www, 'tampered'), { recursive: true });
  const postings = fs.readdirSync(path.join(www, 'tampered'), { recursive: true })
    .filter((f) => f.startsWith('ivf_postings') && f.endsWith('.parquet')).sort()[0];
  flipMiddleByte(path.join(www, 'tampered', postings));
  return { queries, tamperedPostings: postings };
}

function flipMiddleByte(file) {
  const bytes = fs.readFileSync(file);
  bytes[bytes.length >> 1] ^= 1;
  fs.writeFileSync(file, bytes);
}

export const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  s.on('error', reject);
});

// One private nginx (own config and prefix under `dir`, `daemon off`,
// stopped by its PID) serving `servers`: [{port, body}] where body is the
// server block's inside. The access log names method, URI, Range, status,
// bytes, user agent and Origin, one request a line.
export async function startNginx(dir, servers) {
  fs.mkdirSync(path.join(dir, 'tmp'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'nginx.conf'), `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  log_format vigilo '$request_method $request_uri "$http_range" $status $body_bytes_sent "$http_user_agent" "$http_origin"';
  access_log ${dir}/access.log vigilo;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  default_type application/octet-stream;
  types { text/html html; text/javascript mjs js; text/css css; application/json json; }
${servers.map((s) => `  server {\n    listen 127.0.0.1:${s.port};\n${s.body}\n  }`).join('\n')}
}
`);
  const bin = fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  const child = spawn(bin, ['-p', `${dir}/`, '-c', `${dir}/nginx.conf`, '-e', `${dir}/error.log`], { stdio: 'ignore' });
  for (let i = 0; i < 100; ++i) {
    try {
      await fetch(`http://127.0.0.1:${servers[0].port}/`);
      return { stop: () => child.kill(), log: () => fs.readFileSync(path.join(dir, 'access.log'), 'utf8').trim().split('\n') };
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  child.kill();
  throw new Error(`nginx did not start: ${fs.readFileSync(path.join(dir, 'error.log'), 'utf8')}`);
}

// `vigilo index query URL … --json --stats` with the cache off: its rows,
// their raw lines (for the exact key and distance text) and its stats.
export function cliQuery(vigilo, url, queryArgs, k, nprobe, columns) {
  const args = ['index', 'query', url, ...queryArgs, '-k', String(k), '--nprobe', String(nprobe), '--json', '--stats',
    ...(columns.length ? ['--columns', columns.join(',')] : [])];
  const r = spawnSync(vigilo, args, { encoding: 'utf8', env: { ...process.env, VIGILO_CACHE: 'off' } });
  if (r.status !== 0) throw new Error(`vigilo ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  const lines = r.stdout.trim().split('\n').filter(Boolean);
  const stats = {};
  for (const m of r.stderr.matchAll(/stats: (\w+) requests=(\d+) round_trips=(\d+) bytes=(\d+) cache_hits=(\d+)/g)) {
    stats[m[1]] = { requests: +m[2], round_trips: +m[3], bytes: +m[4], cache_hits: +m[5] };
  }
  return { lines, rows: lines.map((l) => JSON.parse(l)), stats };
}

// The raw text of a field of one CLI JSON line (an integer key, a distance).
export function rawField(line, name) {
  return new RegExp(`"${name}":(-?[0-9.eE+-]+)`).exec(line)[1];
}

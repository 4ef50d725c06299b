// The WebAssembly read core against the native CLI (docs/format/wasm.md):
// builds small publications with `vigilo index build`, queries them with
// `vigilo index query --json`, runs the same queries through
// build/wasm/vigilo_read_core.mjs (the sans-IO state machine, every range read
// here from the publication's files), and requires the same keys in the same
// order with bit-identical float32 distances.
// Usage: node smoke.mjs VIGILO_BINARY VIGILO_READ_CORE_MJS SCRATCH_DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';

const [vigilo, coreJs, scratchArg] = process.argv.slice(2);
if (!vigilo || !coreJs || !scratchArg) {
  console.error('usage: node smoke.mjs VIGILO_BINARY VIGILO_READ_CORE_MJS SCRATCH_DIR');
  process.exit(2);
}
if (!fs.existsSync(coreJs)) {
  console.error(`wasm smoke: ${coreJs} is missing: run scripts/build-wasm`);
  process.exit(1);
}
fs.rmSync(scratchArg, { recursive: true, force: true });
fs.mkdirSync(scratchArg, { recursive: true });
const scratch = fs.realpathSync(scratchArg);

// A deterministic generator (xorshift32), so every run sees the same vectors.
let state = 0x9e3779b9;
function random() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state / 4294967296;
}
// Vectors around a few cluster centres, so lists differ in size.
function vectors(n, d, centres) {
  const out = [];
  for (let i = 0; i < n; ++i) {
    const c = centres[i % centres.length];
    out.push(Float32Array.from({ length: d }, (_, j) => c[j] + (random() - 0.5) * 0.6));
  }
  return out;
}
function writeFvecs(file, rows) {
  const d = rows[0].length;
  const buf = Buffer.alloc(rows.length * (4 + 4 * d));
  rows.forEach((row, i) => {
    const at = i * (4 + 4 * d);
    buf.writeInt32LE(d, at);
    row.forEach((x, j) => buf.writeFloatLE(x, at + 4 + 4 * j));
  });
  fs.writeFileSync(file, buf);
}

const core = await (await import(pathToFileURL(path.resolve(coreJs)).href)).default();
const kernel = core.UTF8ToString(core._vigilo_kernel());

function check(cond, what) {
  if (!cond) throw new Error(what);
}
function errorText() { return core.UTF8ToString(core._vigilo_error()); }

// One query batch through the WASM state machine, reading ranges from `dir`.
function wasmQuery(dir, queries, k, nprobe) {
  const reader = openReader(dir);
  const d = queries[0].length;
  const qp = core._malloc(queries.length * d * 4);
  queries.forEach((q, i) => core.HEAPF32.set(q, qp / 4 + i * d));
  const run = core._vigilo_query_start(reader, qp, queries.length, d, k, nprobe);
  core._free(qp);
  check(run !== 0, `query_start: ${errorText()}`);
  const roundTrips = drive('query', dir, run);
  const result = JSON.parse(core.UTF8ToString(core._vigilo_query_result(run)));
  core._vigilo_query_free(run);
  core._vigilo_reader_free(reader);
  return { ...result, roundTrips };
}

// Runs a state machine (`query` or `lookup`) to the end, reading every
// requested range from the publication's files; returns the round trips.
function drive(kind, dir, run) {
  const files = new Map();
  let roundTrips = 0;
  while (!core[`_vigilo_${kind}_done`](run)) {
    const requests = JSON.parse(core.UTF8ToString(core[`_vigilo_${kind}_requests`](run)));
    const parts = requests.map(({ path: p, offset, length }) => {
      if (!files.has(p)) files.set(p, fs.readFileSync(path.join(dir, p)));
      return files.get(p).subarray(offset, offset + length);
    });
    const bytes = Buffer.concat(parts);
    // A whole object's SHA-256, for the core to compare with the manifest's.
    const digests = Buffer.from(requests.map((r, i) => (r.sha256 ? createHash('sha256').update(parts[i]).digest('hex') : ''))
      .join('') + '\0');
    const bp = core._malloc(Math.max(bytes.length, 1));
    const dp = core._malloc(digests.length);
    core.HEAPU8.set(bytes, bp);
    core.HEAPU8.set(digests, dp);
    const rc = core[`_vigilo_${kind}_supply`](run, bp, bytes.length, dp);
    core._free(bp);
    core._free(dp);
    if (rc !== 0) throw new Error(`${kind}_supply: ${errorText()}`);
    ++roundTrips;
  }
  return roundTrips;
}

function openReader(dir) {
  const manifest = fs.readFileSync(path.join(dir, 'manifest.json'));
  const mp = core._malloc(manifest.length);
  core.HEAPU8.set(manifest, mp);
  const reader = core._vigilo_reader_open(mp, manifest.length);
  core._free(mp);
  check(reader !== 0, `reader_open: ${errorText()}`);
  return reader;
}

// Payload lookup of `keys` in WASM: the values, or the error's text.
function wasmLookup(dir, keys, columns) {
  const reader = openReader(dir);
  const kp = core._malloc(keys.length * 8);
  keys.forEach((key, i) => new DataView(core.HEAPU8.buffer).setBigInt64(kp + 8 * i, BigInt(key), true));
  const cols = Buffer.from(`${columns}\0`);
  const cp = core._malloc(cols.length);
  core.HEAPU8.set(cols, cp);
  const lookup = core._vigilo_lookup_start(reader, kp, keys.length, cp);
  core._free(kp);
  core._free(cp);
  check(lookup !== 0, `lookup_start: ${errorText()}`);
  let outcome;
  try {
    drive('lookup', dir, lookup);
    outcome = { values: JSON.parse(core.UTF8ToString(core._vigilo_lookup_result(lookup))) };
  } catch (e) {
    outcome = { error: e.message };
  }
  core._vigilo_lookup_free(lookup);
  core._vigilo_reader_free(reader);
  return outcome;
}

function float32Bits(x) {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, x, true);
  return view.getUint32(0, true);
}
// The shortest decimal that reads back as the float32 (the CLI's FloatText).
function float32Text(bits) {
  const view = new DataView(new ArrayBuffer(4));
  view.setUint32(0, bits, true);
  const f = view.getFloat32(0, true);
  for (let p = 1; p <= 9; ++p) {
    const t = f.toPrecision(p);
    if (Math.fround(Number(t)) === f) return Number(t);
  }
  return f;
}

let compared = 0;
function compare(name, buildArgs, k, nprobe) {
  const d = 24;
  const centres = Array.from({ length: 12 }, () => Array.from({ length: d }, () => random() * 4 - 2));
  const base = path.join(scratch, `${name}.fvecs`);
  const queriesFile = path.join(scratch, `${name}-queries.fvecs`);
  const pub = path.join(scratch, name);
  writeFvecs(base, vectors(2000, d, centres));
  const queries = vectors(8, d, centres);
  writeFvecs(queriesFile, queries);
  execFileSync(vigilo, ['index', 'build', '--input', base, ...buildArgs, '-q', '-o', pub], { stdio: 'pipe' });
  const nativeLines = execFileSync(vigilo, ['index', 'query', path.join(pub, 'manifest.json'), '--queries', queriesFile,
    '-k', String(k), '--nprobe', String(nprobe), '--json'], { encoding: 'utf8' }).trim().split('\n');
  const native = nativeLines.map((l) => JSON.parse(l));
  // Distances as the CLI wrote them, read back as float32 bits (the CLI's
  // text is the shortest that reads back as the same float32, so this is exact).
  const nativeDistanceText = nativeLines.map((l) => /"_distance":(-?[0-9.eE+-]+)/.exec(l)[1]);
  const wasm = wasmQuery(pub, queries, k, nprobe);
  check(wasm.hits.length === native.length && native.length === queries.length * k,
    `${name}: ${wasm.hits.length} WASM hits, ${native.length} native, want ${queries.length * k}`);
  const keyName = Object.keys(native[0]).find((c) => !['query', 'rank', '_distance'].includes(c));
  native.forEach((n, i) => {
    const w = wasm.hits[i];
    const where = `${name}: query ${n.query} rank ${n.rank}`;
    check(w.query === n.query && w.rank === n.rank, `${where}: WASM has query ${w.query} rank ${w.rank}`);
    check(w.key === String(n[keyName]), `${where}: key ${w.key} in WASM, ${n[keyName]} native`);
    const nativeBits = float32Bits(Number(nativeDistanceText[i]));
    check(w.distance_bits === nativeBits,
      `${where}: distance bits ${w.distance_bits.toString(16)} in WASM, ${nativeBits.toString(16)} native ` +
      `(${nativeDistanceText[i]})`);
    check(String(float32Text(w.distance_bits)) === String(Number(nativeDistanceText[i])),
      `${where}: distance text ${float32Text(w.distance_bits)} in WASM, ${nativeDistanceText[i]} native`);
    ++compared;
  });
  console.log(`${name}: ${native.length} hits identical (WASM kernel ${wasm.kernel}, ${wasm.requests} requests, ` +
    `${wasm.roundTrips} round trips, ${wasm.bytes_fetched} bytes)`);
  return { pub, keys: native.slice(0, 3).map((n) => n[keyName]) };  // small: exact as numbers
}

// The first query's hits with their `vector` payload from the CLI, against a
// WASM payload lookup of the same keys: the same JSON values.
function checkLookup(pub, keys) {
  const queryFile = path.join(scratch, 'l2-lvq8-queries.fvecs');
  const native = execFileSync(vigilo, ['index', 'query', path.join(pub, 'manifest.json'), '--queries', queryFile,
    '-k', String(keys.length), '--nprobe', '6', '--columns', 'vector', '--json'], { encoding: 'utf8' })
    .trim().split('\n').map((l) => JSON.parse(l)).filter((r) => r.query === 0);
  const lookup = wasmLookup(pub, keys, 'vector');
  check(lookup.error === undefined, `payload lookup over ZSTD pages failed: ${lookup.error}`);
  check(lookup.values.length === keys.length, `payload lookup: ${lookup.values.length} rows for ${keys.length} keys`);
  native.forEach((n, i) => {
    const want = JSON.stringify(n.vector);
    const got = JSON.stringify(lookup.values[i][0]);
    check(n.vector.length === 24 && got === want, `payload of key ${keys[i]}: ${got} in WASM, ${want} native`);
  });
  console.log(`payload lookup (ZSTD source pages): ${keys.length} rows equal to the CLI's`);
}

try {
  check(kernel === 'portable', `the WASM core dispatches the ${kernel} kernel, want portable`);
  const withSource = compare('l2-lvq8',
    ['--metric', 'l2_squared', '--encoding', 'lvq8', '--nlist', '24', '--roots', '4', '--source'], 10, 6);
  compare('cosine-lvq4', ['--metric', 'cosine', '--encoding', 'lvq4', '--nlist', '16', '--roots', '3'], 7, 5);
  // Source tables are written with ZSTD pages: the WASM core decodes them
  // with zstd's own decoder, and the payload values equal the CLI's.
  checkLookup(withSource.pub, withSource.keys);
} catch (e) {
  // The message only: a stack would quote the generated module (one long line).
  console.error(`wasm smoke: FAILED: ${e.message}`);
  process.exit(1);
}
console.log(`wasm smoke: ok (${compared} hits bit-identical to the native CLI)`);
fs.rmSync(scratch, { recursive: true, force: true });

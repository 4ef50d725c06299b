// vigilo's browser and node reader (docs/format/wasm.md, "The ES module"):
//
//   import { openPublication } from './vigilo.mjs';
//   const pub = await openPublication('https://host/pub/manifest.json');
//   const rows = await pub.search({ text: 'a small cat', k: 10, columns: ['label'] });
//
// Everything that decides is the WebAssembly read core (the same C++ as the
// native CLI): the manifest's exact parsing (JSON.parse never sees it), the
// query plan, the scoring, the payload lookup, the text embedding and its
// parity probes, and the HTTP answer rules (status, Content-Range, lengths).
// This file only fetches — GET with one `Range: bytes=a-b`, never HEAD, a
// suffix or several ranges — hashes with WebCrypto where the core names a
// digest, keeps fetched ranges for later queries, and counts.

const CORE_FILE = './vigilo_read_core.mjs';
// The core refuses a manifest above 64 MiB; one byte more is read so it can say so.
const MANIFEST_CAP = 64 * 1024 * 1024;

export class VigiloError extends Error {
  constructor(message) {
    super(message);
    this.name = 'VigiloError';
  }
}

let corePromise = null;
async function loadCore(core) {
  if (core) return typeof core === 'function' ? core() : core;
  if (!corePromise) {
    corePromise = import(new URL(CORE_FILE, import.meta.url).href).then((m) => m.default());
  }
  return corePromise;
}

function newStats() {
  return { requests: 0, round_trips: 0, bytes: 0, cache_hits: 0 };
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function sha256Hex(bytes) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) {
    throw new VigiloError('WebCrypto (crypto.subtle) is missing: a browser offers it only to secure contexts ' +
      '(https, or http on localhost), and the digests of whole objects and model assets need it');
  }
  return hex(await subtle.digest('SHA-256', bytes));
}

// The core's C strings and buffers.
class Core {
  constructor(m) {
    this.m = m;
    this.encoder = new TextEncoder();
  }
  error() {
    return this.m.UTF8ToString(this.m._vigilo_error());
  }
  fail(what) {
    throw new VigiloError(what ? `${what}: ${this.error()}` : this.error());
  }
  // Copies bytes (or a string, NUL-terminated) into the heap; null stays 0.
  alloc(value) {
    if (value === null || value === undefined) return 0;
    const bytes = typeof value === 'string' ? this.encoder.encode(`${value}\0`) : value;
    const p = this.m._malloc(Math.max(bytes.length, 1));
    this.m.HEAPU8.set(bytes, p);
    return p;
  }
  withHeap(values, fn) {
    const ptrs = values.map((v) => this.alloc(v));
    try {
      return fn(...ptrs);
    } finally {
      ptrs.forEach((p) => p && this.m._free(p));
    }
  }
  json(ptr) {
    return JSON.parse(this.m.UTF8ToString(ptr));
  }
  // The HTTP rules: 0 or an error text. bodyLength < 0: the head alone.
  checkAnswer(path, offset, length, size, res, bodyLength) {
    const range = res.headers.get('content-range');
    let encoding = res.headers.get('content-encoding');
    const lengthHeader = res.headers.get('content-length');
    let contentLength = lengthHeader !== null && /^[0-9]+$/.test(lengthHeader.trim()) ? Number(lengthHeader) : -1;
    // A browser always sends Accept-Encoding (a script cannot stop it), and
    // fetch decodes what comes back: a server compressing JSON on the fly
    // sends the manifest (the one plain GET) gzip-encoded. The body here is
    // then the decoded manifest and Content-Length counts the encoded bytes,
    // so neither header describes it; the cap still bounds it. A range keeps
    // every rule (servers do not encode 206 answers; one that did is refused).
    if (length === 0 && encoding !== null && encoding.trim().toLowerCase() !== 'identity') {
      encoding = null;
      contentLength = -1;
    }
    const rc = this.withHeap([path, range, encoding], (p, r, e) =>
      this.m._vigilo_http_check(p, offset, length, size, res.status, r, e, contentLength, bodyLength));
    if (rc !== 0) throw new VigiloError(this.error());
  }
}

// Reads at most `cap` bytes of a body; one byte more says the body is longer
// (and stops the download there).
async function readCapped(res, cap) {
  if (!res.body) return new Uint8Array(await res.arrayBuffer());
  const reader = res.body.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.length;
    if (total > cap) {
      await reader.cancel();
      break;
    }
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

class Publication {
  constructor(core, fetchFn, manifestUrl) {
    this.core = core;
    this.fetch = fetchFn;
    this.manifestUrl = manifestUrl;
    this.base = new URL('.', manifestUrl);
    this.cache = new Map(); // "path\0offset\0length" → {bytes, sha256}
    this.manifestStats = newStats();
    this.last = null;
  }

  url(path) {
    return new URL(path, this.base).href;
  }

  async get(url, path, offset, length, size) {
    let res;
    try {
      const headers = length > 0 ? { Range: `bytes=${offset}-${offset + length - 1}` } : {};
      res = await this.fetch(url, { method: 'GET', headers, redirect: 'error' });
    } catch (e) {
      throw new VigiloError(`${path}: cannot fetch ${url}: ${e.message} (unreachable, refused by CORS, or ` +
        'redirected: objects must be served at their own URL)');
    }
    try {
      this.core.checkAnswer(path, offset, length, size, res, -1);
    } catch (e) {
      if (res.body) await res.body.cancel().catch(() => {});
      throw e;
    }
    const body = await readCapped(res, length > 0 ? length : size);
    this.core.checkAnswer(path, offset, length, size, res, body.length);
    return body;
  }

  async open(verify) {
    const manifest = await this.get(this.manifestUrl, 'manifest.json', 0, 0, MANIFEST_CAP);
    this.manifestStats = { requests: 1, round_trips: 1, bytes: manifest.length, cache_hits: 0 };
    const reader = this.core.withHeap([manifest], (p) => this.core.m._vigilo_reader_open(p, manifest.length));
    if (reader === 0) this.core.fail('manifest.json');
    this.reader = reader;
    const info = this.core.json(this.core.m._vigilo_reader_info(reader));
    this.sizes = new Map(info.objects.map((o) => [o.path, o.size]));
    const { objects, ...rest } = info;
    this.info = { ...rest, objects: objects.length };
    this.objects = objects;
    if (verify) await this.verifyAll();
  }

  // Every object whole, its SHA-256 against the manifest's (as `vigilo
  // index verify` does natively): one parallel round.
  async verifyAll() {
    const stats = newStats();
    stats.round_trips = 1;
    await Promise.all(this.objects.map(async (o) => {
      const bytes = await this.get(this.url(o.path), o.path, 0, o.size, o.size);
      const got = await sha256Hex(bytes);
      stats.requests += 1;
      stats.bytes += bytes.length;
      if (got !== o.sha256) {
        throw new VigiloError(`integrity_error: ${o.path}: sha256 of the object is ${got}, expected ${o.sha256}`);
      }
      this.cache.set(`${o.path}\0${0}\0${o.size}`, { bytes, sha256: got });
    }));
    this.verifyStats = stats;
  }

  // One round of a state machine: the ranges not held yet, fetched in
  // parallel; then every range's bytes concatenated in order, and the
  // SHA-256 of each request that names one.
  async round(requests, stats) {
    const entries = await Promise.all(requests.map(async (r) => {
      const key = `${r.path}\0${r.offset}\0${r.length}`;
      let entry = this.cache.get(key);
      if (entry) {
        stats.cache_hits += 1;
        return { entry, fetched: false };
      }
      const size = this.sizes.get(r.path);
      if (size === undefined) throw new VigiloError(`internal: the core asked for ${r.path}, which the manifest does not name`);
      const bytes = await this.get(this.url(r.path), r.path, r.offset, r.length, size);
      entry = { bytes, sha256: null };
      this.cache.set(key, entry);
      return { entry, fetched: true };
    }));
    const fetched = entries.filter((e) => e.fetched);
    if (fetched.length > 0) stats.round_trips += 1;
    stats.requests += fetched.length;
    stats.bytes += fetched.reduce((n, e) => n + e.entry.bytes.length, 0);
    let digests = '';
    for (let i = 0; i < requests.length; ++i) {
      if (!requests[i].sha256) continue;
      const e = entries[i].entry;
      if (e.sha256 === null) e.sha256 = await sha256Hex(e.bytes);
      digests += e.sha256;
    }
    const total = entries.reduce((n, e) => n + e.entry.bytes.length, 0);
    const joined = new Uint8Array(total);
    let at = 0;
    for (const e of entries) {
      joined.set(e.entry.bytes, at);
      at += e.entry.bytes.length;
    }
    return { joined, digests };
  }

  // Drives one state machine (`query`, `lookup` or `text`) to its end.
  async drive(kind, handle, stats) {
    const m = this.core.m;
    try {
      while (!m[`_vigilo_${kind}_done`](handle)) {
        const requests = this.core.json(m[`_vigilo_${kind}_requests`](handle));
        const { joined, digests } = await this.round(requests, stats);
        const rc = this.core.withHeap([joined, digests], (b, d) => m[`_vigilo_${kind}_supply`](handle, b, joined.length, d));
        if (rc !== 0) this.core.fail();
      }
    } catch (e) {
      m[`_vigilo_${kind}_free`](handle);
      throw e;
    }
  }

  async embed(text, stats) {
    const m = this.core.m;
    const handle = this.core.withHeap([text], (t) => m._vigilo_text_start(this.reader, t));
    if (handle === 0) this.core.fail();
    await this.drive('text', handle, stats);
    const p = m._vigilo_text_vector(handle) / 4;
    const vector = Float32Array.from(m.HEAPF32.subarray(p, p + this.info.dimension));
    m._vigilo_text_free(handle);
    return vector;
  }

  async search({ vector, text, k = 10, nprobe = 16, columns = [] } = {}) {
    if ((vector === undefined) === (text === undefined)) throw new VigiloError('give exactly one of vector and text');
    const m = this.core.m;
    const stats = { embed: newStats(), query: newStats(), payload: newStats() };
    const started = Date.now();
    const query = text !== undefined ? await this.embed(String(text), stats.embed) : Float32Array.from(vector);
    const queryBytes = new Uint8Array(query.buffer, query.byteOffset, query.byteLength);
    const run = this.core.withHeap([queryBytes], (q) =>
      m._vigilo_query_start(this.reader, q, 1, query.length, k, nprobe));
    if (run === 0) this.core.fail();
    await this.drive('query', run, stats.query);
    const result = this.core.json(m._vigilo_query_result(run));
    m._vigilo_query_free(run);
    const keyName = this.info.key[0].name;
    const keyType = result.key_type;
    const bits = new Uint32Array(1);
    const asFloat = new Float32Array(bits.buffer);
    const rows = result.hits.map((h) => {
      bits[0] = h.distance_bits;
      let key = h.key;
      if (keyType === 'long') key = BigInt(h.key);
      else if (keyType === 'int' || keyType === 'date') key = Number(h.key);
      return { rank: h.rank, [keyName]: key, _distance: asFloat[0] };
    });
    if (columns.length > 0 && rows.length > 0) {
      const values = await this.lookup(rows.map((r) => r[keyName]), columns, stats.payload);
      rows.forEach((r, i) => columns.forEach((c, j) => { r[c] = values[i][j]; }));
    }
    this.last = { stats, ms: Date.now() - started };
    return rows;
  }

  // The payload columns of rows by key (source key = row position), as
  // search's `columns` returns them; counted as the last search's payload.
  async rows(keys, columns) {
    const stats = { embed: newStats(), query: newStats(), payload: newStats() };
    const started = Date.now();
    const values = await this.lookup(keys, columns, stats.payload);
    this.last = { stats, ms: Date.now() - started };
    return values.map((row) => Object.fromEntries(columns.map((c, j) => [c, row[j]])));
  }

  async lookup(keys, columns, stats) {
    const m = this.core.m;
    const keyBytes = new Uint8Array(8 * keys.length);
    const view = new DataView(keyBytes.buffer);
    keys.forEach((key, i) => view.setBigInt64(8 * i, BigInt(key), true));
    const handle = this.core.withHeap([keyBytes, columns.join(',')], (kp, cp) =>
      m._vigilo_lookup_start(this.reader, kp, keys.length, cp));
    if (handle === 0) this.core.fail();
    await this.drive('lookup', handle, stats);
    const values = this.core.json(m._vigilo_lookup_result(handle));
    m._vigilo_lookup_free(handle);
    const longs = new Set(this.info.columns.filter((c) => c.type === 'long').map((c) => c.name));
    return values.map((row) => row.map((v, j) => (longs.has(columns[j]) && v !== null ? BigInt(v) : v)));
  }

  // What the last search fetched, per phase, as the CLI's --stats prints it
  // (the manifest's open counts as its own phase), and its wall time.
  stats() {
    const phases = { manifest: { ...this.manifestStats } };
    if (this.last) Object.assign(phases, structuredClone(this.last.stats));
    const total = newStats();
    for (const s of Object.values(phases)) for (const f of Object.keys(total)) total[f] += s[f];
    phases.total = total;
    if (this.last) phases.ms = this.last.ms;
    return phases;
  }

  close() {
    if (this.reader) this.core.m._vigilo_reader_free(this.reader);
    this.reader = 0;
  }
}

// Opens the publication whose manifest.json is at `manifestUrl` (absolute,
// or relative to the page). Options: `fetch` (default: the global one),
// `verify` (SHA-256 of every object against the manifest first), `core` (an
// already loaded core, or its factory).
export async function openPublication(manifestUrl, { fetch: fetchFn, verify = false, core } = {}) {
  const f = fetchFn ?? globalThis.fetch.bind(globalThis);
  const base = globalThis.location ? globalThis.location.href : undefined;
  const url = new URL(manifestUrl, base).href;
  const pub = new Publication(new Core(await loadCore(core)), f, url);
  await pub.open(verify);
  return pub;
}

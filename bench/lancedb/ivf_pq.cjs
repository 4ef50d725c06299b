// bench/lancedb/ivf_pq.cjs: the LanceDB peer of bench/ivf_query.sh. LanceDB
// (@lancedb/lancedb 0.31.0, bench/lancedb/package.json, installed by
// bench/lancedb/setup.sh) IVF_PQ on an .fvecs base, recall@k and QPS per nprobe.
//
//   node ivf_pq.cjs build  --modules DIR --db DIR --base F --metric l2|cosine --nlist N
//                          --sub-vectors M [--bits 8] [--iterations 10] [--sample-rate 256]
//   node ivf_pq.cjs search --modules DIR --db DIR --queries F --gt F [--k 10]
//                          [--nprobe 1,2,4,...] [--one-queries N] [--warmup 100] [--metric l2|cosine]
//
// build: a table "vectors" (id int32 = the row position, vector
// FixedSizeList<Float32>[d]) written in 65,536-row batches, then
// createIndex("vector", IVF_PQ{numPartitions, numSubVectors, numBits,
// distanceType, maxIterations, sampleRate}); prints one JSON line
// {"type":"index", ...seconds}. A finished build leaves DB/done.json, and a
// second build with the same DB is skipped (bench/ivf_query.sh keys DB by the
// parameters).
// search: per nprobe, a warm-up of --warmup queries, then
//   - one at a time: `await table.vectorSearch(q).distanceType(m).nprobes(p)
//     .limit(k).select(["id", "_distance"]).toArrow()` for each of the first --one-queries
//     queries in turn (what an interactive caller does, Node overhead included);
//   - batched: one query with every vector (vectorSearch(q0).addQueryVector(q1)…;
//     LanceDB returns a query_index column) — run it pinned to one core
//     (taskset) for a single-thread number, as LanceDB's runtime is threaded;
// prints {"type":"point","index":"LanceDB IVF_PQ","nprobe","recall",
// "qps_batch","queries_batch","recall_one","qps_one","queries_one"} lines.
// apache-arrow is loaded with require (an ES import wrote 0-row tables).
"use strict";
const fs = require("fs");
const path = require("path");
const { createRequire } = require("module");

function die(msg) {
  process.stderr.write(`ivf_pq.cjs: ${msg}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  const a = { _: argv[0] };
  for (let i = 1; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--") || i + 1 >= argv.length) die(`bad argument ${argv[i]}`);
    a[argv[i].slice(2)] = argv[i + 1];
  }
  return a;
}

// .fvecs / .ivecs: per row int32 d, then d 4-byte values. Returns {n, d, data}.
function readVecs(file, Kind) {
  const buf = fs.readFileSync(file);
  const d = buf.readInt32LE(0);
  const record = 4 + 4 * d;
  if (d <= 0 || buf.length % record !== 0) die(`${file}: not an .fvecs/.ivecs file`);
  const n = buf.length / record;
  const data = new Kind(n * d);
  const view = new Kind(buf.buffer, buf.byteOffset, buf.length / 4);
  for (let i = 0; i < n; i++) {
    if (buf.readInt32LE(i * record) !== d) die(`${file}: row ${i} has another dimension`);
    data.set(view.subarray(i * (d + 1) + 1, (i + 1) * (d + 1)), i * d);
  }
  return { n, d, data };
}

function recallOf(ids, gt, q, k) {
  const truth = new Set(gt.data.subarray(q * gt.d, q * gt.d + k));
  const seen = new Set();
  let hits = 0;
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    if (truth.has(id)) hits++;
  }
  return hits / k;
}

async function build(a, lancedb, arrow) {
  const db = a.db;
  if (fs.existsSync(path.join(db, "done.json"))) {
    process.stdout.write(fs.readFileSync(path.join(db, "done.json"), "utf8"));
    return;
  }
  fs.rmSync(db, { recursive: true, force: true });
  fs.mkdirSync(db, { recursive: true });
  const base = readVecs(a.base, Float32Array);
  const { n, d } = base;
  const conn = await lancedb.connect(db);
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Int32(), false),
    new arrow.Field("vector", new arrow.FixedSizeList(d, new arrow.Field("item", new arrow.Float32(), true)), false),
  ]);
  const batchRows = 65536;
  const batch = (start) => {
    const m = Math.min(batchRows, n - start);
    const ids = new Int32Array(m);
    for (let i = 0; i < m; i++) ids[i] = start + i;
    const values = base.data.slice(start * d, (start + m) * d);
    const child = arrow.makeData({ type: new arrow.Float32(), length: m * d, data: values });
    const vectors = arrow.makeData({ type: schema.fields[1].type, length: m, nullCount: 0, child });
    const idData = arrow.makeData({ type: new arrow.Int32(), length: m, data: ids });
    const struct = arrow.makeData({ type: new arrow.Struct(schema.fields), length: m, nullCount: 0, children: [idData, vectors] });
    return new arrow.Table(schema, [new arrow.RecordBatch(schema, struct)]);
  };
  let t = process.hrtime.bigint();
  const table = await conn.createTable("vectors", batch(0));
  for (let start = batchRows; start < n; start += batchRows) await table.add(batch(start));
  const rows = await table.countRows();
  if (rows !== n) die(`the table has ${rows} rows, expected ${n}`);
  const writeSeconds = Number(process.hrtime.bigint() - t) / 1e9;
  t = process.hrtime.bigint();
  const options = {
    numPartitions: Number(a.nlist),
    numSubVectors: Number(a["sub-vectors"]),
    numBits: Number(a.bits || 8),
    distanceType: a.metric,
    maxIterations: Number(a.iterations || 10),
    sampleRate: Number(a["sample-rate"] || 256),
  };
  await table.createIndex("vector", { config: lancedb.Index.ivfPq(options), replace: true });
  const indexSeconds = Number(process.hrtime.bigint() - t) / 1e9;
  const line = JSON.stringify({
    type: "index", index: "LanceDB IVF_PQ", lancedb: lancedbVersion(a.modules), n, d, ...options,
    code_size: (options.numSubVectors * options.numBits) / 8, write_seconds: writeSeconds, index_seconds: indexSeconds,
  }) + "\n";
  fs.writeFileSync(path.join(db, "done.json"), line);
  process.stdout.write(line);
}

function lancedbVersion(modules) {
  try {
    return JSON.parse(fs.readFileSync(path.join(modules, "node_modules/@lancedb/lancedb/package.json"), "utf8")).version;
  } catch {
    return "unknown";
  }
}

async function search(a, lancedb) {
  const queries = readVecs(a.queries, Float32Array);
  const gt = readVecs(a.gt, Int32Array);
  const k = Number(a.k || 10);
  const nq = queries.n, d = queries.d;
  if (gt.n < nq || gt.d < k) die("the ground truth is too small");
  const one = Math.min(nq, Number(a["one-queries"] || nq));
  const warmup = Math.min(nq, Number(a.warmup || 100));
  const metric = a.metric || "l2";
  const nprobes = (a.nprobe || "1,2,4,8,16,32,64,128,256").split(",").map(Number);
  const conn = await lancedb.connect(a.db);
  const table = await conn.openTable("vectors");
  const q = (i) => queries.data.subarray(i * d, (i + 1) * d);
  const one_query = async (i, nprobe) => {
    const result = await table.vectorSearch(q(i)).distanceType(metric).nprobes(nprobe).limit(k).select(["id", "_distance"]).toArrow();
    return Array.from(result.getChild("id").toArray());
  };
  let previous = -1;
  for (const nprobe of nprobes) {
    for (let i = 0; i < warmup; i++) await one_query(i, nprobe);
    let t = process.hrtime.bigint();
    let sumOne = 0;
    for (let i = 0; i < one; i++) sumOne += recallOf(await one_query(i, nprobe), gt, i, k);
    const oneSeconds = Number(process.hrtime.bigint() - t) / 1e9;
    // Batched: one query carrying every vector.
    t = process.hrtime.bigint();
    let query = table.vectorSearch(q(0));
    for (let i = 1; i < nq; i++) query = query.addQueryVector(q(i));
    const result = await query.distanceType(metric).nprobes(nprobe).limit(k).select(["id", "_distance"]).toArrow();
    const batchSeconds = Number(process.hrtime.bigint() - t) / 1e9;
    const ids = result.getChild("id").toArray();
    const qi = result.getChild("query_index").toArray();
    const found = Array.from({ length: nq }, () => []);
    for (let r = 0; r < ids.length; r++) found[Number(qi[r])].push(ids[r]);
    let sum = 0;
    for (let i = 0; i < nq; i++) sum += recallOf(found[i], gt, i, k);
    const recall = sum / nq;
    process.stdout.write(JSON.stringify({
      type: "point", index: "LanceDB IVF_PQ", nprobe, recall: +recall.toFixed(4), qps_batch: +(nq / batchSeconds).toFixed(1),
      queries_batch: nq, recall_one: +(sumOne / one).toFixed(4), qps_one: +(one / oneSeconds).toFixed(1), queries_one: one,
    }) + "\n");
    process.stderr.write(`ivf_pq.cjs: nprobe ${nprobe}: recall ${recall.toFixed(4)}\n`);
    if (nprobe >= 64 && recall - previous < 0.0005) break;
    previous = recall;
  }
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (!a.modules || !a.db) die("usage: node ivf_pq.cjs build|search --modules DIR --db DIR …");
  const req = createRequire(path.join(path.resolve(a.modules), "package.json"));
  const arrow = req("apache-arrow");
  const lancedb = req("@lancedb/lancedb");
  if (a._ === "build") await build(a, lancedb, arrow);
  else if (a._ === "search") await search(a, lancedb);
  else die(`unknown mode ${a._} (build, search)`);
}

main().catch((e) => die(e && e.stack ? e.stack : String(e)));

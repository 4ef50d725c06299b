// The peer reader of bench/http.sh: hyparquet reads the same postings row
// groups vigilo's query read, from the same server, through the same delay
// proxy. The row groups and columns are those whose column chunks overlap the
// byte ranges vigilo requested (from nginx's access log); they are worked out
// from the local copy's footer before the clock starts (footer reads, the
// ranges ending at a file's end, excluded). Timed: for every
// touched file at once, hyparquet's own footer read (parquetMetadataAsync,
// its default 512 KiB tail) and then one parquetRead per run of adjacent row
// groups (rowStart/rowEnd, only those columns). Sizes are passed as known
// (vigilo has them from the manifest too), so hyparquet sends no HEAD.
//
//   node bench/http_hyparquet.mjs MODULES_DIR WWW_DIR BASE_URL RANGES_FILE
//
// RANGES_FILE: lines "PATH START END" (inclusive bytes, PATH relative to
// WWW_DIR and BASE_URL). Prints one JSON object: requests, bytes,
// round_trips (footer then row groups: 2), files, row_groups, runs,
// minimal_bytes (footers + selected column chunks), rows, ms.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, www, baseUrl, rangesFile] = process.argv.slice(2);
const load = (name) => import(pathToFileURL(path.join(modules, name, "src", "index.js")).href);
const { asyncBufferFromUrl, parquetMetadata, parquetMetadataAsync, parquetRead } = await load("hyparquet");
let compressors;
try {
  ({ compressors } = await import(pathToFileURL(path.join(modules, "hyparquet-compressors", "src", "index.js")).href));
} catch {
  compressors = undefined;
}

const byFile = new Map();
for (const line of fs.readFileSync(rangesFile, "utf8").split("\n").filter(Boolean)) {
  const [p, a, b] = line.split(" ");
  if (!byFile.has(p)) byFile.set(p, []);
  byFile.get(p).push([Number(a), Number(b)]);
}

// Plan, untimed: per file, the row groups and columns whose chunks overlap a range.
const plans = [];
let minimal = 0;
for (const [p, ranges] of byFile) {
  const bytes = fs.readFileSync(path.join(www, p));
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const meta = parquetMetadata(ab);
  const footer = bytes.readUInt32LE(bytes.length - 8) + 8;
  minimal += footer;
  // A range ending at the file's end is vigilo's footer read (a speculative
  // tail that may cover unneeded chunks): it selects no row group.
  const data = ranges.filter(([, b]) => b < bytes.length - 1);
  const overlaps = (s, e) => data.some(([a, b]) => a <= e && s <= b);
  const groups = [];
  const columns = new Set();
  let rowStart = 0;
  meta.row_groups.forEach((rg, i) => {
    const rows = Number(rg.num_rows);
    let hit = false;
    for (const c of rg.columns) {
      const m = c.meta_data;
      const s = Number(m.dictionary_page_offset ?? m.data_page_offset);
      const e = s + Number(m.total_compressed_size) - 1;
      if (overlaps(s, e)) {
        hit = true;
        columns.add(m.path_in_schema.join("."));
        minimal += e - s + 1;
      }
    }
    if (hit) groups.push({ i, rowStart, rowEnd: rowStart + rows });
    rowStart += rows;
  });
  // Runs of adjacent row groups: one parquetRead each.
  const runs = [];
  for (const g of groups) {
    const last = runs[runs.length - 1];
    if (last && last.lastIndex === g.i - 1) {
      last.rowEnd = g.rowEnd;
      last.lastIndex = g.i;
    } else runs.push({ rowStart: g.rowStart, rowEnd: g.rowEnd, lastIndex: g.i });
  }
  plans.push({ p, size: bytes.length, runs, groups: groups.length, columns: [...columns] });
}

let requests = 0;
let fetched = 0;
let rows = 0;
const start = process.hrtime.bigint();
await Promise.all(
  plans.map(async (plan) => {
    const inner = await asyncBufferFromUrl({ url: new URL(plan.p, baseUrl).href, byteLength: plan.size });
    const file = {
      byteLength: inner.byteLength,
      slice(a, b) {
        requests += 1;
        fetched += (b ?? inner.byteLength) - a;
        return inner.slice(a, b);
      },
    };
    const metadata = await parquetMetadataAsync(file);
    await Promise.all(
      plan.runs.map(
        (run) =>
          new Promise((resolve, reject) => {
            parquetRead({
              file, metadata, compressors, columns: plan.columns, rowStart: run.rowStart, rowEnd: run.rowEnd,
              onComplete: (data) => { rows += data.length; resolve(); },
            }).catch(reject);
          }),
      ),
    );
  }),
);
const ms = Number(process.hrtime.bigint() - start) / 1e6;
process.stdout.write(JSON.stringify({
  requests, bytes: fetched, round_trips: 2, files: plans.length,
  row_groups: plans.reduce((s, p) => s + p.groups, 0), runs: plans.reduce((s, p) => s + p.runs.length, 0),
  minimal_bytes: minimal, rows, ms,
}) + "\n");

// node tools/ivf_layout_check.mjs DIR [--keys-affine A,B] [--expect-index JSON]
//                                    [--input FILE [--input-key NAME]]
//
// Checks the Parquet layout of the vector publication in DIR
// (docs/format/publication-v1.md §2–§3) with DuckDB alone — an independent
// reader of vigilo's files: DIR/manifest.json, then every object it names with
// parquet_file_metadata(), parquet_schema(), parquet_metadata() and
// read_parquet(). What it checks:
//
//   objects    every descriptor's file exists with its size and SHA-256, and DIR
//              holds nothing else (no scratch left behind by the builder)
//   centroids  columns cid, cid_bucket, offset, scale, code (REQUIRED, mapped
//              types); one row group per root with cid-offsets[r+1] − cid-offsets[r]
//              rows; row i has cid = i and cid_bucket = the root owning i; code is
//              `dimension` bytes; offset/scale finite, scale ≥ 0
//   postings   per file: path under ivf_postings/cid_bucket=NNNNNN/ of its
//              cid-bucket; columns cid, the source-key fields, offset, scale, code;
//              per row group the cid chunk has min = max (new and legacy
//              statistics, exact when flagged) and null count 0, every other
//              chunk null count 0; row-group cids non-decreasing from min-cid to
//              max-cid inside the root's interval; the rows DuckDB reads: as many
//              as the footer and the descriptor say, each row's cid the one of its
//              row group, code `dimension` (lvq8) or ceil(dimension/2) (lvq4)
//              bytes, offset/scale finite
//   overall    the sum of rows is ntotal; the postings CID sequence is
//              non-decreasing in manifest order; all cids < nlist; the key (one
//              source-key field) is unique over all postings; with
//              --keys-affine A,B the keys are exactly A + B·i for i in [0, ntotal);
//              with --expect-index, each member of the JSON object equals the
//              manifest's index member (compared as JSON)
//   values     with --input (the .fvecs or Parquet file the index was built from;
//              --input-key names its key column, otherwise a key is the row
//              position): every postings row's key names one input row, and with
//              x that row's vector (L2-normalised for cosine), ĉ the decoded LVQ8
//              centroid of the row's cid and r̂ the decoded residual code (LVQ4:
//              element 2j in the low nibble of byte j), |ĉ + r̂ − x| ≤ scale/2 (+ float
//              slack) in every element, and ĉ is the nearest decoded centroid to x
//              in L2 (publication-v1.md §4; up to 1e-5 relative slack for ties).
//              Decoding is written here from the spec, independently of vigilo's
//              code. Meant for small inputs (the values are held in memory); the
//              nearest-centroid scan is limited to about 2·10⁸ multiply-adds
//              by checking every k-th row.
//
// Prints a FAIL line per failed check (the first 50), then
// `ivf interop: N checks passed` (exit 0) or `… , M failed` (exit 1).
import { createHash } from 'node:crypto'
import { createReadStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'

const args = process.argv.slice(2)
const dir = args[0]
let keysAffine = null
let expectIndex = {}
let inputPath = null
let inputKey = null
for (let i = 1; i < args.length; i += 2) {
  if (args[i] === '--keys-affine') keysAffine = args[i + 1].split(',').map(BigInt)
  else if (args[i] === '--expect-index') expectIndex = JSON.parse(args[i + 1])
  else if (args[i] === '--input') inputPath = args[i + 1]
  else if (args[i] === '--input-key') inputKey = args[i + 1]
  else { console.error(`unknown option ${args[i]}`); process.exit(2) }
}
if (!dir || (keysAffine && keysAffine.length !== 2)) {
  console.error('usage: node tools/ivf_layout_check.mjs DIR [--keys-affine A,B] [--expect-index JSON] [--input FILE [--input-key NAME]]')
  process.exit(2)
}

let passed = 0
let failed = 0
function check(ok, where, message) {
  if (ok) { passed++; return true }
  failed++
  if (failed <= 50) console.log(`FAIL ${where}: ${message}`)
  else if (failed === 51) console.log('FAIL (further failures not shown)')
  return false
}
function finish() {
  console.log(failed === 0 ? `ivf interop: ${passed} checks passed` : `ivf interop: ${passed} checks passed, ${failed} failed`)
  process.exit(failed === 0 ? 0 : 1)
}

const manifestPath = join(dir, 'manifest.json')
let m
try {
  m = JSON.parse(readFileSync(manifestPath, 'utf8'))
} catch (e) {
  check(false, manifestPath, `cannot read: ${e.message}`)
  finish()
}
const index = m.index
const offsets = m.hierarchy['cid-offsets']
const roots = offsets.length - 1
const d = index.dimension
const codeBytes = index.encoding === 'lvq8' ? d : Math.ceil(d / 2)
const keys = index['source-key']
const files = m.postings.files
check(m['format-version'] === 1, 'manifest', `format-version ${m['format-version']}`)
for (const [k, v] of Object.entries(expectIndex)) {
  check(JSON.stringify(index[k]) === JSON.stringify(v), `$.index.${k}`, `${JSON.stringify(index[k])}, expected ${JSON.stringify(v)}`)
}
check(offsets[0] === 0 && offsets[roots] === index.nlist, 'manifest', `cid-offsets must run from 0 to nlist ${index.nlist}`)
const rootOf = cid => {  // the root whose interval holds cid, or -1
  let lo = 0, hi = roots
  if (cid < 0 || cid >= index.nlist) return -1
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (offsets[mid] <= cid) lo = mid; else hi = mid }
  return lo
}

const instance = await DuckDBInstance.create(':memory:')
const con = await instance.connect()
const quote = s => "'" + s.replaceAll("'", "''") + "'"
const rowsOf = async sql => (await con.runAndReadAll(sql)).getRowObjectsJson()
const num = v => (v === null || v === undefined ? null : Number(v))
const readParquet = path => `read_parquet(${quote(path)}, file_row_number = true, hive_partitioning = false)`

// --- objects: existence, size, SHA-256, nothing else in DIR ---
const descriptors = [['$.hierarchy.centroids', m.hierarchy.centroids], ...files.map((f, i) => [`$.postings.files[${i}]`, f])]
if (m.source) m.source.files.forEach((f, i) => descriptors.push([`$.source.files[${i}]`, f]))
async function sha256(path) {
  const h = createHash('sha256')
  for await (const chunk of createReadStream(path)) h.update(chunk)
  return h.digest('hex')
}
for (const [where, desc] of descriptors) {
  const path = join(dir, desc.path)
  if (!check(existsSync(path), `${where} ${desc.path}`, 'file missing')) continue
  check(statSync(path).size === desc.size, `${where} ${desc.path}`, `size ${statSync(path).size}, descriptor says ${desc.size}`)
  const got = await sha256(path)
  check(got === desc.sha256, `${where} ${desc.path}`, `sha256 ${got}, descriptor says ${desc.sha256}`)
}
const listed = []
const walk = p => {
  for (const e of readdirSync(p, { withFileTypes: true })) {
    const full = join(p, e.name)
    if (e.isDirectory()) walk(full)
    else listed.push(relative(dir, full))
  }
}
walk(dir)
const named = new Set(['manifest.json', ...descriptors.map(([, desc]) => desc.path)])
const stray = listed.filter(p => !named.has(p))
check(stray.length === 0, dir, `files the manifest does not name: ${stray.slice(0, 5).join(', ')}`)
const dirs = readdirSync(dir).filter(e => statSync(join(dir, e)).isDirectory() && e !== 'ivf_postings' && e !== 'source')
check(dirs.length === 0, dir, `unexpected directories: ${dirs.join(', ')}`)

// --- schemas ---
const mapped = {  // manifest type -> [physical type, accepted converted types, type_length]
  boolean: ['BOOLEAN', [null]], int: ['INT32', [null, 'INT_32']], long: ['INT64', [null, 'INT_64']],
  binary: ['BYTE_ARRAY', [null]], string: ['BYTE_ARRAY', ['UTF8']], date: ['INT32', ['DATE']],
  float: ['FLOAT', [null]], double: ['DOUBLE', [null]],
}
function expectColumn(type) {
  const fixed = /^fixed\((\d+)\)$/.exec(type)
  if (fixed) return ['FIXED_LEN_BYTE_ARRAY', [null, 'UUID'], Number(fixed[1])]
  return mapped[type]
}
async function checkSchema(path, label, columns) {
  const schema = await rowsOf(`SELECT name, type, type_length, repetition_type, num_children, converted_type
                                FROM parquet_schema(${quote(path)}) ORDER BY column_id`)
  const leaves = schema.slice(1)
  check(num(schema[0].num_children) === columns.length && leaves.length === columns.length, label,
    `columns ${leaves.map(c => c.name).join(',')}, expected ${columns.map(c => c[0]).join(',')}`)
  columns.forEach(([name, type], i) => {
    const c = leaves[i]
    if (!c) return
    const [physical, converted, length] = expectColumn(type)
    check(c.name === name && c.type === physical && c.repetition_type === 'REQUIRED' && converted.includes(c.converted_type) &&
          (length === undefined || num(c.type_length) === length), label,
      `column ${i} is ${c.repetition_type} ${c.name} ${c.type}/${c.converted_type}, expected REQUIRED ${name} ${physical}`)
  })
}

// --- centroids.parquet ---
{
  const path = join(dir, m.hierarchy.centroids.path)
  const label = m.hierarchy.centroids.path
  await checkSchema(path, label, [['cid', 'int'], ['cid_bucket', 'int'], ['offset', 'float'], ['scale', 'float'], ['code', 'binary']])
  const groups = await rowsOf(`SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata(${quote(path)}) ORDER BY row_group_id`)
  check(groups.length === roots, label, `${groups.length} row groups, expected one per root (${roots})`)
  groups.forEach((g, r) => {
    if (r < roots) {
      check(num(g.row_group_num_rows) === offsets[r + 1] - offsets[r], `${label} row group ${r}`,
        `${g.row_group_num_rows} rows, cid-offsets say ${offsets[r + 1] - offsets[r]}`)
    }
  })
  const intervals = offsets.slice(0, -1).map((lo, r) => `(${r}, ${lo}, ${offsets[r + 1]})`).join(', ')
  const [s] = await rowsOf(`
    WITH c AS (SELECT * FROM ${readParquet(path)}), roots(r, lo, hi) AS (VALUES ${intervals})
    SELECT count(*) AS n,
           min(file_row_number) FILTER (WHERE cid <> file_row_number) AS bad_cid,
           min(file_row_number) FILTER (WHERE lo IS NULL OR cid < lo OR cid >= hi) AS bad_bucket,
           min(file_row_number) FILTER (WHERE octet_length(code) <> ${d}) AS bad_len,
           min(file_row_number) FILTER (WHERE NOT isfinite("offset") OR NOT isfinite("scale") OR "scale" < 0) AS bad_params
    FROM c LEFT JOIN roots ON c.cid_bucket = roots.r`)
  check(num(s.n) === index.nlist, label, `DuckDB read ${s.n} rows, nlist is ${index.nlist}`)
  check(s.bad_cid === null, label, `row ${s.bad_cid}: cid is not the row number`)
  check(s.bad_bucket === null, label, `row ${s.bad_bucket}: cid_bucket is not the root owning the cid`)
  check(s.bad_len === null, label, `row ${s.bad_len}: code is not ${d} bytes`)
  check(s.bad_params === null, label, `row ${s.bad_params}: offset/scale not finite or scale < 0`)
}

// --- postings files ---
const columns = [['cid', 'int'], ...keys.map(k => [k.name, k.type]), ['offset', 'float'], ['scale', 'float'], ['code', 'binary']]
let totalRows = 0
let totalRead = 0
let lastCid = -1
const cidsSeen = new Set()
for (let i = 0; i < files.length; i++) {
  const f = files[i]
  const label = `$.postings.files[${i}] ${f.path}`
  const path = join(dir, f.path)
  const b = f['cid-bucket']
  totalRows += f.rows
  check(f.path.startsWith(`ivf_postings/cid_bucket=${String(b).padStart(6, '0')}/`), label, `path is not in bucket ${b}'s directory`)
  check(b >= 0 && b < roots && offsets[b] <= f['min-cid'] && f['min-cid'] <= f['max-cid'] && f['max-cid'] < offsets[b + 1], label,
    `[min-cid, max-cid] = [${f['min-cid']}, ${f['max-cid']}] is not inside root ${b}'s interval`)
  if (!existsSync(path)) continue
  await checkSchema(path, label, columns)
  const [fm] = await rowsOf(`SELECT num_rows, num_row_groups FROM parquet_file_metadata(${quote(path)})`)
  check(num(fm.num_rows) === f.rows, label, `footer has ${fm.num_rows} rows, descriptor says ${f.rows}`)

  const chunks = await rowsOf(`SELECT row_group_id, row_group_num_rows, path_in_schema, stats_min, stats_max, stats_null_count,
                                      stats_min_value, stats_max_value, min_is_exact, max_is_exact
                               FROM parquet_metadata(${quote(path)}) ORDER BY row_group_id, column_id`)
  const groups = []  // per row group: {cid, rows, first}
  let first = 0
  for (const c of chunks) {
    const rg = num(c.row_group_id)
    const where = `${label} row group ${rg} column ${c.path_in_schema}`
    if (c.path_in_schema !== 'cid') {
      check(c.stats_null_count === null || num(c.stats_null_count) === 0, where, `null count ${c.stats_null_count}`)
      continue
    }
    const ok = check(c.stats_min_value !== null && c.stats_min_value === c.stats_max_value, where,
      `min ${c.stats_min_value} and max ${c.stats_max_value} must be one cid`)
    check(c.stats_min === c.stats_min_value && c.stats_max === c.stats_max_value, where,
      `legacy min/max ${c.stats_min}/${c.stats_max} differ from min_value/max_value`)
    check(num(c.stats_null_count) === 0, where, `null count ${c.stats_null_count}, expected 0`)
    check(c.min_is_exact !== false && c.max_is_exact !== false, where, 'statistics flagged inexact')
    const cid = ok ? Number(c.stats_min_value) : NaN
    const rows = num(c.row_group_num_rows)
    groups.push({ cid, rows, first })
    first += rows
  }
  check(groups.length === num(fm.num_row_groups) && groups.length > 0, label, `${groups.length} cid chunks for ${fm.num_row_groups} row groups`)
  groups.forEach((g, rg) => {
    const where = `${label} row group ${rg}`
    check(g.cid >= f['min-cid'] && g.cid <= f['max-cid'] && rootOf(g.cid) === b, where,
      `cid ${g.cid} outside [${f['min-cid']}, ${f['max-cid']}] or root ${b}`)
    check(g.cid >= lastCid, where, `cid ${g.cid} after cid ${lastCid} (postings order must be non-decreasing)`)
    lastCid = Math.max(lastCid, g.cid)
    cidsSeen.add(g.cid)
  })
  if (groups.length > 0) {
    check(groups[0].cid === f['min-cid'], label, `first row group's cid ${groups[0].cid} is not min-cid ${f['min-cid']}`)
    check(groups[groups.length - 1].cid === f['max-cid'], label, `last row group's cid ${groups[groups.length - 1].cid} is not max-cid ${f['max-cid']}`)
  }

  // The rows themselves: per cid, how many and where; code lengths; finite params.
  const data = await rowsOf(`
    SELECT cid, count(*) AS n, min(file_row_number) AS lo, max(file_row_number) AS hi,
           count(*) FILTER (WHERE octet_length(code) <> ${codeBytes}) AS bad_len,
           min(file_row_number) FILTER (WHERE octet_length(code) <> ${codeBytes}) AS bad_len_row,
           count(*) FILTER (WHERE NOT isfinite("offset") OR NOT isfinite("scale") OR "scale" < 0) AS bad_params
    FROM ${readParquet(path)} GROUP BY cid ORDER BY cid`)
  const expected = new Map()  // cid -> {n, lo, hi} from the row groups
  for (const g of groups) {
    const e = expected.get(g.cid)
    if (e) { e.n += g.rows; e.hi = g.first + g.rows - 1 } else expected.set(g.cid, { n: g.rows, lo: g.first, hi: g.first + g.rows - 1 })
  }
  let read = 0
  for (const r of data) {
    const cid = num(r.cid)
    const n = num(r.n)
    read += n
    const e = expected.get(cid)
    check(e && e.n === n && e.lo === num(r.lo) && e.hi === num(r.hi) && n === num(r.hi) - num(r.lo) + 1, `${label} cid ${cid}`,
      e ? `${n} rows at ${r.lo}…${r.hi}, its row groups hold ${e.n} rows at ${e.lo}…${e.hi}` : 'rows with a cid no row group has')
    check(num(r.bad_len) === 0, `${label} cid ${cid}`, `${r.bad_len} codes are not ${codeBytes} bytes (first at row ${r.bad_len_row})`)
    check(num(r.bad_params) === 0, `${label} cid ${cid}`, `${r.bad_params} rows with offset/scale not finite or scale < 0`)
  }
  check(read === f.rows, label, `DuckDB read ${read} rows, descriptor says ${f.rows}`)
  totalRead += read
}
check(totalRows === index.ntotal, 'postings', `sum of rows ${totalRows}, ntotal ${index.ntotal}`)
check(totalRead === index.ntotal, 'postings', `DuckDB read ${totalRead} rows in all, ntotal ${index.ntotal}`)
check([...cidsSeen].every(c => c >= 0 && c < index.nlist), 'postings', `cids outside [0, ${index.nlist})`)

// --- keys over all postings ---
if (keys.length === 1) {
  const k = '"' + keys[0].name.replaceAll('"', '""') + '"'
  const list = '[' + files.map(f => quote(join(dir, f.path))).join(', ') + ']'
  const [s] = await rowsOf(`SELECT count(*) AS n, count(DISTINCT ${k}) AS distinct_keys,
                                   ${keysAffine ? `min(${k})::VARCHAR AS lo, max(${k})::VARCHAR AS hi, sum(${k}::HUGEINT)::VARCHAR AS total` : '0 AS lo'}
                            FROM read_parquet(${list}, hive_partitioning = false)`)
  check(num(s.distinct_keys) === index.ntotal, `key ${keys[0].name}`, `${s.distinct_keys} distinct keys for ntotal ${index.ntotal}`)
  if (keysAffine) {
    const [a, step] = keysAffine
    const n = BigInt(index.ntotal)
    const want = { lo: a, hi: a + step * (n - 1n), total: a * n + step * (n * (n - 1n) / 2n) }
    check(BigInt(s.lo) === want.lo && BigInt(s.hi) === want.hi && BigInt(s.total) === want.total, `key ${keys[0].name}`,
      `min/max/sum ${s.lo}/${s.hi}/${s.total}, expected ${want.lo}/${want.hi}/${want.total} (keys ${a} + ${step}·i)`)
    if (step !== 0n) {
      const [bad] = await rowsOf(`SELECT count(*) AS n FROM read_parquet(${list}, hive_partitioning = false)
                                  WHERE (${k}::HUGEINT - ${a}) % ${step} <> 0`)
      check(num(bad.n) === 0, `key ${keys[0].name}`, `${bad.n} keys are not ${a} + ${step}·i`)
    }
  }
}
// --- values: reconstruction and assignment against the input ---
if (inputPath) await checkValues()
finish()

async function readInput() {  // {n, vectors: Float64Array n×d (normalised for cosine), rowOfKey(key) -> row | undefined}
  let n, vectors, rowOfKey
  if (inputPath.endsWith('.fvecs')) {
    const buf = readFileSync(inputPath)
    const record = 4 + 4 * d
    n = buf.length / record
    if (!check(Number.isInteger(n) && buf.readInt32LE(0) === d, inputPath, `not an .fvecs file of dimension ${d}`)) return null
    vectors = new Float64Array(n * d)
    for (let r = 0; r < n; r++) for (let j = 0; j < d; j++) vectors[r * d + j] = buf.readFloatLE(r * record + 4 + 4 * j)
    rowOfKey = k => (typeof k === 'bigint' && k >= 0n && k < BigInt(n) ? Number(k) : undefined)
  } else {
    const field = '"' + index['vector-field'].replaceAll('"', '""') + '"'
    const key = inputKey === null ? 'file_row_number' : '"' + inputKey.replaceAll('"', '""') + '"'
    const result = await con.runAndReadAll(`SELECT ${key} AS k, ${field} AS v FROM ${readParquet(inputPath)} ORDER BY file_row_number`)
    const rows = result.getRows()
    n = rows.length
    vectors = new Float64Array(n * d)
    const map = new Map()
    rows.forEach(([k, v], r) => {
      map.set(String(k), r)
      v.items.forEach((x, j) => { vectors[r * d + j] = x })
    })
    rowOfKey = k => map.get(String(k))
  }
  if (index.metric === 'cosine') {
    for (let r = 0; r < n; r++) {
      let s2 = 0
      for (let j = 0; j < d; j++) s2 += vectors[r * d + j] ** 2
      const norm = Math.sqrt(s2)
      for (let j = 0; j < d; j++) vectors[r * d + j] = Math.fround(vectors[r * d + j] / norm)
    }
  }
  return { n, vectors, rowOfKey }
}

// LVQ decode (publication-v1.md §4.1): v̂_i = offset + scale · code_i in float32.
function decode(encoding, offset, scale, code, out) {
  for (let i = 0; i < out.length; i++) {
    const c = encoding === 'lvq8' ? code[i] : (code[i >> 1] >> ((i & 1) * 4)) & 0x0f
    out[i] = Math.fround(offset + Math.fround(scale * c))
  }
}

async function checkValues() {
  const input = await readInput()
  if (!input) return
  check(input.n === index.ntotal, inputPath, `${input.n} input rows, ntotal ${index.ntotal}`)
  const cent = new Float64Array(index.nlist * d)
  {
    const rows = (await con.runAndReadAll(`SELECT cid, "offset", "scale", code FROM ${readParquet(join(dir, m.hierarchy.centroids.path))} ORDER BY cid`)).getRows()
    const tmp = new Float64Array(d)
    for (const [cid, offset, scale, code] of rows) {
      decode('lvq8', offset, scale, code.bytes, tmp)
      cent.set(tmp, cid * d)
    }
  }
  const stride = Math.max(1, Math.ceil(index.ntotal * index.nlist * d / 2e8))
  const keyName = '"' + keys[0].name.replaceAll('"', '""') + '"'
  const seen = new Uint8Array(input.n)
  const r = new Float64Array(d)
  let row = 0
  for (let i = 0; i < files.length; i++) {
    const label = `$.postings.files[${i}] ${files[i].path}`
    const rows = (await con.runAndReadAll(`SELECT cid, ${keyName}, "offset", "scale", code FROM ${readParquet(join(dir, files[i].path))}
                                           ORDER BY file_row_number`)).getRows()
    let badKey = null, badRecon = null, badAssign = null, nRecon = 0, nAssign = 0
    for (const [cid, key, offset, scale, code] of rows) {
      const at = input.rowOfKey(key)
      if (at === undefined || seen[at]) { badKey ??= `key ${key} ${at === undefined ? 'names no input row' : 'repeats an input row'}`; row++; continue }
      seen[at] = 1
      decode(index.encoding, offset, scale, code.bytes, r)
      let worst = 0
      for (let j = 0; j < d; j++) {
        const x = input.vectors[at * d + j]
        const err = Math.abs(Math.fround(cent[cid * d + j] + r[j]) - x) - (scale / 2 + 1e-5 * (1 + Math.abs(x)))
        worst = Math.max(worst, err)
      }
      nRecon++
      if (worst > 0) badRecon ??= `key ${key} (cid ${cid}): reconstruction off by ${worst} beyond scale/2 = ${scale / 2}`
      if (row % stride === 0) {
        nAssign++
        let mine = 0, best = Infinity
        for (let c = 0; c < index.nlist; c++) {
          let s2 = 0
          for (let j = 0; j < d; j++) { const t = input.vectors[at * d + j] - cent[c * d + j]; s2 += t * t }
          if (c === cid) mine = s2
          if (s2 < best) best = s2
        }
        if (mine > best + 1e-5 * (1 + best)) badAssign ??= `key ${key}: cid ${cid} at L2² ${mine}, a centroid is at ${best}`
      }
      row++
    }
    check(badKey === null, label, badKey)
    check(badRecon === null, label, `${badRecon} (${nRecon} rows checked)`)
    check(badAssign === null, label, `${badAssign} (${nAssign} rows checked)`)
  }
  const missing = seen.indexOf(0)
  check(missing === -1, inputPath, `input row ${missing} is in no postings file`)
}

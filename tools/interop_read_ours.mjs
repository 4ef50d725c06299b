// node tools/interop_read_ours.mjs DIR: checks every DIR/NAME.parquet that
// vigilo's writer produced (tests/parquet_interop/fixture_writer.cc) with
// real peers:
//
//   duckdb-values    DuckDB's rows == NAME.expected.jsonl
//   duckdb-metadata  parquet_metadata(): row groups and row counts exactly as
//                    chosen, num_values, codec, dictionary use, and the
//                    chunk statistics (new and legacy fields, null_count)
//                    == NAME.layout.json
//   hyparquet-values hyparquet's rows == NAME.expected.jsonl
//   hyparquet-range  each row group read alone, through a file object that
//                    records the byte ranges asked for: the rows are that row
//                    group's, and every range lies within its column chunks
//
// Prints PASS/FAIL per file and check; exits 1 on any failure.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { parquetMetadata, parquetRead, parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { diffLines, duckRows, hyRowsToJson, readLines, sqlString } from './interop_lib.mjs'

const dir = process.argv[2]
if (!dir) {
  console.error('usage: node tools/interop_read_ours.mjs DIR')
  process.exit(2)
}

const instance = await DuckDBInstance.create(':memory:')
const con = await instance.connect()
await con.run('SET threads = 1')  // deterministic order and timing

let failures = 0
function report(name, check, problem) {
  if (problem) failures++
  console.log(`${problem ? 'FAIL' : 'PASS'} ours/${name} ${check}${problem ? '\n    ' + problem : ''}`)
}
async function check(name, label, fn) {
  try {
    report(name, label, await fn())
  } catch (e) {
    report(name, label, `threw ${e.stack || e}`)
  }
}

// DuckDB prints blob statistics with printable ASCII raw except ' " \, others as \xHH.
function duckBlob(hexText) {
  let out = ''
  for (let i = 0; i < hexText.length; i += 2) {
    const b = parseInt(hexText.slice(i, i + 2), 16)
    const raw = b >= 0x20 && b <= 0x7e && b !== 0x27 && b !== 0x22 && b !== 0x5c
    out += raw ? String.fromCharCode(b) : '\\x' + hexText.slice(i, i + 2).toUpperCase()
  }
  return out
}

function isoDate(days) {
  return new Date(Number(days) * 86400000).toISOString().slice(0, 10)
}

function parseDuckFloat(s) {
  if (s === 'inf' || s === 'Infinity') return Infinity
  if (s === '-inf' || s === '-Infinity') return -Infinity
  return Number(s)
}

// Does DuckDB's text for a statistic equal ours (layout.json)?
function sameStat(kind, duck, ours) {
  switch (kind) {
    // DuckDB prints a FLOAT statistic as the shortest float text ("1e-07").
    case 'FLOAT': case 'FLOAT_LIST': return Object.is(Math.fround(parseDuckFloat(duck)), parseDuckFloat(ours))
    case 'DOUBLE': return Object.is(parseDuckFloat(duck), parseDuckFloat(ours))
    case 'DATE': return duck === isoDate(ours)
    case 'BYTE_ARRAY': case 'FIXED_LEN_BYTE_ARRAY': return duck === duckBlob(ours)
    default: return duck === ours
  }
}

async function duckMetadata(path, layout) {
  const r = await con.runAndReadAll(
    `SELECT * FROM parquet_metadata(${sqlString(path)}) ORDER BY row_group_id, column_id`)
  const rows = r.getRowObjectsJson()
  const groups = layout.row_groups
  const ncols = groups.length ? groups[0].columns.length : 0
  if (rows.length !== groups.length * ncols) return `${rows.length} chunk rows, want ${groups.length * ncols}`
  for (const row of rows) {
    const g = Number(row.row_group_id)
    const c = Number(row.column_id)
    const want = groups[g].columns[c]
    const where = `row group ${g} column ${want.name}`
    if (Number(row.row_group_num_rows) !== groups[g].num_rows) {
      return `${where}: ${row.row_group_num_rows} rows, want ${groups[g].num_rows}`
    }
    if (Number(row.num_values) !== want.num_values) return `${where}: num_values ${row.num_values}, want ${want.num_values}`
    if (row.compression !== layout.codec) return `${where}: codec ${row.compression}, want ${layout.codec}`
    const hasDict = row.dictionary_page_offset !== null
    if (hasDict !== want.dictionary) return `${where}: dictionary ${hasDict}, want ${want.dictionary}`
    if (want.dictionary !== /RLE_DICTIONARY/.test(row.encodings)) return `${where}: encodings ${row.encodings}`
    if (Number(row.stats_null_count) !== want.stats.null_count) {
      return `${where}: null_count ${row.stats_null_count}, want ${want.stats.null_count}`
    }
    const pairs = [['stats_min_value', 'min'], ['stats_max_value', 'max'], ['stats_min', 'legacy_min'], ['stats_max', 'legacy_max']]
    for (const [dk, ok] of pairs) {
      const ours = want.stats[ok]
      const duck = row[dk]
      // DuckDB 1.5 shows an infinite float statistic as NULL, for its own files too.
      if ((ours === 'Infinity' || ours === '-Infinity') && duck === null) continue
      if (ours === undefined ? duck !== null : duck === null || !sameStat(want.kind, duck, ours)) {
        return `${where}: ${dk} ${JSON.stringify(duck)}, want ${JSON.stringify(ours ?? null)}`
      }
    }
    if (row.min_is_exact !== true && want.stats.min !== undefined) return `${where}: min_is_exact ${row.min_is_exact}`
  }
  return null
}

// An AsyncBuffer over `bytes` that records every slice asked for.
function recordingFile(bytes) {
  const ranges = []
  return {
    ranges,
    file: {
      byteLength: bytes.byteLength,
      slice(start, end = bytes.byteLength) {
        ranges.push([start, end])
        return bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + end)
      },
    },
  }
}

function chunkRange(col) {
  const md = col.meta_data
  const start = Number(md.dictionary_page_offset ?? md.data_page_offset)
  return [start, start + Number(md.total_compressed_size)]
}

async function hyRange(bytes, metadata, want) {
  let rowStart = 0
  for (let g = 0; g < metadata.row_groups.length; g++) {
    const rg = metadata.row_groups[g]
    const n = Number(rg.num_rows)
    const chunks = rg.columns.map(chunkRange)
    const { file, ranges } = recordingFile(bytes)
    const rows = await new Promise((resolve, reject) => {
      parquetRead({ file, metadata, compressors, utf8: false, rowFormat: 'object', rowStart, rowEnd: rowStart + n,
        onComplete: resolve }).catch(reject)
    })
    const problem = diffLines(hyRowsToJson(metadata, rows), want.slice(rowStart, rowStart + n))
    if (problem) return `row group ${g}: ${problem}`
    if (ranges.length === 0) return `row group ${g}: no bytes were requested`
    // The row group's chunks are contiguous; every request must fall inside.
    const lo = Math.min(...chunks.map(c => c[0]))
    const hi = Math.max(...chunks.map(c => c[1]))
    for (const [a, b] of ranges) {
      if (a < lo || b > hi) return `row group ${g}: requested [${a}, ${b}) outside its chunks [${lo}, ${hi})`
    }
    rowStart += n
  }
  return null
}

const names = readdirSync(dir).filter(f => f.endsWith('.layout.json')).map(f => f.slice(0, -'.layout.json'.length)).sort()
if (names.length === 0) {
  console.log(`FAIL ours: no fixtures in ${dir}`)
  process.exit(1)
}
for (const name of names) {
  const path = join(dir, name + '.parquet')
  const want = readLines(join(dir, name + '.expected.jsonl'))
  const layout = JSON.parse(readFileSync(join(dir, name + '.layout.json'), 'utf8'))
  const bytes = new Uint8Array(readFileSync(path))
  await check(name, 'duckdb-values', async () =>
    diffLines(await duckRows(con, `SELECT * FROM read_parquet(${sqlString(path)})`), want))
  await check(name, 'duckdb-metadata', () => duckMetadata(path, layout))
  const metadata = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
  await check(name, 'hyparquet-values', async () => {
    const rows = await parquetReadObjects({ file: bytes.buffer, metadata, compressors, utf8: false })
    return diffLines(hyRowsToJson(metadata, rows), want)
  })
  await check(name, 'hyparquet-range', () => hyRange(bytes, metadata, want))
}
console.log(`ours: ${failures === 0 ? 'all passed' : failures + ' failed'} (${names.length} files)`)
process.exit(failures === 0 ? 0 : 1)

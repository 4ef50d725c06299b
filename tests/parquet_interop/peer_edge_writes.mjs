// node tests/parquet_interop/peer_edge_writes.mjs OUTDIR: files mainstream
// writers produce at the edges of the format, each NAME.parquet with
// NAME.expected.jsonl (the peer's own reading, in the value mapping of
// README.md), which run.sh compares with `vigilo parquet cat`:
//
//   duck_fixed_array_nulls  DuckDB FLOAT[4] with NULL arrays (DuckDB pads a
//                           NULL array with one entry per slot)
//   duck_zero_rows          DuckDB, 0 rows (no row group)
//   hyparquet_zero_rows     hyparquet-writer, 0 rows: row_groups is written
//                           as an empty list of no element type (0x00);
//                           hyparquet must read it as 0 rows too
//
// hyparquet-writer is one of the pinned peers (tools/package.json).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const tools = join(here, '..', '..', 'tools')
const out = process.argv[2]
if (!out) {
  console.error('usage: node tests/parquet_interop/peer_edge_writes.mjs OUTDIR')
  process.exit(2)
}
mkdirSync(out, { recursive: true })

// The peers live in tools/node_modules, not beside this script.
const require = createRequire(join(tools, 'package.json'))
const peer = async name => import(pathToFileURL(require.resolve(name)).href)
const { DuckDBInstance } = await peer('@duckdb/node-api')
const { parquetMetadata, parquetReadObjects } = await peer('hyparquet')
const { duckRows, sqlString } = await import(pathToFileURL(join(tools, 'interop_lib.mjs')).href)

const instance = await DuckDBInstance.create(':memory:')
const con = await instance.connect()
await con.run('SET threads = 1')

const duckFiles = [
  ['duck_fixed_array_nulls',
   `SELECT i::INTEGER AS id,
           (CASE WHEN i % 3 = 0 THEN NULL
                 ELSE [(i / 4.0)::FLOAT, CASE WHEN i % 4 = 1 THEN NULL ELSE 2.5 END, -1.0, i::FLOAT] END)::FLOAT[4] AS v
    FROM range(50) t(i)`, 'SELECT id, v::FLOAT[] AS v'],
  ['duck_zero_rows', 'SELECT i::INTEGER AS id, [1.0]::FLOAT[] AS v FROM range(0) t(i)', 'SELECT *'],
]
for (const [name, query, select] of duckFiles) {
  const path = join(out, name + '.parquet')
  await con.run(`COPY (${query} ORDER BY id) TO ${sqlString(path)} (FORMAT parquet, COMPRESSION uncompressed)`)
  // A FLOAT[4] reads back as the list it is stored as (the value mapping has no fixed-size arrays).
  const rows = await duckRows(con, `${select} FROM read_parquet(${sqlString(path)})`)
  writeFileSync(join(out, name + '.expected.jsonl'), rows.map(r => r + '\n').join(''))
  console.log(name)
}

const hyPath = join(out, 'hyparquet_zero_rows.parquet')
const writer = await peer('hyparquet-writer')
const buffer = writer.parquetWriteBuffer({ columnData: [{ name: 'id', data: new Int32Array(0), type: 'INT32' }] })
writeFileSync(hyPath, new Uint8Array(buffer))
const bytes = readFileSync(hyPath)
const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
const metadata = parquetMetadata(file)
const rows = await parquetReadObjects({ file })
if (metadata.row_groups.length !== 0 || rows.length !== 0) throw new Error('hyparquet_zero_rows: hyparquet reads rows')
writeFileSync(join(out, 'hyparquet_zero_rows.expected.jsonl'), '')
console.log('hyparquet_zero_rows' + (writer ? '' : ' (kept file)'))

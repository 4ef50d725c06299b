// node tools/interop_duckdb_writes.mjs OUTDIR: DuckDB writes Parquet files
// (every codec it offers that vigilo reads, dictionary on and off, data
// pages v1 and v2, several row groups, NULLs, FLOAT[] lists, the scalar
// types of the value mapping) and, for each NAME.parquet, NAME.expected.jsonl:
// DuckDB reading the file back, mapped to the value mapping
// (tests/parquet_interop/README.md). run.sh then compares
// `vigilo parquet cat NAME.parquet` with it line for line.
//
// Data is generated in SQL from range() and fixed lists, so the files are
// the same on every run of the pinned DuckDB version.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DuckDBInstance } from '@duckdb/node-api'
import { duckRows, sqlString } from './interop_lib.mjs'

const out = process.argv[2]
if (!out) {
  console.error('usage: node tools/interop_duckdb_writes.mjs OUTDIR')
  process.exit(2)
}
mkdirSync(out, { recursive: true })

const instance = await DuckDBInstance.create(':memory:')
const con = await instance.connect()
await con.run('SET threads = 1')  // one writer thread: row groups exactly as ROW_GROUP_SIZE cuts them

// A NULL for roughly one row in `k`, deterministically.
const nullEvery = (k, expr, salt = 0) => `CASE WHEN (i * 7919 + ${salt}) % ${k} = 0 THEN NULL ELSE ${expr} END`
const words = `['', 'a', 'héllo', 'ß€😀', 'quote"back\\\\slash', 'tab\tnl' || chr(10) || 'cr' || chr(13), chr(1) || chr(31), '/', chr(8232), 'zzz']`

const scalars = `
  SELECT
    i::INTEGER AS id,
    ${nullEvery(5, '(i % 2 = 0)', 1)} AS b,
    ${nullEvery(6, '((i * 2654435761) % 4294967296 - 2147483648)::INTEGER', 2)} AS i32,
    ${nullEvery(7, '((i::HUGEINT * 6364136223846793005) % 18446744073709551616 - 9223372036854775808)::BIGINT', 3)} AS i64,
    ${nullEvery(4, '((i % 1000) / 8.0 - 60)::FLOAT', 4)} AS f32,
    ${nullEvery(9, '(i / 3.0 - 1000.5)::DOUBLE', 5)} AS f64,
    ${nullEvery(8, `${words}[1 + i % 10] || (i % 37)::VARCHAR`, 6)} AS s,
    ${nullEvery(10, "(DATE '1970-01-01' + ((i * 37) % 40000 - 10000)::INTEGER)", 7)} AS d,
    ${nullEvery(11, "from_hex(lpad(to_hex(i * 40503), 8, '0'))", 8)} AS blob
  FROM range(N) t(i)`

const lists = `
  SELECT
    i::INTEGER AS id,
    CASE WHEN i % 7 = 0 THEN NULL
         WHEN i % 7 = 1 THEN []::FLOAT[]
         ELSE list_transform(range(i % 5 + 1), k -> CASE WHEN (i + k) % 6 = 0 THEN NULL
                                                    ELSE ((i * 31 + k) % 2000 / 16.0 - 60)::FLOAT END) END AS vec,
    list_transform(range(8), k -> ((i + k) % 100 / 4.0)::FLOAT) AS emb
  FROM range(N) t(i)`

const specials = `
  SELECT * FROM (VALUES
    (0, 'NaN'::FLOAT, 'NaN'::DOUBLE), (1, 'inf'::FLOAT, 'inf'::DOUBLE), (2, '-inf'::FLOAT, '-inf'::DOUBLE),
    (3, -0.0::FLOAT, -0.0::DOUBLE), (4, 0.0::FLOAT, 0.0::DOUBLE), (5, 1e-45::FLOAT, 5e-324::DOUBLE),
    (6, 3.4028235e38::FLOAT, 1.7976931348623157e308::DOUBLE), (7, 0.1::FLOAT, 0.1::DOUBLE),
    (8, 1e16::FLOAT, 1e16::DOUBLE), (9, 1e-7::FLOAT, 1e-7::DOUBLE), (10, 123456789::FLOAT, 1.1e16::DOUBLE),
    (11, NULL, NULL), (12, 16777217::FLOAT, 9007199254740993::DOUBLE), (13, 0.00001::FLOAT, 0.00001::DOUBLE)
  ) t(id, f32, f64)`

const ints = `
  SELECT i::INTEGER AS id, (i % 256 - 128)::TINYINT AS i8, (i * 255 % 65536 - 32768)::SMALLINT AS i16,
         (i * 2654435761 % 4294967296)::UINTEGER AS u32, (18446744073709551615 - i)::UBIGINT AS u64,
         (i % 200)::UTINYINT AS u8
  FROM range(N) t(i)`

const files = [
  ['duck_scalars_snappy', scalars, 3500, 'COMPRESSION snappy, ROW_GROUP_SIZE 1000'],
  ['duck_scalars_zstd', scalars, 2500, 'COMPRESSION zstd, ROW_GROUP_SIZE 2048'],
  ['duck_scalars_gzip_nodict', scalars, 1500, 'COMPRESSION gzip, DICTIONARY_SIZE_LIMIT 0, ROW_GROUP_SIZE 600'],
  ['duck_scalars_uncompressed', scalars, 700, 'COMPRESSION uncompressed'],
  ['duck_scalars_v2', scalars, 3000, 'COMPRESSION zstd, PARQUET_VERSION V2, ROW_GROUP_SIZE 1500'],
  ['duck_lists_zstd', lists, 3000, 'COMPRESSION zstd, ROW_GROUP_SIZE 1000'],
  ['duck_lists_v2_snappy', lists, 1200, 'COMPRESSION snappy, PARQUET_VERSION V2'],
  ['duck_special_floats', specials, 0, 'COMPRESSION uncompressed'],
  ['duck_int_widths', ints, 600, 'COMPRESSION snappy'],
]

for (const [name, query, n, options] of files) {
  const path = join(out, name + '.parquet')
  const sql = query.replaceAll('range(N)', `range(${n})`)
  await con.run(`COPY (${sql} ORDER BY id) TO ${sqlString(path)} (FORMAT parquet, ${options})`)
  const rows = await duckRows(con, `SELECT * FROM read_parquet(${sqlString(path)})`)
  writeFileSync(join(out, name + '.expected.jsonl'), rows.map(r => r + '\n').join(''))
  console.log(name)
}

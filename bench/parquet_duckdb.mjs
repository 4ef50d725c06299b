// node bench/parquet_duckdb.mjs FILE SQL THREADS RUNS: DuckDB's in-process
// time for SQL (with {file} replaced by FILE), best of RUNS after one warm-up,
// printed in seconds. Excludes node and DuckDB start-up, so it favours DuckDB
// slightly against a whole-process timing.
import { createRequire } from 'node:module'
import { join } from 'node:path'

const [file, sql, threads, runs] = process.argv.slice(2)
const require = createRequire(join(import.meta.dirname, '..', 'tools', 'package.json'))
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'))
const instance = await DuckDBInstance.create(':memory:')
const con = await instance.connect()
if (threads !== 'default') await con.run(`SET threads = ${Number(threads)}`)
const query = sql.replaceAll('{file}', "'" + file.replaceAll("'", "''") + "'")
await con.runAndReadAll(query)
let best = Infinity
for (let i = 0; i < Number(runs); i++) {
  const t = performance.now()
  await con.runAndReadAll(query)
  best = Math.min(best, (performance.now() - t) / 1000)
}
console.log(best.toFixed(4))

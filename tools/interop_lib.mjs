// Shared helpers for the Parquet interop scripts: the value mapping of
// tests/parquet_interop/README.md as canonical JSON (docs/format/canonical-json.md),
// and readers that turn DuckDB and hyparquet results into it.
import { Buffer } from 'node:buffer'
import { readFileSync } from 'node:fs'

// A floating-point value (FLOAT widened exactly, or DOUBLE): written in
// ryu's shortest layout, unlike an integer of the same value.
export class F {
  constructor(x) { this.x = x }
}

// ryu/serde_json layout of the shortest round-trip digits (which
// toExponential() gives): plain decimal when the decimal point falls within
// 16 digits or up to 5 places after "0.", else d.ddde±x without "+".
export function formatFloat(x) {
  if (Number.isNaN(x)) return '"NaN"'
  if (x === Infinity) return '"Infinity"'
  if (x === -Infinity) return '"-Infinity"'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const neg = x < 0
  const [mant, exp] = Math.abs(x).toExponential().split('e')
  const digits = mant.replace('.', '')
  const len = digits.length
  const kk = parseInt(exp, 10) + 1  // where the decimal point goes
  let out
  if (len <= kk && kk <= 16) out = digits + '0'.repeat(kk - len) + '.0'
  else if (kk > 0 && kk <= 16) out = digits.slice(0, kk) + '.' + digits.slice(kk)
  else if (kk > -5 && kk <= 0) out = '0.' + '0'.repeat(-kk) + digits
  else if (len === 1) out = digits + 'e' + (kk - 1)
  else out = digits[0] + '.' + digits.slice(1) + 'e' + (kk - 1)
  return (neg ? '-' : '') + out
}

const ESCAPES = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' }

export function formatString(s) {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0)
    if (ESCAPES[ch] !== undefined) out += ESCAPES[ch]
    else if (c < 0x20) out += '\\u00' + c.toString(16).padStart(2, '0')
    else out += ch
  }
  return out + '"'
}

// Canonical JSON of a mapped value: null, boolean, bigint or safe-integer
// number (integers), F (floats), string, array, plain object.
export function canon(v) {
  if (v === null) return 'null'
  if (typeof v === 'boolean') return v ? 'true' : 'false'
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new Error(`number ${v} is not tagged as float nor a safe integer`)
    return String(v)
  }
  if (v instanceof F) return formatFloat(v.x)
  if (typeof v === 'string') return formatString(v)
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']'
  const keys = Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
  return '{' + keys.map(k => formatString(k) + ':' + canon(v[k])).join(',') + '}'
}

export const hex = bytes => Buffer.from(bytes).toString('hex')

// ---- DuckDB (@duckdb/node-api) ----

function mapDuck(type, v) {
  if (v === null || v === undefined) return null
  const t = type.toString()
  if (t.endsWith('[]')) return v.items.map(x => mapDuck(type.valueType, x))
  switch (t) {
    case 'BOOLEAN': return v
    case 'TINYINT': case 'SMALLINT': case 'INTEGER': case 'BIGINT':
    case 'UTINYINT': case 'USMALLINT': case 'UINTEGER': case 'UBIGINT': case 'HUGEINT': return BigInt(v)
    case 'FLOAT': case 'DOUBLE': return new F(v)
    case 'DATE': return v.days
    case 'VARCHAR': return v
    case 'BLOB': return { hex: hex(v.bytes) }
    default: throw new Error(`unmapped DuckDB type ${t}`)
  }
}

// Rows of a DuckDB query as canonical JSON lines.
export async function duckRows(con, sql) {
  const r = await con.runAndReadAll(sql)
  const names = r.columnNames()
  const types = r.columnTypes()
  return r.getRows().map(row => {
    const o = {}
    row.forEach((v, i) => { o[names[i]] = mapDuck(types[i], v) })
    return canon(o)
  })
}

export const sqlString = s => "'" + s.replaceAll("'", "''") + "'"

// ---- hyparquet ----

// Maps one hyparquet value of a top-level field, given its schema element
// and (for lists) the element's schema element.
function mapHy(el, leaf, v) {
  if (v === null || v === undefined) return null
  if (leaf) return v.map(x => mapHy(leaf, null, x))
  const lt = el.logical_type?.type
  const ct = el.converted_type
  switch (el.type) {
    case 'BOOLEAN': return v
    case 'INT32':
      if (lt === 'DATE' || ct === 'DATE') return v instanceof Date ? Math.round(v.getTime() / 86400000) : v
      return v
    case 'INT64': return BigInt(v)
    case 'FLOAT': case 'DOUBLE': return new F(v)
    case 'BYTE_ARRAY':
      if (lt === 'STRING' || lt === 'JSON' || lt === 'ENUM' || ct === 'UTF8' || ct === 'JSON' || ct === 'ENUM') {
        return typeof v === 'string' ? v : new TextDecoder().decode(v)
      }
      return { hex: hex(v) }
    case 'FIXED_LEN_BYTE_ARRAY': return { hex: hex(v) }
    default: throw new Error(`unmapped hyparquet type ${el.type}`)
  }
}

// For each top-level field: its schema element and, for a 3-level list, the
// leaf element.
export function hyFields(metadata) {
  const s = metadata.schema
  const fields = []
  let i = 1
  const skip = j => { // index after the subtree at j
    let n = s[j].num_children || 0
    j++
    while (n-- > 0) j = skip(j)
    return j
  }
  while (i < s.length) {
    const el = s[i]
    let leaf = null
    if (el.num_children) {
      if (!(el.num_children === 1 && s[i + 1].repetition_type === 'REPEATED' && s[i + 1].num_children === 1)) {
        throw new Error(`unsupported group ${el.name}`)
      }
      leaf = s[i + 2]
    }
    fields.push({ name: el.name, el, leaf })
    i = skip(i)
  }
  return fields
}

export function hyRowsToJson(metadata, rows) {
  const fields = hyFields(metadata)
  return rows.map(row => {
    const o = {}
    for (const f of fields) o[f.name] = mapHy(f.el, f.leaf, row[f.name])
    return canon(o)
  })
}

export function readLines(path) {
  const text = readFileSync(path, 'utf8')
  if (text === '') return []
  if (!text.endsWith('\n')) throw new Error(`${path} does not end with LF`)
  return text.slice(0, -1).split('\n')
}

// First difference between two line lists, or null.
export function diffLines(got, want) {
  const n = Math.max(got.length, want.length)
  for (let i = 0; i < n; i++) {
    if (got[i] !== want[i]) return `line ${i + 1}: got ${got[i] ?? '<none>'}\n          want ${want[i] ?? '<none>'}`
  }
  return null
}

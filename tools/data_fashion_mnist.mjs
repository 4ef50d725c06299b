// node tools/data_fashion_mnist.mjs IMAGES.idx3-ubyte.gz OUT.fvecs [LIMIT]
// Converts IDX images (big-endian header: magic 0x00000803, count, rows,
// cols, then count × rows × cols bytes) to .fvecs: per image int32 d = rows ×
// cols, then d float32 pixel values 0–255. Only the first LIMIT images if given.
// Used by bench/data/prepare.sh.
import { readFileSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

const [input, output, limitArg] = process.argv.slice(2)
if (!input || !output) {
  console.error('usage: node tools/data_fashion_mnist.mjs IMAGES.gz OUT.fvecs [LIMIT]')
  process.exit(2)
}
const idx = gunzipSync(readFileSync(input))
const magic = idx.readUInt32BE(0)
if (magic !== 0x803) throw new Error(`${input}: IDX magic ${magic.toString(16)} is not 0x803 (u8 images)`)
const count = idx.readUInt32BE(4)
const d = idx.readUInt32BE(8) * idx.readUInt32BE(12)
if (idx.length !== 16 + count * d) throw new Error(`${input}: ${idx.length} bytes, expected ${16 + count * d}`)
const n = limitArg === undefined ? count : Math.min(count, Number(limitArg))
const out = Buffer.alloc(n * (4 + 4 * d))
for (let i = 0; i < n; i++) {
  const at = i * (4 + 4 * d)
  out.writeInt32LE(d, at)
  for (let j = 0; j < d; j++) out.writeFloatLE(idx[16 + i * d + j], at + 4 + 4 * j)
}
writeFileSync(output, out)
console.log(`${output}: ${n} × ${d}`)

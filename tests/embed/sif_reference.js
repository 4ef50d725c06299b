// An independent JavaScript implementation of static-word-vectors-v1 with
// pooling sif-f64-l2 (docs/format/embedding.md §2.2, §2.3, §3), from the npm
// package's JSON rather than the imported assets: the import's weighting and
// direction, the tokenizer over UTF-8 bytes, and the pooling. Prints one line
// per check and exits 1 unless the import's direction and every parity probe
// come out bit for bit.
//   node tests/embed/sif_reference.js PACKAGE_JSON EMBEDDING_JSON
'use strict';
const fs = require('fs');
const [packagePath, sectionPath] = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync(packagePath, 'utf8'));
const section = JSON.parse(fs.readFileSync(sectionPath, 'utf8'));
const params = section.runtime.parameters;
if (params.pooling !== 'sif-f64-l2') throw new Error(`pooling ${params.pooling}, not sif-f64-l2`);
const D = pkg.dimensions, c = params['word-weight-c'];

// Import: word i (rank r = i + 1) scaled by r / (r + c), each component
// rounded to float32; direction = Σ (1 / r) · stored vector, normalized.
const stored = new Map();
const m = new Float64Array(D);
pkg.words.forEach((word, i) => {
  const r = i + 1, w = r / (r + c), x = pkg.vectors[word];
  const v = new Float64Array(D);
  for (let d = 0; d < D; d++) {
    v[d] = Math.fround(w * Math.fround(x[d]));
    m[d] += (1 / r) * v[d];
  }
  stored.set(word, v);
});
let mm = 0;
for (let d = 0; d < D; d++) mm += m[d] * m[d];
const u = Array.from(m, (x) => Math.fround(x / Math.sqrt(mm)));

// vigilo-words-v1: runs of ASCII letters, digits and bytes >= 0x80, A-Z lowered.
const encoder = new TextEncoder(), decoder = new TextDecoder();
function tokens(text) {
  const out = [];
  let run = [];
  const flush = () => { if (run.length) out.push(decoder.decode(new Uint8Array(run))); run = []; };
  for (const b of encoder.encode(text)) {
    const upper = b >= 65 && b <= 90;
    if (upper || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b >= 0x80) run.push(upper ? b + 32 : b);
    else flush();
  }
  flush();
  return out;
}

function embed(text) {
  const s = new Float64Array(D);
  for (const t of tokens(section['input-template'].replace('{text}', () => text))) {
    const v = stored.get(t);
    if (v) for (let d = 0; d < D; d++) s[d] += v[d];
  }
  let p = 0;
  for (let d = 0; d < D; d++) p += s[d] * u[d];
  for (let d = 0; d < D; d++) s[d] -= p * u[d];
  let q = 0;
  for (let d = 0; d < D; d++) q += s[d] * s[d];
  const r = Math.sqrt(q);
  return Array.from(s, (x) => Math.fround(x / r));
}

const same = (a, b) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
let ok = same(u, params.direction);
console.log(`direction: ${ok ? 'bit-identical' : 'DIFFERS'}`);
for (const probe of section['parity-probe'].probes) {
  const equal = same(embed(probe.input), probe.vector);
  console.log(`probe ${JSON.stringify(probe.input)}: ${equal ? 'bit-identical' : 'DIFFERS'}`);
  ok = ok && equal;
}
process.exit(ok ? 0 : 1);

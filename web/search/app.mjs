// The search page (web/search/index.html): opens a publication with the ES
// module and shows its summary, a query form (text when the publication has
// an embedding model, else a vector), the results and what the last query
// fetched. Static files only; `?manifest=URL` opens one directly.
import { openPublication } from '../vigilo.mjs';

const $ = (id) => document.getElementById(id);
let pub = null;

// The shortest decimal that reads back as the same float32: what the CLI prints.
export function float32Text(x) {
  for (let p = 1; p <= 9; ++p) {
    const t = x.toPrecision(p);
    if (Math.fround(Number(t)) === x) return String(Number(t));
  }
  return String(x);
}

function cellText(value) {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return value;
  return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
}

function busy(what) {
  $('status').textContent = what;
  $('open-button').disabled = what !== '';
  $('search-button').disabled = what !== '';
  document.body.dataset.busy = what === '' ? 'no' : 'yes';
}

function showError(e) {
  $('error').hidden = false;
  $('error').textContent = e && e.message ? e.message : String(e);
  document.body.dataset.state = 'error';
}

function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
}

function showSummary(info, url) {
  const model = info.embedding ? `${info.embedding.contract} (${info.embedding.repository} ${info.embedding.revision})` : 'none';
  $('summary').hidden = false;
  $('summary').innerHTML = '';
  const dl = document.createElement('dl');
  for (const [k, v] of [['manifest', url], ['vectors', info.ntotal], ['lists', info.nlist], ['dimension', info.dimension],
    ['metric', info.metric], ['encoding', info.encoding], ['key', info.key.map((f) => `${f.name} (${f.type})`).join(', ')],
    ['payload columns', info.columns.map((c) => `${c.name} (${c.type})`).join(', ') || 'none'], ['embedding model', model]]) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = String(v);
    dl.append(dt, dd);
  }
  $('summary').append(dl);
  $('text-label').hidden = !info.embedding;
  $('vector-label').hidden = Boolean(info.embedding);
  // A row's own vector as the query, when the source table holds the indexed column.
  $('row-vector').hidden = Boolean(info.embedding) || !info.columns.some((c) => c.name === info.vector_field);
  const columns = $('columns');
  columns.querySelectorAll('label').forEach((l) => l.remove());
  for (const c of info.columns) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = c.name;
    box.checked = c.type !== 'list<float>'; // vectors are long; the rest is asked by default
    label.append(box, ` ${c.name}`);
    columns.append(label);
  }
  columns.hidden = info.columns.length === 0;
  $('query').hidden = false;
}

async function open(url) {
  clearError();
  busy('Opening…');
  $('results').hidden = true;
  $('stats').hidden = true;
  try {
    if (pub) pub.close();
    pub = null;
    pub = await openPublication(url, { verify: $('verify').checked });
    showSummary(pub.info, url);
    document.body.dataset.state = 'open';
  } catch (e) {
    $('summary').hidden = true;
    $('query').hidden = true;
    showError(e);
  } finally {
    busy('');
  }
}

function showResults(rows, columns) {
  const keyName = pub.info.key[0].name;
  const header = ['rank', keyName, '_distance', ...columns];
  const thead = $('results').tHead;
  thead.innerHTML = '';
  const tr = thead.insertRow();
  for (const h of header) {
    const th = document.createElement('th');
    th.textContent = h;
    tr.append(th);
  }
  const tbody = $('results').tBodies[0];
  tbody.innerHTML = '';
  for (const r of rows) {
    const row = tbody.insertRow();
    header.forEach((h) => {
      const td = row.insertCell();
      td.dataset.column = h;
      td.dataset.type = typeof r[h];
      td.textContent = h === '_distance' ? float32Text(r[h]) : cellText(r[h]);
      if (h === 'rank' || h === '_distance') td.className = 'num';
    });
  }
  $('results').hidden = false;
}

function showStats(stats) {
  const parts = ['manifest', 'embed', 'query', 'payload', 'total'].filter((p) => stats[p] && (p === 'total' || stats[p].requests > 0 || stats[p].cache_hits > 0));
  $('stats').hidden = false;
  $('stats').textContent = parts.map((p) => `${p}: ${stats[p].requests} requests, ${stats[p].round_trips} round trips, ` +
    `${stats[p].bytes} bytes, ${stats[p].cache_hits} cache hits`).join(' · ') + ` · ${stats.ms} ms`;
  $('stats').dataset.totalRoundTrips = String(stats.total.round_trips);
}

async function search() {
  clearError();
  busy('Searching…');
  try {
    const columns = [...$('columns').querySelectorAll('input:checked')].map((b) => b.value);
    const request = { k: Number($('k').value), nprobe: Number($('nprobe').value), columns };
    if (pub.info.embedding) {
      request.text = $('text').value;
    } else {
      let vector;
      try {
        vector = JSON.parse($('vector').value);
      } catch (e) {
        throw new Error(`the vector is not a JSON array: ${e.message}`);
      }
      if (!Array.isArray(vector)) throw new Error('the vector is not a JSON array of numbers');
      request.vector = vector;
    }
    const rows = await pub.search(request);
    showResults(rows, columns);
    showStats(pub.stats());
    document.body.dataset.state = 'results';
  } catch (e) {
    showError(e);
  } finally {
    busy('');
  }
}

$('open').addEventListener('submit', (e) => {
  e.preventDefault();
  const url = $('manifest').value.trim();
  const address = new URL(location.href);
  address.searchParams.set('manifest', url);
  history.replaceState(null, '', address);
  open(url);
});
$('row-button').addEventListener('click', async () => {
  clearError();
  busy('Fetching the row…');
  try {
    const [row] = await pub.rows([BigInt($('row').value)], [pub.info.vector_field]);
    $('vector').value = JSON.stringify(row[pub.info.vector_field]);
    document.body.dataset.state = 'open';
  } catch (e) {
    showError(e);
  } finally {
    busy('');
  }
});
$('query').addEventListener('submit', (e) => {
  e.preventDefault();
  search();
});

// Without ?manifest=, the field holds the page's default (data-default on the
// field, relative to the page): the demo's WordNet publication where
// scripts/demo and scripts/serve-page put it (www/web/search/ beside
// www/wordnet-text/). It is only filled in, not opened.
const fromAddress = new URLSearchParams(location.search).get('manifest');
busy('');
document.body.dataset.state = 'ready';
if (fromAddress) {
  $('manifest').value = fromAddress;
  open(fromAddress);
} else if ($('manifest').dataset.default) {
  $('manifest').value = new URL($('manifest').dataset.default, location.href).href;
}

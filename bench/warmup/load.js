// Closed-loop sync writes of the 'visited' template over existing users, for docs/BENCHMARKS.md (warm-up).
// usage: node load.js URL CLIENTS SECONDS USERS SITES   (env SEED: this run's random stream; SLICE: seconds, default 10;
//        REF: seconds of a steady-state reference measured right after, default 60)
// Each request: one row {user: uniform over [0, USERS), url: 'u' + uniform over [0, SITES)}, POST .../write/visited
// ?mode=sync, its latency from sending to the end of the answer. Prints one JSON line: the first SECONDS as a whole
// and per SLICE, then the REF seconds after (the same clients, no pause): p50/p99/p99.9 (ms), writes/s, non-200s.
const http = require('http');
const [url, clients, seconds, users, sites] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]),
  Number(process.argv[5]), Number(process.argv[6])];
const slice = Number(process.env.SLICE || 10), ref = Number(process.env.REF || 60);
const auth = process.env.SLUICE_AUTH ? {Authorization: 'Basic ' + Buffer.from(process.env.SLUICE_AUTH).toString('base64')} : {};
const agent = new http.Agent({keepAlive: true, maxSockets: clients});
let seed = Number(process.env.SEED || 42) >>> 0;
function rand() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
const u = new URL(url + '/db/neo4j/write/visited?mode=sync');
const t0 = process.hrtime.bigint();
const sinceMs = () => Number(process.hrtime.bigint() - t0) / 1e6;
const done = []; // [end ms since start, latency ms, status]
let stop = false;
function post() {
  return new Promise((resolve) => {
    const body = JSON.stringify({user: Math.floor(rand() * users), url: 'u' + Math.floor(rand() * sites)});
    const start = sinceMs();
    const req = http.request({host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'POST', agent,
      headers: {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...auth}},
      (res) => { res.resume(); res.on('end', () => { const end = sinceMs(); done.push([end, end - start, res.statusCode]); resolve(); }); });
    req.on('error', () => { const end = sinceMs(); done.push([end, end - start, 0]); resolve(); });
    req.end(body);
  });
}
async function client() { while (!stop) await post(); }
function q(sorted, p) { return sorted.length ? +sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)].toFixed(1) : null; }
function stats(from, to) { // requests that ended in [from, to) seconds
  const w = done.filter(([end]) => end >= from * 1000 && end < to * 1000);
  const ok = w.filter(([, , s]) => s === 200).map(([, l]) => l).sort((a, b) => a - b);
  return {from, to, writes_per_s: Math.round(ok.length / (to - from)), p50_ms: q(ok, 0.5), p99_ms: q(ok, 0.99),
    p999_ms: q(ok, 0.999), max_ms: ok.length ? +ok[ok.length - 1].toFixed(1) : null, not_200: w.length - ok.length};
}
for (let i = 0; i < clients; i++) client();
setTimeout(() => {
  stop = true;
  const slices = [];
  for (let s = 0; s < seconds; s += slice) slices.push(stats(s, Math.min(seconds, s + slice)));
  console.log(JSON.stringify({clients, seed: Number(process.env.SEED || 42), first: stats(0, seconds), slices,
    steady: ref > 0 ? stats(seconds, seconds + ref) : null}));
  setTimeout(() => process.exit(0), 200);
}, (seconds + ref) * 1000);

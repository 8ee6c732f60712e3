// Closed-loop load over several sluice instances, for docs/SCALING.md: 'visited' writes ({user, url}).
// usage: node load.js SECONDS WARMUP CLIENTS URL[,URL...]
// env:  SLUICE_AUTH="user:password"; MODE=async (default) | sync | direct; USERS (100000) and SITES (1000): the
//       ranges users and sites are drawn from; ROUTE=rr (default: each client round robin over the instances) |
//       key (user % instances: key-affinity routing, a user's writes always through one instance); SEED.
// Prints one JSON line. accepted_per_s, refused_503, failed: the measured window over all instances (202s in
// async mode, 200s otherwise). per_instance: its writes/s, statuses, and from its /metrics over the window the
// transient retries by Neo4j code, batches committed, mean rows per batch and mean time to apply and commit one.
// total: every answer since the start, warm-up included, counted after the last request in flight was answered:
// the graph's count must have grown by total.ok (plus, at most, the status-0 writes whose answer was lost).
const http = require('http');
const [seconds, warmup, clients, urls] = [Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]),
  process.argv[5].split(',')];
const mode = process.env.MODE || 'async';
const users = Number(process.env.USERS || 100000), sites = Number(process.env.SITES || 1000);
const byKey = (process.env.ROUTE || 'rr') === 'key';
const okStatus = mode === 'async' ? 202 : 200;
const auth = 'Basic ' + Buffer.from(process.env.SLUICE_AUTH || 'neo4j:fleet-password-1').toString('base64');
const agent = new http.Agent({keepAlive: true, maxSockets: clients});
let seed = Number(process.env.SEED || 42);
function rand() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
let measuring = false, stop = false;
const window = urls.map(() => ({}));  // per instance: status -> count, in the measured window
const total = {};                     // status -> count, over the whole run
function request(url, method, path, body) {
  return new Promise((resolve) => {
    const u = new URL(url + path);
    const headers = {'Authorization': auth};
    if (body) Object.assign(headers, {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body)});
    const req = http.request({host: u.hostname, port: u.port, path: u.pathname + u.search, method, agent, headers},
      (res) => { let text = ''; res.setEncoding('utf8'); res.on('data', (c) => { text += c; });
        res.on('end', () => resolve({status: res.statusCode, text})); });
    req.setTimeout(60000, () => req.destroy());  // answered as lost in transport (status 0)
    req.on('error', () => resolve({status: 0, text: ''}));
    req.end(body);
  });
}
// sluice_transient_retries_total{code="Neo.TransientError.Transaction.DeadlockDetected",...} 12.0, and the batches'
// rows and commit times (sluice_batch_rows_sum / _count, sluice_commit_seconds_sum)
async function scrape(url) {
  const retries = {}, {text} = await request(url, 'GET', '/metrics');
  for (const m of text.matchAll(/^sluice_transient_retries_total\{[^}]*code="([^"]+)"[^}]*\} ([0-9.eE+]+)$/gm)) {
    const code = m[1].split('.').pop();
    retries[code] = (retries[code] || 0) + Number(m[2]);
  }
  const value = (name) => Number((text.match(new RegExp('^' + name + '(?:\\{[^}]*\\})? ([0-9.eE+]+)$', 'm')) || [0, 0])[1]);
  return {retries, batches: value('sluice_batch_rows_count'), rows: value('sluice_batch_rows_sum'),
    commitSeconds: value('sluice_commit_seconds_sum')};
}
async function client(i) {
  let n = i;
  while (!stop) {
    const user = Math.floor(rand() * users);
    const body = JSON.stringify({user, url: 'u' + Math.floor(rand() * sites)});
    const target = byKey ? user % urls.length : n++ % urls.length;
    const {status} = await request(urls[target], 'POST', '/db/neo4j/write/visited?mode=' + mode, body);
    total[status] = (total[status] || 0) + 1;
    if (measuring) window[target][status] = (window[target][status] || 0) + 1;
  }
}
(async () => {
  const running = [];
  for (let i = 0; i < clients; i++) running.push(client(i));
  await new Promise((r) => setTimeout(r, warmup * 1000));
  const before = await Promise.all(urls.map(scrape));
  measuring = true;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  measuring = false;
  const after = await Promise.all(urls.map(scrape));
  stop = true;
  await Promise.all(running);
  const sum = (f) => window.reduce((a, w) => a + f(w), 0);
  const others = (w) => Object.entries(w).filter(([s]) => Number(s) !== okStatus && s !== '503').reduce((a, [, c]) => a + c, 0);
  const perInstance = urls.map((url, i) => {
    const delta = {};
    for (const code of new Set([...Object.keys(before[i].retries), ...Object.keys(after[i].retries)])) {
      delta[code] = (after[i].retries[code] || 0) - (before[i].retries[code] || 0);
    }
    const batches = after[i].batches - before[i].batches;
    const statuses = Object.fromEntries(Object.entries(window[i]).filter(([s]) => Number(s) !== okStatus));
    return {url, writes_per_s: Math.round((window[i][okStatus] || 0) / seconds), ok: window[i][okStatus] || 0,
      errors_by_status: statuses, transient_retries: delta, batches,
      rows_per_batch: batches ? Math.round((after[i].rows - before[i].rows) / batches * 10) / 10 : null,
      commit_ms: batches ? Math.round((after[i].commitSeconds - before[i].commitSeconds) / batches * 10000) / 10 : null};
  });
  console.log(JSON.stringify({instances: urls.length, mode, route: byKey ? 'key' : 'rr', users, sites, clients, seconds,
    accepted_per_s: Math.round(sum((w) => w[okStatus] || 0) / seconds), refused_503: sum((w) => w[503] || 0),
    failed: sum(others), per_instance: perInstance,
    total: {ok: total[okStatus] || 0, lost_in_transport: total[0] || 0,
      errors_by_status: Object.fromEntries(Object.entries(total).filter(([s]) => Number(s) !== okStatus && s !== '0'))}}));
  agent.destroy();
})();

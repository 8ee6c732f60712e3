// Closed-loop async load over several sluice instances (round robin per client), for docs/SCALING.md.
// usage: node load.js SECONDS WARMUP CLIENTS URL[,URL...]   (env SLUICE_AUTH="user:password")
// Prints one JSON line: accepted writes/s over the measured window, and the 503s.
const http = require('http');
const [seconds, warmup, clients, urls] = [Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4]),
  process.argv[5].split(',')];
const auth = 'Basic ' + Buffer.from(process.env.SLUICE_AUTH || 'neo4j:fleet-password-1').toString('base64');
const agent = new http.Agent({keepAlive: true, maxSockets: clients});
let seed = Number(process.env.SEED || 42);
function rand() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
let measuring = false, accepted = 0, refused = 0, failed = 0, stop = false;
function post(url) {
  return new Promise((resolve) => {
    const body = JSON.stringify({user: Math.floor(rand() * 100000), url: 'u' + Math.floor(rand() * 1000)});
    const u = new URL(url + '/db/neo4j/write/visited?mode=async');
    const req = http.request({host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'POST', agent,
      headers: {'Content-Type': 'application/json', 'Authorization': auth, 'Content-Length': Buffer.byteLength(body)}},
      (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    req.on('error', () => resolve(0));
    req.end(body);
  });
}
async function client(i) {
  let n = i;
  while (!stop) {
    const status = await post(urls[n++ % urls.length]);
    if (!measuring) continue;
    if (status === 202) accepted++; else if (status === 503) refused++; else failed++;
  }
}
for (let i = 0; i < clients; i++) client(i);
setTimeout(() => { measuring = true; }, warmup * 1000);
setTimeout(() => {
  stop = true;
  console.log(JSON.stringify({instances: urls.length, clients, seconds, accepted_per_s: Math.round(accepted / seconds),
    refused_503: refused, failed}));
  setTimeout(() => process.exit(0), 500);
}, (warmup + seconds) * 1000);

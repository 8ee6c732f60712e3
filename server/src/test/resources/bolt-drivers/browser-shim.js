// What observe.cjs needs of Node.js, in a browser page that has loaded the JavaScript driver's browser build
// (neo4j-web.min.js, which speaks Bolt over WebSocket): require, process (argv, env, stdout, stderr, exit), Buffer.from
// and crypto.createHash('sha256'). Used by io.sluice.bolt.OtherDriversTest: observeInBrowser(script, address, user,
// password) runs observe.cjs's text as Node would and resolves with what it wrote and its exit code.
'use strict'

function sha256Hex (bytes) {
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2])
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19])
  const length = bytes.length
  const padded = new Uint8Array(((length + 9 + 63) >> 6) << 6)
  padded.set(bytes)
  padded[length] = 0x80
  const view = new DataView(padded.buffer)
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000))
  view.setUint32(padded.length - 4, (length << 3) >>> 0)
  const w = new Uint32Array(64)
  const rotr = (x, n) => (x >>> n) | (x << (32 - n))
  for (let at = 0; at < padded.length; at += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(at + i * 4)
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3)
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10)
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0
    }
    let [a, b, c, d, e, f, g, k] = h
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0
      k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0
    }
    const v = [a, b, c, d, e, f, g, k]
    for (let i = 0; i < 8; i++) h[i] = (h[i] + v[i]) >>> 0
  }
  return Array.from(h, x => x.toString(16).padStart(8, '0')).join('')
}

const shimBuffer = {
  from (v, encodingOrOffset, length) {
    if (typeof v === 'string') return new TextEncoder().encode(v)
    return new Uint8Array(v, encodingOrOffset, length)
  }
}

const shimCrypto = {
  createHash (algorithm) {
    if (algorithm !== 'sha256') throw new Error('only sha256 here, not ' + algorithm)
    const parts = []
    return {
      update (b) { parts.push(typeof b === 'string' ? new TextEncoder().encode(b) : b); return this },
      digest (encoding) {
        const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
        let at = 0
        for (const p of parts) { all.set(p, at); at += p.length }
        return sha256Hex(all)
      }
    }
  }
}

// eslint-disable-next-line no-unused-vars
function observeInBrowser (script, address, user, password) {
  return new Promise(resolve => {
    let out = ''
    let err = ''
    const process = {
      argv: ['node', 'observe.cjs', address, user, password],
      // BOLT_TRACE: the driver's log of every Bolt message, kept in window.observeLog as it grows. OBSERVE_SKIP:
      // the results abandoned half read, where the browser build (6.3.0) itself breaks against Neo4j's own server:
      // a session closed mid-stream sends RESET, then a DISCARD whose answer it takes for the RESET's, and the
      // next query on that connection waits for good
      env: { BOLT_TRACE: '1', OBSERVE_SKIP: 'abandon' },
      stdout: { write: s => { out += s } },
      stderr: { write: s => { err += s; window.observeLog = err } },
      exit: code => resolve({ code, out, err })
    }
    const modules = {
      crypto: shimCrypto,
      'neo4j-driver': window.neo4j,
      'neo4j-driver/package.json': { version: window.neo4j.version || 'browser' }
    }
    const require = name => {
      if (!(name in modules)) throw new Error('no module ' + name + ' in the browser')
      return modules[name]
    }
    try {
      // observe.cjs's text, run as Node runs a CommonJS module: its main() calls process.exit when done
      // eslint-disable-next-line no-new-func
      new Function('require', 'process', 'Buffer', script)(require, process, shimBuffer)
    } catch (e) {
      resolve({ code: 1, out, err: err + String(e && e.stack) })
    }
  })
}

// What Neo4j's official JavaScript driver observes of a Bolt server, as one JSON document on stdout.
//
// Usage: node observe.cjs URI USER PASSWORD   (URI: host:port, or bolt://host:port; both schemes are used)
// With BOLT_TRACE set, the driver's log of every Bolt message goes to stderr.
//
// The twin of observe.py (same sections, same encoding of values), run by io.sluice.bolt.OtherDriversTest against
// Neo4j's own server and against sluice. Every section catches its own failure and records it. Labels,
// relationship types and constraint names start with "Js", so the Python twin can share a database; they are
// deleted before and after. Element ids are replaced by aliases (n0, n1, r0 ...) in the order a record shows them.
'use strict'

const crypto = require('crypto')
const neo4j = require('neo4j-driver')

const { Date: NDate, DateTime, Duration, LocalDateTime, LocalTime, Point, Time } = neo4j.types
const int = neo4j.int
const CLEAN = "MATCH (n) WHERE any(l IN labels(n) WHERE l STARTS WITH 'Js') DETACH DELETE n"
const COUNT = "MATCH (n) WHERE any(l IN labels(n) WHERE l STARTS WITH 'Js') RETURN count(n) AS c"
const CONFIG = { connectionTimeout: 10000, maxTransactionRetryTime: 5000, userAgent: 'sluice-observe-js' }
if (process.env.BOLT_TRACE) {
  // every Bolt message the driver sends and receives, on stderr
  CONFIG.logging = { level: 'debug', logger: (level, message) => process.stderr.write(`${level} ${message}\n`) }
}

async function main () {
  const [address0, user, password] = process.argv.slice(2)
  const address = address0.includes('://') ? address0.split('://')[1] : address0
  const auth = neo4j.auth.basic(user, password)
  const out = { driver: 'javascript ' + require('neo4j-driver/package.json').version }
  for (const scheme of ['bolt', 'neo4j']) {
    const uri = scheme + '://' + address
    out[scheme] = {
      wrong_password: await section(() => wrongCredentials(uri, user, password + '-wrong')),
      unknown_user: await section(() => wrongCredentials(uri, 'nobody-' + user, password))
    }
    const driver = neo4j.driver(uri, auth, CONFIG)
    try {
      if (scheme === 'bolt') {
        out.before = await section(() => before(driver))
      }
      Object.assign(out[scheme], await basics(driver, scheme))
    } finally {
      await driver.close()
    }
  }
  const driver = neo4j.driver('neo4j://' + address, auth, CONFIG)
  try {
    out.values = await section(() => values(driver))
    out.stored = await section(() => stored(driver))
    out.graph = await section(() => graph(driver))
    out.notifications = await section(() => notifications(driver))
    out.syntax_error = await section(() => syntaxError(driver))
    out.unique = await section(() => unique(driver))
    out.large = await section(() => large(driver))
    // OBSERVE_SKIP names sections left out (the browser's: see browser-shim.js)
    out.abandon = (process.env.OBSERVE_SKIP || '').split(',').includes('abandon') ? 'skipped'
      : await section(() => abandon(driver))
    out.concurrent = await section(() => manySessions(driver))
    out.after = await section(() => clean(driver))
  } finally {
    await driver.close()
  }
  process.stdout.write(JSON.stringify(sortKeys(out), null, 1) + '\n')
}

async function section (run) {
  try {
    return await run()
  } catch (e) {
    return { failed: error(e) }
  }
}

// A driver error as the driver shows it; message and description are wording, the rest is protocol.
function error (e) {
  if (!e || e.gqlStatus === undefined) {
    return { js: e && e.constructor ? e.constructor.name : typeof e, message: String(e && e.message) }
  }
  const out = {
    js: e.constructor.name,
    message: e.message,
    gql_status: e.gqlStatus,
    description: e.gqlStatusDescription,
    classification: e.classification,
    diagnostic_record: plain(e.diagnosticRecord || {})
  }
  if (e instanceof neo4j.Neo4jError) {
    out.code = e.code
    out.retryable = e.retryable
  }
  if (e.cause && e.cause.gqlStatus !== undefined) {
    out.cause = error(e.cause)
  }
  return out
}

function plain (v) {
  return JSON.parse(JSON.stringify(v, (k, x) => neo4j.isInt(x) ? x.toNumber() : x))
}

async function wrongCredentials (uri, user, password) {
  const driver = neo4j.driver(uri, neo4j.auth.basic(user, password), CONFIG)
  try {
    await driver.verifyConnectivity()
    return { connected: true }
  } catch (e) {
    return { connected: false, error: error(e) }
  } finally {
    await driver.close()
  }
}

async function single (driver, query, params) {
  return (await driver.executeQuery(query, params)).records[0]
}

async function before (driver) {
  const left = (await single(driver, COUNT)).get('c').toNumber()
  await clean(driver)
  return { nodes: left }
}

async function clean (driver) {
  await driver.executeQuery(CLEAN)
  await driver.executeQuery('DROP CONSTRAINT JsUnique IF EXISTS')
  return { left: (await single(driver, COUNT)).get('c').toNumber() }
}

async function basics (driver, scheme) {
  const label = 'Js' + scheme[0].toUpperCase() + scheme.slice(1)
  const out = { connect: await section(() => connect(driver)) }
  let bookmarks = []
  out.auto_commit = await section(async () => {
    const s = driver.session()
    try {
      const r = await s.run(`CREATE (n:${label} {k: 'auto', at: $at}) RETURN n.k AS k`, { at: int(1) })
      bookmarks = s.lastBookmarks()
      return {
        records: enc(r.records.map(x => x.toObject())),
        keys: r.records.length ? r.records[0].keys : [],
        summary: summ(r.summary),
        bookmarks: bookmarks.length
      }
    } finally {
      await s.close()
    }
  })
  out.execute_write = await section(async () => {
    const s = driver.session({ bookmarks })
    try {
      const got = await s.executeWrite(async tx => {
        const r = await tx.run(`CREATE (n:${label} {k: 'tx'}) RETURN n.k AS k, 40 + 2 AS answer`)
        return { record: enc(r.records[0].toObject()), summary: summ(r.summary) }
      })
      bookmarks = s.lastBookmarks()
      got.bookmarks = bookmarks.length
      return got
    } finally {
      await s.close()
    }
  })
  out.read_back = await section(async () => {
    const s = driver.session({ bookmarks, defaultAccessMode: neo4j.session.READ })
    try {
      return await s.executeRead(async tx => (await tx.run(`MATCH (n:${label}) RETURN n.k AS k ORDER BY k`))
        .records.map(r => enc(r.toObject())))
    } finally {
      await s.close()
    }
  })
  out.execute_query = await section(async () => {
    const manager = driver.executeQueryBookmarkManager
    const w = await driver.executeQuery(`CREATE (n:${label} {k: 'eq'}) RETURN n.k AS k`, {},
      { routing: neo4j.routing.WRITE })
    const afterWrite = [...await manager.getBookmarks()].length
    const r = await driver.executeQuery(`MATCH (n:${label}) RETURN n.k AS k ORDER BY k`, {},
      { routing: neo4j.routing.READ })
    return {
      write: { records: enc(w.records.map(x => x.toObject())), keys: w.keys, summary: summ(w.summary) },
      bookmarks_after_write: afterWrite,
      read: { records: enc(r.records.map(x => x.toObject())), keys: r.keys, summary: summ(r.summary) }
    }
  })
  return out
}

async function connect (driver) {
  await driver.verifyConnectivity()
  const info = await driver.getServerInfo()
  return {
    agent: info.agent,
    protocol: info.protocolVersion.toString(),
    address: info.address,
    authenticated: await driver.verifyAuthentication()
  }
}

function summ (s) {
  const u = s.counters.updates()
  const counters = {
    nodes_created: u.nodesCreated,
    nodes_deleted: u.nodesDeleted,
    relationships_created: u.relationshipsCreated,
    relationships_deleted: u.relationshipsDeleted,
    properties_set: u.propertiesSet,
    labels_added: u.labelsAdded,
    labels_removed: u.labelsRemoved,
    indexes_added: u.indexesAdded,
    indexes_removed: u.indexesRemoved,
    constraints_added: u.constraintsAdded,
    constraints_removed: u.constraintsRemoved,
    system_updates: s.counters.systemUpdates(),
    contains_updates: s.counters.containsUpdates(),
    contains_system_updates: s.counters.containsSystemUpdates()
  }
  return {
    query_type: s.queryType,
    database: s.database.name,
    counters,
    has_plan: Boolean(s.plan),
    gql_status_objects: s.gqlStatusObjects.map(status),
    available_after: num(s.resultAvailableAfter),
    consumed_after: num(s.resultConsumedAfter)
  }
}

function num (v) {
  return neo4j.isInt(v) ? v.toNumber() : v
}

function status (g) {
  return {
    gql_status: g.gqlStatus,
    status_description: g.statusDescription,
    classification: g.classification,
    severity: g.severity,
    notification: g.isNotification,
    position: g.position && g.position.offset !== undefined
      ? [g.position.offset, g.position.line, g.position.column]
      : null
  }
}

// ---- values ----

function range (n) {
  return Array.from({ length: n }, (_, i) => i)
}

function sentValues () {
  const map16 = {}
  for (const i of range(20)) {
    map16['k' + String(i).padStart(3, '0')] = int(i)
  }
  return {
    int_zero: int(0),
    int_neg: int(-1),
    int_tiny_min: int(-16),
    int_8: int(-17),
    int_8_max: int(127),
    int_16: int(128),
    int_16_min: int(-32768),
    int_32: int(32768),
    int_32_min: int(-2147483648),
    int_64: int(2147483648),
    int_max: int('9223372036854775807'),
    int_min: int('-9223372036854775808'),
    js_number_integral: 42, // a JavaScript number is always sent as a FLOAT
    float: 1.5,
    float_neg_zero: -0,
    float_max: 1.7976931348623157e308,
    float_tiny: 5e-324,
    float_nan: NaN,
    float_inf: Infinity,
    float_ninf: -Infinity,
    str: 'sluice',
    str_empty: '',
    str_unicode: '\u017c\u00f3\u0142w \u{1F422} \u0000 end',
    str_16: 'y'.repeat(300),
    str_32: 'x'.repeat(70000),
    bool_true: true,
    bool_false: false,
    null: null,
    list: [int(1), 'two', 3.0, null, [true, []], { k: 'v' }],
    list_empty: [],
    list_16: range(300).map(i => int(i)),
    map: { a: int(1), b: { c: [int(1), int(2)] }, '': 'empty key' },
    map_empty: {},
    map_16: map16,
    bytes: Int8Array.from(range(256), i => (i << 24) >> 24),
    bytes_empty: new Int8Array(0),
    bytes_16: new Int8Array(300),
    date: new NDate(2024, 2, 29),
    date_julian: new NDate(1582, 10, 4),
    date_far: new NDate(9999, 12, 31),
    time: new Time(12, 34, 56, 123456789, 3600),
    time_negative_offset: new Time(0, 0, 0, 0, -41400),
    localtime: new LocalTime(23, 59, 59, 999999999),
    localtime_midnight: new LocalTime(0, 0, 0, 0),
    datetime_offset: new DateTime(2024, 2, 29, 12, 34, 56, 123456789, -19800),
    datetime_utc: new DateTime(1970, 1, 1, 0, 0, 0, 0, undefined, 'UTC'),
    datetime_zone: new DateTime(2024, 7, 1, 12, 0, 0, 1, undefined, 'Europe/Stockholm'),
    // ambiguous local time (clocks go back at 03:00): the driver picks one of the two instants itself
    datetime_zone_dst_end: new DateTime(2024, 10, 27, 2, 30, 0, 0, undefined, 'Europe/Stockholm'),
    datetime_zone_before_1970: new DateTime(1900, 1, 1, 0, 0, 0, 0, undefined, 'America/New_York'),
    localdatetime: new LocalDateTime(2024, 2, 29, 12, 34, 56, 789),
    duration: new Duration(14, 3, 14706, 7),
    duration_negative: new Duration(0, -1, -1, -1),
    duration_zero: new Duration(0, 0, 0, 0),
    point_2d: new Point(7203, 1.5, -2.25),
    point_3d: new Point(9157, 1.0, 2.0, 3.0),
    wgs84_2d: new Point(4326, 12.97, 55.6),
    wgs84_3d: new Point(4979, 12.97, 55.6, 30.0)
  }
}

async function values (driver) {
  const sent = sentValues()
  const names = Object.keys(sent).sort()
  const s = driver.session()
  let echoedRaw, echoed, inMap, types
  try {
    const r1 = await s.run('RETURN ' + names.map(k => `$${k} AS ${k}`).join(', '), sent)
    const rec = r1.records[0]
    echoedRaw = Object.fromEntries(names.map(k => [k, rec.get(k)]))
    echoed = Object.fromEntries(names.map(k => [k, enc(rec.get(k))]))
    const r2 = await s.run('RETURN $all AS all, [k IN keys($all) | [k, valueType($all[k])]] AS types', { all: sent })
    const all = r2.records[0].get('all')
    inMap = Object.fromEntries(Object.entries(all).map(([k, v]) => [k, enc(v)]))
    types = Object.fromEntries(r2.records[0].get('types'))
  } finally {
    await s.close()
  }
  const out = {}
  for (const k of names) {
    const expected = enc(sent[k])
    out[k] = {
      sent: expected,
      type: types[k] === undefined ? null : types[k],
      echoed: same(echoed[k], expected) ? 'same' : echoed[k],
      in_map: same(inMap[k], expected) ? 'same' : (inMap[k] === undefined ? null : inMap[k])
    }
    if (neo4j.isDateTime(sent[k]) && sent[k].timeZoneId) {
      out[k].echoed_offset = num(echoedRaw[k].timeZoneOffsetSeconds)
    }
  }
  return out
}

function same (a, b) {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))
}

async function stored (driver) {
  const sent = Object.fromEntries(Object.entries(sentValues()).filter(([k, v]) =>
    v !== null && !['list', 'list_empty', 'map', 'map_empty', 'map_16'].includes(k)))
  const s = driver.session()
  try {
    await s.run('CREATE (n:JsValues) SET n = $props RETURN n', { props: sent })
    const back = await s.executeRead(async tx => (await tx.run('MATCH (n:JsValues) RETURN n')).records[0].get('n'))
    const props = back.properties
    const differs = {}
    for (const k of Object.keys(sent).sort()) {
      if (!same(enc(props[k]), enc(sent[k]))) {
        differs[k] = enc(props[k] === undefined ? null : props[k])
      }
    }
    const offsets = Object.fromEntries(Object.keys(props).sort().filter(k => neo4j.isDateTime(props[k]) &&
      props[k].timeZoneId).map(k => [k, num(props[k].timeZoneOffsetSeconds)]))
    return { labels: [...back.labels].sort(), differs, count: Object.keys(props).length, zone_offsets: offsets }
  } finally {
    await s.close()
  }
}

async function graph (driver) {
  const s = driver.session()
  try {
    const create = await s.run(
      "CREATE p = (a:JsA:JsB {name: 'a', n: 1})-[r:JS_T {w: 0.5}]->(b:JsC {name: 'b'})" +
      "<-[u:JS_U]-(c:JsA {name: 'c'}) RETURN a, r, b, p, [elementId(a), elementId(r)] AS ids")
    const rec = create.records[0]
    const ids = rec.get('ids')
    const idsMatch = ids[0] === rec.get('a').elementId && ids[1] === rec.get('r').elementId
    // the same path read the other way round: its relationships point against the walk
    const back = await s.run("MATCH p = (c:JsA {name: 'c'})-[:JS_U]->(:JsC)<-[:JS_T]-(:JsA {name: 'a'}) " +
      'RETURN p, nodes(p) AS ns, relationships(p) AS rs, length(p) AS len')
    const alone = await s.run("MATCH (c:JsA {name: 'c'}) RETURN c, [(c)-[x]->() | x] AS out")
    return {
      created: encRecord(rec, ['a', 'r', 'b', 'p']),
      counters: summ(create.summary).counters,
      element_ids_match_cypher: idsMatch,
      reverse: encRecord(back.records[0], ['p', 'ns', 'rs', 'len']),
      alone: encRecord(alone.records[0], ['c', 'out'])
    }
  } finally {
    await s.close()
  }
}

async function notifications (driver) {
  const s = driver.session()
  try {
    const r = await s.run('EXPLAIN MATCH (a:JsX), (b:JsY) RETURN a, b')
    const plan = r.summary.plan
    return {
      records: r.records.length,
      summary: summ(r.summary),
      plan_root: plan ? plan.operatorType.split('@')[0] : ''
    }
  } finally {
    await s.close()
  }
}

async function failure (run) {
  try {
    await run()
    return null
  } catch (e) {
    return error(e)
  }
}

async function syntaxError (driver) {
  const out = {}
  const s = driver.session()
  try {
    out.error = await failure(() => s.run('CREAT (n:JsBroken)'))
    out.then = (await s.run('RETURN 1 AS one')).records[0].get('one').toNumber()
  } finally {
    await s.close()
  }
  out.missing_parameter = await failure(() => driver.executeQuery('RETURN $missing AS m'))
  out.division_by_zero = await failure(() => driver.executeQuery('RETURN 1 / $zero AS z', { zero: int(0) }))
  return out
}

async function unique (driver) {
  const out = {}
  const created = await driver.executeQuery(
    'CREATE CONSTRAINT JsUnique IF NOT EXISTS FOR (n:JsUnique) REQUIRE n.k IS UNIQUE')
  out.constraint = summ(created.summary).counters
  out.first = summ((await driver.executeQuery('CREATE (:JsUnique {k: 1})')).summary).counters
  out.second = await failure(() => driver.executeQuery('CREATE (:JsUnique {k: 1})'))
  const s = driver.session()
  try {
    out.in_transaction = await failure(() => s.executeWrite(async tx => {
      await tx.run('CREATE (:JsUnique {k: 2})')
      await tx.run('CREATE (:JsUnique {k: 2})')
    }))
  } finally {
    await s.close()
  }
  out.left = (await single(driver, 'MATCH (n:JsUnique) RETURN collect(n.k) AS ks')).get('ks').map(k => k.toNumber())
  await driver.executeQuery('DROP CONSTRAINT JsUnique')
  return out
}

async function large (driver) {
  const s = driver.session({ fetchSize: 100 })
  try {
    const r = s.run("UNWIND range(1, 5000) AS i RETURN i, 'row ' + i AS s")
    let n = 0
    let total = 0
    let first = null
    let last = null
    for await (const rec of r) {
      const i = rec.get('i').toNumber()
      n += 1
      total += i
      first = first || [i, rec.get('s')]
      last = [i, rec.get('s')]
    }
    return { rows: n, sum: total, first, last, summary: summ(await r.summary()) }
  } finally {
    await s.close()
  }
}

async function take (result, n) {
  const got = []
  for await (const rec of result) {
    got.push(rec.get(0).toNumber())
    if (got.length === n) {
      break
    }
  }
  return got
}

async function abandon (driver) {
  const out = {}
  let s = driver.session({ fetchSize: 10 })
  const r = s.run('UNWIND range(1, 1000) AS i RETURN i')
  const it = r[Symbol.asyncIterator]()
  out.auto_commit_read = []
  for (let i = 0; i < 15; i++) {
    out.auto_commit_read.push((await it.next()).value.get('i').toNumber())
  }
  await s.close()
  s = driver.session({ fetchSize: 10 })
  try {
    // the driver refuses a second query while the first still streams: stop reading the first, then run
    const head = await take(s.run('UNWIND range(1, 100) AS i RETURN i'), 5)
    const second = (await s.run("RETURN 'second' AS x")).records[0].get('x')
    const rest = (await s.run('UNWIND range(6, 100) AS i RETURN i')).records.map(r => r.get('i').toNumber())
    out.interleaved = { head, second, rest: rest.length, rest_sum: rest.reduce((a, b) => a + b, 0) }
  } finally {
    await s.close()
  }
  s = driver.session({ fetchSize: 10 })
  const tx = await s.beginTransaction()
  await tx.run('CREATE (:JsAbandoned)')
  out.transaction_read = await take(tx.run('UNWIND range(1, 1000) AS i RETURN i'), 12)
  // the session closes with the transaction open and its result half read: rolled back
  await s.close()
  out.after = (await single(driver, 'MATCH (n:JsAbandoned) RETURN count(n) AS c')).get('c').toNumber()
  s = driver.session({ fetchSize: 10 })
  try {
    const tx2 = await s.beginTransaction()
    await take(tx2.run('UNWIND range(1, 1000) AS i RETURN i'), 3)
    await tx2.rollback()
    out.same_session_after_rollback = (await s.run('RETURN 7 AS x')).records[0].get('x').toNumber()
  } finally {
    await s.close()
  }
  return out
}

async function manySessions (driver) {
  const workers = 32
  const results = await Promise.all(range(workers).map(async i => {
    const s = driver.session()
    try {
      return await s.executeWrite(async tx => (await tx.run(
        'CREATE (n:JsConcurrent {i: $i}) RETURN n.i AS i', { i: int(i) })).records[0].get('i').toNumber())
    } finally {
      await s.close()
    }
  }))
  const count = await single(driver, 'MATCH (n:JsConcurrent) RETURN count(n) AS c, sum(n.i) AS s')
  return {
    results: same(results.sort((a, b) => a - b), range(workers)),
    count: count.get('c').toNumber(),
    sum: count.get('s').toNumber()
  }
}

// ---- encoding of what the driver returned ----

function encRecord (rec, keys) {
  const aliases = new Map()
  return Object.fromEntries(keys.map(k => [k, enc(rec.get(k), aliases)]))
}

function alias (aliases, elementId, kind) {
  if (!aliases.has(elementId)) {
    const n = [...aliases.values()].filter(v => v.startsWith(kind)).length
    aliases.set(elementId, kind + n)
  }
  return aliases.get(elementId)
}

function floatText (v) {
  if (Number.isNaN(v)) return 'nan'
  if (v === Infinity) return 'inf'
  if (v === -Infinity) return '-inf'
  if (Object.is(v, -0)) return '-0.0'
  return Number.isInteger(v) && Math.abs(v) < 1e16 ? v.toFixed(1) : String(v)
}

function digest (text) {
  return crypto.createHash('sha256').update(text).digest('hex')
}

function enc (v, aliases = new Map()) {
  if (v === null || v === undefined) return null
  if (typeof v === 'boolean') return v
  if (neo4j.isInt(v)) return ['int', v.toString()]
  if (typeof v === 'bigint') return ['int', v.toString()]
  if (typeof v === 'number') return ['float', floatText(v)]
  if (typeof v === 'string') {
    return v.length > 64 ? ['str', [...v].length, digest(Buffer.from(v, 'utf8'))] : ['str', v]
  }
  if (v instanceof Int8Array || v instanceof Uint8Array) {
    return ['bytes', v.length, digest(Buffer.from(v.buffer, v.byteOffset, v.length))]
  }
  if (Array.isArray(v)) {
    const items = v.map(x => enc(x, aliases))
    return items.length > 32 ? ['list', items.length, digest(JSON.stringify(items))] : ['list', items]
  }
  if (neo4j.isNode(v)) {
    return ['node', alias(aliases, v.elementId, 'n'), [...v.labels].sort(), enc(v.properties, aliases)]
  }
  if (neo4j.isRelationship(v)) {
    return ['relationship', alias(aliases, v.elementId, 'r'), v.type, enc(v.properties, aliases),
      alias(aliases, v.startNodeElementId, 'n'), alias(aliases, v.endNodeElementId, 'n')]
  }
  if (neo4j.isPath(v)) {
    const nodes = [v.start, ...v.segments.map(s => s.end)]
    return ['path', nodes.map(n => enc(n, aliases)), v.segments.map(s => enc(s.relationship, aliases))]
  }
  if (neo4j.isPoint(v)) {
    const coords = v.z === undefined ? [v.x, v.y] : [v.x, v.y, v.z]
    return ['point', num(v.srid), coords.map(floatText)]
  }
  if (neo4j.isDuration(v)) return ['duration', num(v.months), num(v.days), num(v.seconds), num(v.nanoseconds)]
  if (neo4j.isDateTime(v)) {
    if (v.timeZoneId) {
      // a DateTime made with a zone id has no offset until it has been to a server and back: the offset
      // (which side of a DST change) is shown apart, by values() and stored()
      const local = new LocalDateTime(v.year, v.month, v.day, v.hour, v.minute, v.second, v.nanosecond)
      return ['datetime_zone', local.toString(), v.timeZoneId]
    }
    return ['datetime', v.toString(), num(v.timeZoneOffsetSeconds)]
  }
  if (neo4j.isLocalDateTime(v)) return ['localdatetime', v.toString()]
  if (neo4j.isDate(v)) return ['date', v.toString()]
  if (neo4j.isTime(v)) return ['time', v.toString(), num(v.timeZoneOffsetSeconds)]
  if (neo4j.isLocalTime(v)) return ['localtime', v.toString()]
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return ['map', Object.fromEntries(Object.entries(v).map(([k, x]) => [k, enc(x, aliases)]))]
  }
  return ['unknown', v.constructor ? v.constructor.name : typeof v, String(v)]
}

function sortKeys (v) {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map(k => [k, sortKeys(v[k])]))
  }
  return v
}

main().then(() => process.exit(0), e => {
  process.stderr.write(String(e && e.stack) + '\n')
  process.exit(1)
})

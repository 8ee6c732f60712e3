// Neo4j's own Query API client against a sluice: one line of JSON per step, {"step", "ok", ...}.
import neo4j from '@neo4j-labs/experimental-query-api-wrapper';
const [url, password] = process.argv.slice(2);
const driver = neo4j.wrapper(url, neo4j.auth.basic('neo4j', password));
const out = (o) => console.log(JSON.stringify(o, (k, v) => typeof v === 'bigint' ? v.toString() : v));
const step = async (name, fn) => {
  try { out({ step: name, ok: true, value: await fn() }); }
  catch (e) { out({ step: name, ok: false, code: e.code, message: e.message }); }
};
await step('connect', async () => (await driver.verifyConnectivity({ database: 'neo4j' })).agent);
const s = driver.session({ database: 'neo4j' });
await step('write', async () => {
  const r = await s.run('CREATE (n:Npm {v: $v, big: $big, d: $d}) RETURN n.v AS v, n.big AS big, n.d AS d',
    { v: neo4j.int(1), big: neo4j.int('9007199254740993'), d: new neo4j.Date(2024, 2, 29) });
  const rec = r.records[0];
  return { v: rec.get('v').toString(), big: rec.get('big').toString(), d: rec.get('d').toString(),
    nodesCreated: r.summary.counters.updates().nodesCreated };
});
await step('commit', async () => {
  const tx = s.beginTransaction();
  await tx.run('CREATE (:Npm {v: 2})');
  const own = (await tx.run('MATCH (n:Npm {v: 2}) RETURN count(n) AS c')).records[0].get('c').toString();
  await tx.commit();
  return own;
});
await step('rollback', async () => {
  const tx = s.beginTransaction();
  await tx.run('CREATE (:Npm {v: 3})');
  await tx.rollback();
  return (await s.run('MATCH (n:Npm) RETURN n.v AS v ORDER BY v')).records.map(r => r.get('v').toString());
});
await step('executeWrite', async () => s.executeWrite(async tx =>
  (await tx.run('CREATE (n:Npm {v: 4}) RETURN n.v AS v')).records[0].get('v').toString()));
await step('executeRead', async () => s.executeRead(async tx =>
  (await tx.run('MATCH (n:Npm) RETURN count(n) AS c')).records[0].get('c').toString()));
await step('path', async () => {
  const r = await s.run("CREATE p = (:Npm {v: 5})-[:NEXT]->(:Npm {v: 6}) RETURN p");
  const p = r.records[0].get('p');
  return { length: p.length, start: p.start.properties.v.toString(), end: p.end.properties.v.toString() };
});
await step('syntaxError', async () => s.run('RETRUN 1'));
await s.close();
const wrong = neo4j.wrapper(url, neo4j.auth.basic('neo4j', 'not-the-password'));
await step('wrongPassword', async () => { const w = wrong.session({ database: 'neo4j' }); try { await w.run('RETURN 1'); } finally { await w.close(); } });
await wrong.close();
await driver.close();

// Neo4j's own Query API client against a sluice that groups transactions: concurrent managed writes
// (executeWrite, which retries a transient error), each exactly once. One line of JSON per step.
import neo4j from '@neo4j-labs/experimental-query-api-wrapper';
const [url, password, n] = process.argv.slice(2);
const driver = neo4j.wrapper(url, neo4j.auth.basic('neo4j', password));
const out = (o) => console.log(JSON.stringify(o, (k, v) => typeof v === 'bigint' ? v.toString() : v));
const step = async (name, fn) => {
  try { out({ step: name, ok: true, value: await fn() }); }
  catch (e) { out({ step: name, ok: false, code: e.code, message: e.message }); }
};
await step('concurrent', async () => {
  const writes = [];
  for (let i = 0; i < Number(n); i++) {
    const s = driver.session({ database: 'neo4j' });
    writes.push(s.executeWrite(async tx => {
      const r = await tx.run('CREATE (g:NpmGrouped {k: $k}) RETURN g.k AS k', { k: neo4j.int(i) });
      return r.records[0].get('k').toString();
    }).finally(() => s.close()));
  }
  return (await Promise.all(writes)).length;
});
await step('count', async () => {
  const s = driver.session({ database: 'neo4j' });
  try {
    const r = await s.executeRead(tx => tx.run('MATCH (g:NpmGrouped) RETURN count(g) AS c, count(DISTINCT g.k) AS d'));
    return { c: r.records[0].get('c').toString(), d: r.records[0].get('d').toString() };
  } finally { await s.close(); }
});
await driver.close();

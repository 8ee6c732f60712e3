// TelemetryWireTest's script for Neo4j's JavaScript driver: the sequence of docs/reference/driver-telemetry.md,
// each statement labelled so that the recorded transcript shows which step sent what. Arguments: the recorder's
// URI, Neo4j's own URI (for the lock holder, not recorded), user, password.
const neo4j = require('neo4j-driver')

async function main () {
  const [uri, direct, user, password] = process.argv.slice(2)
  const auth = neo4j.auth.basic(user, password)
  const setup = neo4j.driver(direct, auth)
  await setup.executeQuery('MERGE (:TelemetryLock {id: 1})')
  await setup.close()
  const driver = neo4j.driver(uri, auth)
  let s = driver.session()
  for (let i = 1; i <= 3; i++) await s.executeWrite(tx => tx.run(`CREATE (:T {step: 'ew${i}'})`))
  for (let i = 1; i <= 3; i++) await driver.executeQuery(`CREATE (:T {step: 'eq${i}'})`)
  for (let i = 1; i <= 2; i++) {
    const tx = s.beginTransaction()
    await tx.run(`CREATE (:T {step: 'bt${i}'})`)
    await tx.commit()
  }
  for (let i = 1; i <= 2; i++) await s.run(`CREATE (:T {step: 'run${i}'})`)
  await s.close()
  s = driver.session()
  await s.executeWrite(tx => tx.run("CREATE (:T {step: 's2ew1'})"))
  const tx = s.beginTransaction()
  await tx.run("CREATE (:T {step: 's2bt1'})")
  await tx.commit()
  await s.executeWrite(tx => tx.run("CREATE (:T {step: 's2ew2'})"))
  await s.close()
  // a retried transaction function: its first attempt waits for a lock held elsewhere and fails with Neo4j's
  // transient LockAcquisitionTimeout; the second attempt releases the lock first
  const other = neo4j.driver(direct, auth)
  const holderSession = other.session()
  const holder = holderSession.beginTransaction()
  await holder.run('MATCH (n:TelemetryLock {id: 1}) SET n.v = 1')
  let attempts = 0
  s = driver.session()
  await s.executeWrite(async t => {
    attempts++
    if (attempts > 1 && holder.isOpen()) await holder.commit()
    await t.run(`MATCH (n:TelemetryLock {id: 1}) SET n.v = 2, n.step = 'retry${attempts}'`)
  })
  await s.close()
  await holderSession.close()
  await other.close()
  await driver.close()
  console.log('attempts', attempts)
}

main().catch(e => { console.error(e); process.exit(1) })

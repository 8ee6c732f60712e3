# TelemetryWireTest's script for Neo4j's Python driver: the sequence of docs/reference/driver-telemetry.md, each
# statement labelled so that the recorded transcript shows which step sent what. Arguments: the recorder's URI,
# Neo4j's own URI (for the lock holder, not recorded), user, password.
import sys
import neo4j

uri, direct, user, password = sys.argv[1:5]
auth = (user, password)
with neo4j.GraphDatabase.driver(direct, auth=auth) as setup:
    setup.execute_query("MERGE (:TelemetryLock {id: 1})")
with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
    with driver.session() as s:
        for i in range(1, 4):
            s.execute_write(lambda tx: tx.run(f"CREATE (:T {{step: 'ew{i}'}})").consume())
        for i in range(1, 4):
            driver.execute_query(f"CREATE (:T {{step: 'eq{i}'}})")
        for i in range(1, 3):
            with s.begin_transaction() as tx:
                tx.run(f"CREATE (:T {{step: 'bt{i}'}})").consume()
                tx.commit()
        for i in range(1, 3):
            s.run(f"CREATE (:T {{step: 'run{i}'}})").consume()
    with driver.session() as s:
        s.execute_write(lambda tx: tx.run("CREATE (:T {step: 's2ew1'})").consume())
        with s.begin_transaction() as tx:
            tx.run("CREATE (:T {step: 's2bt1'})").consume()
            tx.commit()
        s.execute_write(lambda tx: tx.run("CREATE (:T {step: 's2ew2'})").consume())
    # a retried transaction function: its first attempt waits for a lock held elsewhere and fails with
    # Neo4j's transient LockAcquisitionTimeout; the second attempt releases the lock first
    with neo4j.GraphDatabase.driver(direct, auth=auth) as other:
        holder_session = other.session()
        holder = holder_session.begin_transaction()
        holder.run("MATCH (n:TelemetryLock {id: 1}) SET n.v = 1").consume()
        attempts = []

        def work(tx):
            attempts.append(1)
            if len(attempts) > 1 and holder.closed() is False:
                holder.commit()
            tx.run(f"MATCH (n:TelemetryLock {{id: 1}}) SET n.v = 2, n.step = 'retry{len(attempts)}'").consume()

        with driver.session() as s:
            s.execute_write(work)
        holder_session.close()
        print("attempts", len(attempts))

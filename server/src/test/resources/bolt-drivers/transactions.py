"""Concurrent transactions that deadlock on Neo4j, through Neo4j's official Python driver: one JSON document on stdout.

Usage: python3 transactions.py HOST:PORT USER PASSWORD

Six threads each run 30 transactions of three statements, every statement adding 1 to one of four shared nodes,
the three chosen and ordered at random (a seed per thread): half as unmanaged transactions (begin_transaction, three
runs, commit: the caller does not retry), half as managed ones (execute_write, which the driver retries on a
transient error). Locking shared nodes in different orders, they deadlock on a server that lets them. Reports, per
style, the transactions committed, the errors that reached the caller by code, and for managed ones how many times
the driver called the function; then the nodes' sum, which must be three per committed transaction.

Run by io.sluice.bolt.PythonTransactionsTest against Neo4j's own server and against sluice.
"""

import json
import random
import sys
import threading

from neo4j import GraphDatabase
from neo4j.exceptions import Neo4jError

LABEL = "PyTx"
THREADS = 6
PER_THREAD = 30
NODES = 4
ADD = "MATCH (n:PyTx {id: $id}) SET n.c = n.c + 1"


def three(rng):
    return rng.sample(range(NODES), 3)


def main():
    address, user, password = sys.argv[1:4]
    driver = GraphDatabase.driver("bolt://" + address, auth=(user, password), max_transaction_retry_time=30)
    with driver.session() as s:
        s.run("MATCH (n:PyTx) DETACH DELETE n").consume()
        s.run("UNWIND range(0, $n - 1) AS id CREATE (:PyTx {id: id, c: 0})", n=NODES).consume()
        # the function's shape, once, before the measured part (a grouping server learns it takes three statements)
        s.execute_write(lambda tx: [tx.run(ADD, id=i).consume() for i in range(3)])
        s.run("MATCH (n:PyTx) SET n.c = 0").consume()

    lock = threading.Lock()
    report = {"unmanaged": {"committed": 0, "errors": {}}, "managed": {"committed": 0, "calls": 0, "errors": {}}}

    def failed(style, e):
        with lock:
            errors = report[style]["errors"]
            code = getattr(e, "code", None) or type(e).__name__
            errors[code] = errors.get(code, 0) + 1

    def worker(n):
        rng = random.Random(1000 + n)
        with driver.session() as s:
            for i in range(PER_THREAD):
                ids = three(rng)
                if i % 2 == 0:
                    try:
                        with s.begin_transaction() as tx:
                            for node in ids:
                                tx.run(ADD, id=node).consume()
                            tx.commit()
                        with lock:
                            report["unmanaged"]["committed"] += 1
                    except Neo4jError as e:
                        failed("unmanaged", e)
                else:
                    def work(tx, ids=ids):
                        with lock:
                            report["managed"]["calls"] += 1
                        for node in ids:
                            tx.run(ADD, id=node).consume()
                    try:
                        s.execute_write(work)
                        with lock:
                            report["managed"]["committed"] += 1
                    except Neo4jError as e:
                        failed("managed", e)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with driver.session() as s:
        report["sum"] = s.run("MATCH (n:PyTx) RETURN sum(n.c) AS c").single()["c"]
        s.run("MATCH (n:PyTx) DETACH DELETE n").consume()
    report["expected"] = 3 * (report["unmanaged"]["committed"] + report["managed"]["committed"])
    driver.close()
    json.dump(report, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

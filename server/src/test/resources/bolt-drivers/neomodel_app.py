"""An application writing through neomodel, the Python OGM, as OGM users write: one JSON document on stdout.

Usage: python3 neomodel_app.py HOST:PORT USER PASSWORD

Models: Person (a UniqueIdProperty and a unique, required email), Company (a unique name and a counter of hires),
and Person -[WORKS_AT {since, unit}]-> Company through a StructuredRel. neomodel installs their constraints and
indexes itself (install_all_labels). Then 8 threads each run 20 units of work, each in neomodel's db.transaction: an
explicit, unmanaged transaction (the driver's begin_transaction), committed when the block ends, rolled back when it
raises. Since neomodel 7 the driver is process-wide (one pool, made on first use, closed once at the end) and a
transaction is local to its thread (a ContextVar), so the threads share db as they are meant to.

A unit reads one of two shared companies by name, adds one to its hires in Cypher (the write lock taken before the
value is read), gets or creates a person (every fifth unit gets the previous unit's person again, to hire it at
another company), connects it to the company with relationship properties, and reads back what it just wrote the
way an OGM does, by the element ids the server returned: the person by email and by refresh(), its companies through
works_at.all(), the relationship through relationship(company), the company's counter through refresh(); after the
commit, the person again by its uid, in a new session. Two units of each thread (i % 10 == 7) instead create, after
their increment, a person with the email of the thread's first one, which the unique constraint refuses: neomodel
raises UniqueProperty, the block rolls back, and the unit's increment must not stay. Each company gets some 80
relationships, so Neo4j makes it a dense node, and its relationship-group locks make the units deadlock on Neo4j's
own server. A unit that fails with an error the driver calls retryable is run again, up to 30 times, as an
application without a managed transaction function has to; those retries are counted apart from the errors the
application's handler gets.

Reports the units committed, the retries by Neo4j code, the errors that reached the handler by Neo4j code (by
exception class when there is none in the exception's chain) and by exception class (neomodel raises UniqueProperty
only when the error's message reads as Neo4j's does), the deliberate violations tried and those committed, each
value read back that did not match what the transaction had written, what the committed units imply, the graph's
aggregates at the end, the constraints and indexes neomodel installed, and the workload's wall-clock time.

Run by io.sluice.bolt.NeomodelTest against Neo4j's own server and against sluice.
"""

import json
import random
import sys
import threading
import time

from neo4j.exceptions import Neo4jError
from neomodel import (
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    UniqueIdProperty,
    db,
    get_config,
)

THREADS = 8
UNITS = 20
ATTEMPTS = 30
COMPANIES = ["Acme", "Globex"]
DUPLICATE_CODE = "Neo.ClientError.Schema.ConstraintValidationFailed"


class WorksAt(StructuredRel):
    since = IntegerProperty(required=True, index=True)
    unit = StringProperty(required=True)


class Company(StructuredNode):
    __label__ = "NmCompany"
    name = StringProperty(unique_index=True, required=True)
    hires = IntegerProperty(default=0)

    def employees(self):
        rows, _ = db.cypher_query("MATCH (p:NmPerson)-[:WORKS_AT]->(c) WHERE elementId(c) = $id RETURN p",
                                  {"id": self.element_id}, resolve_objects=True)
        return [r[0] for r in rows]


class Person(StructuredNode):
    __label__ = "NmPerson"
    uid = UniqueIdProperty()
    email = StringProperty(unique_index=True, required=True)
    name = StringProperty()
    works_at = RelationshipTo(Company, "WORKS_AT", model=WorksAt)


def email(thread, unit):
    return f"p{thread}-{unit}@example.com"


def violates(unit):
    """Whether the unit breaks the unique constraint on purpose: neither a rehire nor the unit before one."""
    return unit % 10 == 7


def retryable(e):
    """Whether the exception's chain holds an error the driver calls retryable: the driver raises a deadlock met while
    a result is consumed again as a ResultFailedError (not a Neo4jError) caused by it, which an application retries
    as it retries the deadlock itself."""
    seen, depth = e, 0
    while seen is not None and depth < 10:
        if isinstance(seen, Neo4jError) and seen.is_retryable():
            return True
        seen, depth = seen.__cause__ or seen.__context__, depth + 1
    return False


def code_of(e):
    """The Neo4j code in the exception's chain (neomodel wraps the driver's error), else the exception's class."""
    seen, depth = e, 0
    while seen is not None and depth < 10:
        code = getattr(seen, "code", None)
        if isinstance(code, str) and code:
            return code
        seen, depth = seen.__cause__ or seen.__context__, depth + 1
    return type(e).__name__


class Report:
    def __init__(self):
        self.lock = threading.Lock()
        self.committed = 0
        self.persons_created = 0
        self.errors = {}
        self.retried = {}
        self.exceptions = {}
        self.samples = {}
        self.deliberate = 0
        self.deliberate_committed = 0
        self.inconsistent = []

    def failed(self, where, e):
        code = code_of(e)
        with self.lock:
            self.errors[code] = self.errors.get(code, 0) + 1
            self.exceptions[type(e).__name__] = self.exceptions.get(type(e).__name__, 0) + 1
            self.samples.setdefault(code, f"{where}: {type(e).__name__}: {e}"[:400])

    def retry(self, e):
        code = code_of(e)
        with self.lock:
            self.retried[code] = self.retried.get(code, 0) + 1
            self.samples.setdefault(code, f"{type(e).__name__}: {e}"[:400])

    def differs(self, where, what):
        with self.lock:
            self.inconsistent.append(f"{where}: {what}"[:400])


def unit_of_work(t, i, report):
    """One unit: True when it created a person. Raises what neomodel raised, after the block rolled back."""
    where = f"thread {t} unit {i}"
    check = report.differs
    rehire = i % 5 == 4
    deliberate = violates(i)
    mail = email(t, i - 1 if rehire else i)
    with db.transaction:
        company = Company.nodes.get(name=COMPANIES[(t + i) % len(COMPANIES)])
        rows, _ = db.cypher_query(
            "MATCH (c:NmCompany) WHERE elementId(c) = $id SET c.hires = c.hires + 1 RETURN c.hires",
            {"id": company.element_id})
        hires = rows[0][0] if rows else None
        if hires is None:
            check(where, f"the company {company.element_id} was not found by its element id")
        if deliberate:
            Person(email=email(t, 0), name="duplicate").save()  # refused: the thread's first person has it
        before = Person.nodes.get_or_none(email=mail)
        # by email alone: neomodel merges on every required or unique property by default, the fresh uid too
        person = Person.get_or_create({"email": mail, "name": f"person {t}-{i}"}, merge_by={"keys": ["email"]})[0]
        if before is not None and before.element_id != person.element_id:
            check(where, f"get_or_create returned {person.element_id}, not the existing {before.element_id}")
        rel = person.works_at.connect(company, {"since": i, "unit": f"{t}-{i}"})

        found = Person.nodes.get_or_none(email=mail)
        if found is None or found.element_id != person.element_id:
            check(where, f"the person {person.element_id} by email: {found and found.element_id}")
        uid = person.uid
        person.refresh()
        if person.email != mail or person.uid != uid:
            check(where, f"refresh() of {person.element_id}: {person.email} {person.uid}, not {mail} {uid}")
        employers = {c.element_id for c in person.works_at.all()}
        if company.element_id not in employers or len(employers) != (2 if rehire else 1):
            check(where, f"works_at.all() of {person.element_id}: {sorted(employers)}, with {company.element_id}")
        back = person.works_at.relationship(company)
        if back is None or back.element_id != rel.element_id or back.since != i:
            check(where, f"relationship {rel.element_id}: {back and (back.element_id, back.since)}")
        company.refresh()
        if company.hires != hires:
            check(where, f"the company's hires after refresh(): {company.hires}, the increment returned {hires}")
    if deliberate:
        check(where, "the deliberate duplicate was committed")
        with report.lock:
            report.deliberate_committed += 1
    again = Person.nodes.get_or_none(uid=person.uid)  # a new session, after the commit
    if again is None or again.element_id != person.element_id:
        check(where, f"after the commit, the person {person.element_id} by uid: {again and again.element_id}")
    return before is None


def worker(t, report):
    for i in range(UNITS):
        if violates(i):
            with report.lock:
                report.deliberate += 1
        for attempt in range(1, ATTEMPTS + 1):
            try:
                created = unit_of_work(t, i, report)
                with report.lock:
                    report.committed += 1
                    report.persons_created += 1 if created else 0
                break
            except Exception as e:
                if retryable(e) and attempt < ATTEMPTS:  # a deadlock: the unit again, as careful apps do
                    report.retry(e)
                    # after a jittered pause, as the drivers' own retries do: retried at once, a unit on Neo4j's
                    # own server once met 30 deadlocks in a row (its partners retrying in step with it)
                    time.sleep(random.random() * min(0.2, 0.005 * 2 ** min(attempt, 6)))
                else:  # what the application's handler sees
                    report.failed(f"thread {t} unit {i}", e)
                    break


def aggregates():
    def one(cypher):
        return db.cypher_query(cypher)[0][0][0]

    companies = Company.nodes.order_by("name").all()
    return {
        "persons": one("MATCH (n:NmPerson) RETURN count(n)"),
        "distinct_uids": one("MATCH (n:NmPerson) RETURN count(DISTINCT n.uid)"),
        "companies": one("MATCH (n:NmCompany) RETURN count(n)"),
        "works_at": one("MATCH (:NmPerson)-[r:WORKS_AT]->(:NmCompany) RETURN count(r)"),
        "hires": {c.name: c.hires for c in companies},
        "hires_sum": sum(c.hires for c in companies),
        "employments_per_company": {c.name: len(c.employees()) for c in companies},
    }


def main():
    address, user, password = sys.argv[1:4]
    get_config().database_url = f"bolt://{user}:{password}@{address}"
    db.install_all_labels(stdout=sys.stderr)  # its progress is not the document
    constraints = sorted(c["name"] for c in db.list_constraints())
    indexes = sorted(i["name"] for i in db.list_indexes(exclude_token_lookup=True))
    with db.transaction:
        for name in COMPANIES:
            Company(name=name).save()

    report = Report()
    threads = [threading.Thread(target=worker, args=(t, report), name=f"unit-{t}") for t in range(THREADS)]
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.monotonic() - start

    out = {
        "units": THREADS * UNITS,
        "committed": report.committed,
        "errors": report.errors,
        "retried": report.retried,
        "error_samples": report.samples,
        "exceptions": report.exceptions,
        "deliberate": {"tried": report.deliberate, "committed": report.deliberate_committed},
        "inconsistent": report.inconsistent,
        "expected": {"persons": report.persons_created, "distinct_uids": report.persons_created,
                     "companies": len(COMPANIES), "works_at": report.committed, "hires_sum": report.committed},
        "final": aggregates(),
        "constraints": constraints,
        "indexes": indexes,
        "seconds": round(seconds, 3),
    }
    db.close_connection()
    json.dump(out, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

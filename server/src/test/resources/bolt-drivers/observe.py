"""What Neo4j's official Python driver observes of a Bolt server, as one JSON document on stdout.

Usage: python3 observe.py URI USER PASSWORD   (URI: host:port, or bolt://host:port; both schemes are used)
With BOLT_TRACE set, the driver's log of every Bolt message goes to stderr.

Run by io.sluice.bolt.OtherDriversTest against Neo4j's own server and against sluice, whose outputs must be
equal once the fields that legitimately differ are dropped (server agent, addresses, timings). Every section
catches its own failure and records it, so one broken feature shows as one differing section, not a crash.
Labels, relationship types and constraint names start with "Py", so the JavaScript twin can share a database;
they are deleted before and after. Element ids differ from server to server: they are replaced by aliases
(n0, n1, r0 ...) in the order a record shows them.
"""

import concurrent.futures
import hashlib
import json
import math
import os
import sys
import threading

import neo4j
import neo4j.debug
import pytz
from neo4j import GraphDatabase, RoutingControl
from neo4j.exceptions import DriverError, GqlError, Neo4jError
from neo4j.graph import Node, Path, Relationship
from neo4j.spatial import CartesianPoint, Point, WGS84Point
from neo4j.time import Date, DateTime, Duration, Time

PREFIX = "Py"
CLEAN = "MATCH (n) WHERE any(l IN labels(n) WHERE l STARTS WITH 'Py') DETACH DELETE n"
COUNT = "MATCH (n) WHERE any(l IN labels(n) WHERE l STARTS WITH 'Py') RETURN count(n) AS c"
TRACE = None
DRIVER_OPTIONS = {"connection_timeout": 10, "max_transaction_retry_time": 5, "user_agent": "sluice-observe-py"}


def main():
    if os.environ.get("BOLT_TRACE"):
        global TRACE
        TRACE = neo4j.debug.watch("neo4j", out=sys.stderr)
    address, user, password = sys.argv[1], sys.argv[2], sys.argv[3]
    address = address.split("://", 1)[-1]
    auth = (user, password)
    out = {"driver": "python " + neo4j.__version__}
    for scheme in ("bolt", "neo4j"):
        uri = scheme + "://" + address
        out[scheme] = {
            "wrong_password": section(lambda: wrong_credentials(uri, user, password + "-wrong")),
            "unknown_user": section(lambda: wrong_credentials(uri, "nobody-" + user, password)),
        }
        with GraphDatabase.driver(uri, auth=auth, **DRIVER_OPTIONS) as driver:
            if scheme == "bolt":
                out["before"] = section(lambda: before(driver))
            out[scheme].update(basics(driver, scheme))
    with GraphDatabase.driver("neo4j://" + address, auth=auth, **DRIVER_OPTIONS) as driver:
        out["values"] = section(lambda: values(driver))
        out["stored"] = section(lambda: stored(driver))
        out["graph"] = section(lambda: graph(driver))
        out["notifications"] = section(lambda: notifications(driver))
        out["syntax_error"] = section(lambda: syntax_error(driver))
        out["unique"] = section(lambda: unique(driver))
        out["large"] = section(lambda: large(driver))
        out["abandon"] = section(lambda: abandon(driver))
        out["concurrent"] = section(lambda: many_sessions(driver))
        out["after"] = section(lambda: clean(driver))
    json.dump(out, sys.stdout, indent=1, sort_keys=True, ensure_ascii=True)
    sys.stdout.write("\n")


def section(run):
    try:
        return run()
    except Neo4jError as e:
        return {"failed": error(e)}
    except Exception as e:  # noqa: BLE001 - any failure is an observation
        return {"failed": {"python": type(e).__name__, "message": str(e)}}


def error(e):
    """A driver error as the driver shows it; message and description are wording, the rest is protocol."""
    if not isinstance(e, GqlError):
        return {"python": type(e).__name__, "message": str(e)}
    out = {
        "python": type(e).__name__,
        "message": getattr(e, "message", None) or str(e),
        "gql_status": e.gql_status,
        "description": e.gql_status_description,
        "classification": str(e.gql_classification),
        "diagnostic_record": dict(e.diagnostic_record or {}),
    }
    if isinstance(e, Neo4jError):
        out["code"] = e.code
        out["retryable"] = e.is_retryable()
    if isinstance(e.__cause__, GqlError):
        out["cause"] = error(e.__cause__)
    return out


def wrong_credentials(uri, user, password):
    with GraphDatabase.driver(uri, auth=(user, password), **DRIVER_OPTIONS) as driver:
        try:
            driver.verify_connectivity()
            return {"connected": True}
        except (Neo4jError, DriverError) as e:
            return {"connected": False, "error": error(e)}


def before(driver):
    """How many nodes this script's labels have before it starts (should be 0), then a clean slate."""
    left = driver.execute_query(COUNT).records[0]["c"]
    clean(driver)
    return {"nodes": left}


def clean(driver):
    driver.execute_query(CLEAN)
    driver.execute_query("DROP CONSTRAINT PyUnique IF EXISTS")
    return {"left": driver.execute_query(COUNT).records[0]["c"]}


def basics(driver, scheme):
    label = PREFIX + scheme.capitalize()
    out = {"connect": section(lambda: connect(driver))}
    held = {"bookmarks": None}  # each session starts after the one before

    def auto_commit():
        with driver.session() as s:
            r = s.run("CREATE (n:%s {k: 'auto', at: $at}) RETURN n.k AS k" % label, at=1)
            rec = [dict(x) for x in r]
            summary = r.consume()
            held["bookmarks"] = s.last_bookmarks()
            return {"records": enc(rec), "keys": r.keys(), "summary": summ(summary),
                    "bookmarks": len(held["bookmarks"].raw_values)}

    def execute_write():
        def work(tx):
            r = tx.run("CREATE (n:%s {k: 'tx'}) RETURN n.k AS k, 40 + 2 AS answer" % label)
            rec = r.single(strict=True)
            return {"record": enc(dict(rec)), "summary": summ(r.consume())}

        with driver.session(bookmarks=held["bookmarks"]) as s:
            got = s.execute_write(work)
            held["bookmarks"] = s.last_bookmarks()
            got["bookmarks"] = len(held["bookmarks"].raw_values)
            return got

    def read_back():
        with driver.session(bookmarks=held["bookmarks"], default_access_mode=neo4j.READ_ACCESS) as s:
            return s.execute_read(lambda tx: [enc(dict(r)) for r in tx.run(
                "MATCH (n:%s) RETURN n.k AS k ORDER BY k" % label)])

    def execute_query():
        manager = driver.execute_query_bookmark_manager
        w = driver.execute_query("CREATE (n:%s {k: 'eq'}) RETURN n.k AS k" % label, routing_=RoutingControl.WRITE)
        after_write = len(manager.get_bookmarks())
        r = driver.execute_query("MATCH (n:%s) RETURN n.k AS k ORDER BY k" % label, routing_=RoutingControl.READ)
        return {"write": {"records": enc([dict(x) for x in w.records]), "keys": w.keys, "summary": summ(w.summary)},
                "bookmarks_after_write": after_write,
                "read": {"records": enc([dict(x) for x in r.records]), "keys": r.keys, "summary": summ(r.summary)}}

    out["auto_commit"] = section(auto_commit)
    out["execute_write"] = section(execute_write)
    out["read_back"] = section(read_back)
    out["execute_query"] = section(execute_query)
    return out


def connect(driver):
    driver.verify_connectivity()
    info = driver.get_server_info()
    return {"agent": info.agent, "protocol": "%d.%d" % info.protocol_version,
            "address": "%s:%s" % (info.address[0], info.address[1]), "authenticated": driver.verify_authentication()}


def summ(s):
    c = s.counters
    counters = {k: getattr(c, k) for k in (
        "nodes_created", "nodes_deleted", "relationships_created", "relationships_deleted", "properties_set",
        "labels_added", "labels_removed", "indexes_added", "indexes_removed", "constraints_added",
        "constraints_removed", "system_updates", "contains_updates", "contains_system_updates")}
    return {"query_type": s.query_type, "database": s.database, "counters": counters,
            "has_plan": s.plan is not None,
            "gql_status_objects": [status(g) for g in s.gql_status_objects],
            "available_after": s.result_available_after, "consumed_after": s.result_consumed_after}


def status(g):
    return {"gql_status": g.gql_status, "status_description": g.status_description,
            "classification": str(g.classification), "severity": str(g.severity), "notification": g.is_notification,
            "position": None if g.position is None else [g.position.offset, g.position.line, g.position.column]}


# ---- values ----

def sent_values():
    return {
        "int_zero": 0, "int_neg": -1, "int_tiny_min": -16, "int_8": -17, "int_8_max": 127, "int_16": 128,
        "int_16_min": -32768, "int_32": 32768, "int_32_min": -(2 ** 31), "int_64": 2 ** 31,
        "int_max": 2 ** 63 - 1, "int_min": -(2 ** 63),
        "float": 1.5, "float_neg_zero": -0.0, "float_max": 1.7976931348623157e308, "float_tiny": 5e-324,
        "float_nan": float("nan"), "float_inf": float("inf"), "float_ninf": float("-inf"),
        "str": "sluice", "str_empty": "", "str_unicode": "\u017c\u00f3\u0142w \U0001F422 \u0000 end",
        "str_16": "y" * 300, "str_32": "x" * 70000,
        "bool_true": True, "bool_false": False, "null": None,
        "list": [1, "two", 3.0, None, [True, []], {"k": "v"}], "list_empty": [], "list_16": list(range(300)),
        "map": {"a": 1, "b": {"c": [1, 2]}, "": "empty key"}, "map_empty": {},
        "map_16": {"k%03d" % i: i for i in range(20)},
        "bytes": bytes(range(256)), "bytes_empty": b"", "bytes_16": bytes(300),
        "date": Date(2024, 2, 29), "date_julian": Date(1582, 10, 4), "date_far": Date(9999, 12, 31),
        "time": Time(12, 34, 56, 123456789, tzinfo=pytz.FixedOffset(60)),
        "time_negative_offset": Time(0, 0, 0, 0, tzinfo=pytz.FixedOffset(-690)),
        "localtime": Time(23, 59, 59, 999999999), "localtime_midnight": Time(0, 0, 0),
        "datetime_offset": DateTime(2024, 2, 29, 12, 34, 56, 123456789, tzinfo=pytz.FixedOffset(-330)),
        "datetime_utc": DateTime(1970, 1, 1, 0, 0, 0, 0, tzinfo=pytz.utc),
        "datetime_zone": pytz.timezone("Europe/Stockholm").localize(DateTime(2024, 7, 1, 12, 0, 0, 1)),
        "datetime_zone_dst_end": pytz.timezone("Europe/Stockholm").localize(DateTime(2024, 10, 27, 2, 30, 0),
                                                                            is_dst=False),
        "datetime_zone_before_1970": pytz.timezone("America/New_York").localize(DateTime(1900, 1, 1, 0, 0, 0)),
        "localdatetime": DateTime(2024, 2, 29, 12, 34, 56, 789),
        "duration": Duration(years=1, months=2, days=3, hours=4, minutes=5, seconds=6, nanoseconds=7),
        "duration_negative": Duration(days=-1, seconds=-1, nanoseconds=-1),
        "duration_zero": Duration(),
        "point_2d": CartesianPoint((1.5, -2.25)), "point_3d": CartesianPoint((1.0, 2.0, 3.0)),
        "wgs84_2d": WGS84Point((12.97, 55.6)), "wgs84_3d": WGS84Point((12.97, 55.6, 30.0)),
    }


def values(driver):
    """Each value as a parameter on its own and inside one map, echoed back, with the type Cypher saw."""
    sent = sent_values()
    names = sorted(sent)
    with driver.session() as s:
        rec = s.run("RETURN " + ", ".join("$%s AS %s" % (k, k) for k in names), **sent).single(strict=True)
        echoed = {k: enc(rec[k]) for k in names}
        rec = s.run("RETURN $all AS all, [k IN keys($all) | [k, valueType($all[k])]] AS types", all=sent).single()
        in_map = {k: enc(v) for k, v in rec["all"].items()}
        types = {k: t for k, t in rec["types"]}
    out = {}
    for k in names:
        expected = enc(sent[k])
        out[k] = {"sent": expected, "type": types.get(k),
                  "echoed": "same" if echoed[k] == expected else echoed[k],
                  "in_map": "same" if in_map.get(k) == expected else in_map.get(k)}
    return out


def stored(driver):
    """Values that can be properties, written to a node and read back by another transaction."""
    sent = {k: v for k, v in sent_values().items()
            if v is not None and not isinstance(v, dict) and k not in ("list", "list_empty")}
    with driver.session() as s:
        created = s.run("CREATE (n:PyValues) SET n = $props RETURN n", props=sent)
        created.consume()
        back = s.execute_read(lambda tx: tx.run("MATCH (n:PyValues) RETURN n").single(strict=True)["n"])
    props = dict(back.items())
    return {"labels": sorted(back.labels),
            "differs": {k: enc(props.get(k)) for k in sorted(sent) if enc(props.get(k)) != enc(sent[k])},
            "count": len(props)}


def graph(driver):
    with driver.session() as s:
        create = s.run(
            "CREATE p = (a:PyA:PyB {name: 'a', n: 1})-[r:PY_T {w: 0.5}]->(b:PyC {name: 'b'})"
            "<-[u:PY_U]-(c:PyA {name: 'c'}) "
            "RETURN a, r, b, p, [elementId(a), elementId(r)] AS ids")
        rec = create.single(strict=True)
        ids_match = rec["ids"] == [rec["a"].element_id, rec["r"].element_id]
        created = enc_record(rec, ("a", "r", "b", "p"))
        counters = summ(create.consume())["counters"]
        # the same path read the other way round: its relationships point against the walk
        back = s.run("MATCH p = (c:PyA {name: 'c'})-[:PY_U]->(:PyC)<-[:PY_T]-(:PyA {name: 'a'}) "
                     "RETURN p, nodes(p) AS ns, relationships(p) AS rs, length(p) AS len").single(strict=True)
        reverse = enc_record(back, ("p", "ns", "rs", "len"))
        alone = s.run("MATCH (c:PyA {name: 'c'}) RETURN c, [(c)-[x]->() | x] AS out").single(strict=True)
    return {"created": created, "counters": counters, "element_ids_match_cypher": ids_match,
            "reverse": reverse, "alone": enc_record(alone, ("c", "out"))}


def notifications(driver):
    with driver.session() as s:
        r = s.run("EXPLAIN MATCH (a:PyX), (b:PyY) RETURN a, b")
        records = len(list(r))
        summary = r.consume()
        return {"records": records, "summary": summ(summary),
                "plan_root": (summary.plan or {}).get("operatorType", "").split("@")[0]}


def syntax_error(driver):
    out = {}
    with driver.session() as s:
        try:
            s.run("CREAT (n:PyBroken)").consume()
            out["error"] = None
        except Neo4jError as e:
            out["error"] = error(e)
        out["then"] = s.run("RETURN 1 AS one").single()["one"]
    try:
        driver.execute_query("RETURN $missing AS m")
        out["missing_parameter"] = None
    except Neo4jError as e:
        out["missing_parameter"] = error(e)
    try:
        driver.execute_query("RETURN 1 / $zero AS z", zero=0)
        out["division_by_zero"] = None
    except Neo4jError as e:
        out["division_by_zero"] = error(e)
    return out


def unique(driver):
    out = {}
    created = driver.execute_query("CREATE CONSTRAINT PyUnique IF NOT EXISTS FOR (n:PyUnique) REQUIRE n.k IS UNIQUE")
    out["constraint"] = summ(created.summary)["counters"]
    out["first"] = summ(driver.execute_query("CREATE (:PyUnique {k: 1})").summary)["counters"]
    try:
        driver.execute_query("CREATE (:PyUnique {k: 1})")
        out["second"] = None
    except Neo4jError as e:
        out["second"] = error(e)

    def in_tx(tx):
        tx.run("CREATE (:PyUnique {k: 2})").consume()
        tx.run("CREATE (:PyUnique {k: 2})").consume()

    with driver.session() as s:
        try:
            s.execute_write(in_tx)
            out["in_transaction"] = None
        except Neo4jError as e:
            out["in_transaction"] = error(e)
    out["left"] = driver.execute_query("MATCH (n:PyUnique) RETURN collect(n.k) AS ks").records[0]["ks"]
    driver.execute_query("DROP CONSTRAINT PyUnique")
    return out


def large(driver):
    with driver.session(fetch_size=100) as s:
        r = s.run("UNWIND range(1, 5000) AS i RETURN i, 'row ' + i AS s")
        n, total, first, last = 0, 0, None, None
        for rec in r:
            n += 1
            total += rec["i"]
            first = first or [rec["i"], rec["s"]]
            last = [rec["i"], rec["s"]]
        return {"rows": n, "sum": total, "first": first, "last": last, "summary": summ(r.consume())}


def abandon(driver):
    out = {}
    s = driver.session(fetch_size=10)
    r = s.run("UNWIND range(1, 1000) AS i RETURN i")
    it = iter(r)
    out["auto_commit_read"] = [next(it)["i"] for _ in range(15)]
    s.close()
    with driver.session(fetch_size=10) as s:
        # a second query in the session while the first still streams: the driver buffers the first
        first = s.run("UNWIND range(1, 100) AS i RETURN i")
        head = [rec["i"] for _, rec in zip(range(5), first)]
        second = s.run("RETURN 'second' AS x").single()["x"]
        rest = [rec["i"] for rec in first]
        out["interleaved"] = {"head": head, "second": second, "rest": len(rest), "rest_sum": sum(rest)}
    with driver.session(fetch_size=10) as s:
        tx = s.begin_transaction()
        tx.run("CREATE (:PyAbandoned)").consume()
        r = tx.run("UNWIND range(1, 1000) AS i RETURN i")
        out["transaction_read"] = [rec["i"] for _, rec in zip(range(12), r)]
        # the session closes with the transaction open and its result half read: rolled back
    out["after"] = driver.execute_query("MATCH (n:PyAbandoned) RETURN count(n) AS c").records[0]["c"]
    with driver.session(fetch_size=10) as s:
        tx = s.begin_transaction()
        r = tx.run("UNWIND range(1, 1000) AS i RETURN i")
        [next(iter(r)) for _ in range(3)]
        tx.rollback()
        out["same_session_after_rollback"] = s.run("RETURN 7 AS x").single()["x"]
    return out


def many_sessions(driver):
    workers = 32

    def write(i):
        with driver.session() as s:
            return s.execute_write(lambda tx: tx.run(
                "CREATE (n:PyConcurrent {i: $i}) RETURN n.i AS i", i=i).single(strict=True)["i"])

    barrier = threading.Barrier(8)

    def gated(i):
        if i < 8:
            barrier.wait(timeout=10)
        return write(i)

    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(gated, range(workers)))
    count = driver.execute_query("MATCH (n:PyConcurrent) RETURN count(n) AS c, sum(n.i) AS s").records[0]
    return {"results": sorted(results) == list(range(workers)), "count": count["c"], "sum": count["s"]}


# ---- encoding of what the driver returned ----

def enc_record(rec, keys):
    aliases = {}
    return {k: enc(rec[k], aliases) for k in keys}


def alias(aliases, element_id, kind):
    if element_id not in aliases:
        aliases[element_id] = "%s%d" % (kind, sum(1 for v in aliases.values() if v.startswith(kind)))
    return aliases[element_id]


def enc(v, aliases=None):
    """A value as tagged JSON, exactly: ints as text, floats by repr, temporal values with every field."""
    if aliases is None:
        aliases = {}
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, float):
        return ["float", "nan" if math.isnan(v) else repr(v)]
    if isinstance(v, str):
        if len(v) > 64:
            return ["str", len(v), hashlib.sha256(v.encode("utf-8")).hexdigest()]
        return ["str", v]
    if isinstance(v, (bytes, bytearray)):
        return ["bytes", len(v), hashlib.sha256(bytes(v)).hexdigest()]
    if isinstance(v, Node):
        return ["node", alias(aliases, v.element_id, "n"), sorted(v.labels), enc(dict(v.items()), aliases)]
    if isinstance(v, Relationship):
        return ["relationship", alias(aliases, v.element_id, "r"), v.type, enc(dict(v.items()), aliases),
                alias(aliases, v.start_node.element_id, "n"), alias(aliases, v.end_node.element_id, "n")]
    if isinstance(v, Path):
        return ["path", [enc(n, aliases) for n in v.nodes], [enc(r, aliases) for r in v.relationships]]
    if isinstance(v, Point):
        return ["point", v.srid, [repr(float(c)) for c in v]]
    if isinstance(v, Duration):
        return ["duration", v.months, v.days, v.seconds, v.nanoseconds]
    if isinstance(v, DateTime):
        tz = v.tzinfo
        if tz is None:
            return ["localdatetime", v.iso_format()]
        zone = getattr(tz, "zone", None) or getattr(tz, "key", None)
        if zone is not None:
            return ["datetime_zone", v.iso_format(), zone, int(v.utcoffset().total_seconds())]
        return ["datetime", v.iso_format(), int(v.utcoffset().total_seconds())]
    if isinstance(v, Date):
        return ["date", v.iso_format()]
    if isinstance(v, Time):
        if v.tzinfo is None:
            return ["localtime", v.iso_format()]
        return ["time", v.iso_format(), int(v.utcoffset().total_seconds())]
    if isinstance(v, (list, tuple)):
        items = [enc(x, aliases) for x in v]
        if len(items) > 32:
            text = json.dumps(items, separators=(",", ":"), ensure_ascii=False)
            return ["list", len(items), hashlib.sha256(text.encode("utf-8")).hexdigest()]
        return ["list", items]
    if isinstance(v, dict):
        return ["map", {k: enc(x, aliases) for k, x in v.items()}]
    return ["unknown", type(v).__name__, repr(v)]


if __name__ == "__main__":
    main()

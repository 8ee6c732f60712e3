"""The Neo4j Spark connector writing nodes, then relationships into shared nodes: one JSON document on stdout.

Usage: python3 connector_job.py [options] HOST:PORT USER PASSWORD   (options: --help)

The shape of neo4j-spark-connector issue #183: PySpark in local mode writes --themes :Theme nodes and --events
:Event nodes (SaveMode.Overwrite with node.keys, each from --partitions partitions), then --per-event
(:Event)-[:THEME]->(:Theme) relationships per event, a few thousand themes shared by all of them
(relationship.save.strategy keys, source and target matched by key, SaveMode.Overwrite: MERGE), from
--relationship-partitions partitions (6, or 1: the workaround Neo4j's docs give against deadlocks). The connector
writes each partition's rows in transactions of batch.size rows (BEGIN, one UNWIND, COMMIT) and retries a transient
error transaction.retries times (its default 3) per task; in local mode a task that still fails fails the job.
Every option is the connector's documented one, unchanged whatever the server.

Reported, per phase: rows, whether the write succeeded, Spark's failed tasks, the error that failed it, the
connector's own retries (its log line "Matched Neo4j transient exception"), the FAILURE messages the server sent (by
Neo4j code, from the Java driver's debug log), seconds; then the graph read back through the connector (counts,
duplicates, a checksum of every (event, theme) pair) beside what the rows say it must be.

Run by io.sluice.bolt.SparkConnectorTest against Neo4j's own server and against sluice.
"""

import argparse
import collections
import json
import os
import re
import sys
import time

FORMAT = "org.neo4j.spark.DataSource"
RETRY = re.compile(r"Matched Neo4j transient exception")
FAILURE = re.compile(r'S: FAILURE (\S+) "')


def arguments():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--jar", required=True, help="the connector's jar")
    p.add_argument("--work", required=True, help="a directory for Spark's files and the logs")
    p.add_argument("--themes", type=int, default=2000)
    p.add_argument("--events", type=int, default=24000)
    p.add_argument("--per-event", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=1000)
    p.add_argument("--partitions", type=int, default=6)
    p.add_argument("--relationship-partitions", type=int, default=6)
    p.add_argument("--master", default="local[6]")
    p.add_argument("address")
    p.add_argument("user")
    p.add_argument("password")
    return p.parse_args()


def log4j(work):
    """Spark's log4j2 configuration: warnings on stderr; the connector's writer and the driver's answers to a file."""
    log = os.path.join(work, "connector.log")
    conf = os.path.join(work, "log4j2.properties")
    with open(conf, "w") as f:
        f.write("\n".join([
            "rootLogger.level = warn",
            "rootLogger.appenderRef.console.ref = console",
            "appender.console.type = Console",
            "appender.console.name = console",
            "appender.console.target = SYSTEM_ERR",
            "appender.console.layout.type = PatternLayout",
            "appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex{5}",
            "appender.file.type = File",
            "appender.file.name = file",
            "appender.file.fileName = " + log,
            "appender.file.append = false",
            "appender.file.layout.type = PatternLayout",
            "appender.file.layout.pattern = %d{HH:mm:ss.SSS} %p %c{1}: %m%n%ex{3}",
            "logger.writer.name = org.neo4j.spark.writer",
            "logger.writer.level = info",
            "logger.writer.appenderRef.file.ref = file",
            # the server's FAILURE messages, with their codes (the connector logs none of them when it retries)
            "logger.inbound.name = org.neo4j.driver.internal.async.inbound.InboundMessageDispatcher",
            "logger.inbound.level = debug",
            "logger.inbound.additivity = false",
            "logger.inbound.appenderRef.file.ref = file",
            "",
        ]))
    return conf, log


def log_since(log, offset):
    """The connector's retries and the server's failures by code logged after offset; the new offset."""
    if not os.path.exists(log):
        return 0, {}, offset
    with open(log, encoding="utf-8", errors="replace") as f:
        f.seek(offset)
        text = f.read()
        end = f.tell()
    return len(RETRY.findall(text)), dict(collections.Counter(FAILURE.findall(text))), end


def failed_tasks(sc, group):
    tracker = sc.statusTracker()
    failed = 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in (info.stageIds if info else []):
            s = tracker.getStageInfo(stage)
            failed += s.numFailedTasks if s else 0
    return failed


def first_line(e):
    text = str(getattr(e, "java_exception", None) or e)
    return text.strip().splitlines()[0][:600] if text.strip() else type(e).__name__


def main():
    a = arguments()
    os.makedirs(a.work, exist_ok=True)
    conf, log = log4j(a.work)

    from pyspark.sql import SparkSession, functions as F

    spark = (SparkSession.builder.master(a.master).appName("sluice-spark-connector")
             .config("spark.jars", a.jar)
             .config("spark.driver.extraJavaOptions", "-Dlog4j2.configurationFile=file:" + conf)
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.local.dir", os.path.join(a.work, "tmp"))
             .config("spark.sql.warehouse.dir", os.path.join(a.work, "warehouse"))
             .config("spark.sql.shuffle.partitions", str(a.partitions))
             .getOrCreate())
    sc = spark.sparkContext
    connection = {"url": "bolt://" + a.address, "authentication.type": "basic",
                  "authentication.basic.username": a.user, "authentication.basic.password": a.password}

    t, e, k = a.themes, a.events, a.per_event
    themes = spark.range(t).select("id", F.concat(F.lit("theme-"), F.col("id")).alias("name"))
    events = spark.range(e).select("id", F.concat(F.lit("event-"), F.col("id")).alias("name"))
    # k distinct themes per event, spread pseudo-randomly over all of them
    theme_of = "pmod((id div {k}) * 7919 + (id % {k}) * {step}, {t})".format(k=k, step=t // k, t=t)
    relationships = spark.range(e * k).select(F.expr("id div {}".format(k)).alias("event_id"),
                                              F.expr(theme_of).alias("theme_id"),
                                              F.expr("id % {}".format(k)).alias("weight"))
    expected_pairs = [(i // k, (i // k * 7919 + (i % k) * (t // k)) % t) for i in range(e * k)]

    def nodes(df, label):
        return (df.repartition(a.partitions).write.format(FORMAT).mode("Overwrite").options(**connection)
                .option("labels", ":" + label).option("node.keys", "id").option("batch.size", a.batch_size))

    writes = [
        ("themes", t, nodes(themes, "Theme")),
        ("events", e, nodes(events, "Event")),
        ("relationships", e * k, relationships.repartition(a.relationship_partitions).write.format(FORMAT)
         .mode("Overwrite").options(**connection)
         .option("relationship", "THEME")
         .option("relationship.save.strategy", "keys")
         .option("relationship.source.labels", ":Event")
         .option("relationship.source.save.mode", "Match")
         .option("relationship.source.node.keys", "event_id:id")
         .option("relationship.target.labels", ":Theme")
         .option("relationship.target.save.mode", "Match")
         .option("relationship.target.node.keys", "theme_id:id")
         .option("relationship.properties", "weight")
         .option("batch.size", a.batch_size)),
    ]

    report = {"connector": os.path.basename(a.jar), "spark": spark.version, "master": a.master,
              "partitions": {"nodes": a.partitions, "relationships": a.relationship_partitions},
              "batch_size": a.batch_size, "phases": {}}
    offset = 0
    started = time.monotonic()
    for name, rows, writer in writes:
        sc.setJobGroup(name, "write " + name)
        began = time.monotonic()
        error = None
        try:
            writer.save()
        except Exception as x:  # a failed job: Py4JJavaError, its cause the task's
            error = first_line(x)
        seconds = time.monotonic() - began
        retries, failures, offset = log_since(log, offset)
        report["phases"][name] = {"rows": rows, "ok": error is None, "error": error,
                                  "failed_tasks": failed_tasks(sc, name), "retries": retries,
                                  "failures": failures, "seconds": round(seconds, 3)}
    writes_seconds = time.monotonic() - started

    phases = report["phases"].values()
    report["failed_tasks"] = sum(p["failed_tasks"] for p in phases)
    report["retries"] = sum(p["retries"] for p in phases)
    totals = collections.Counter()
    for p in phases:
        totals.update(p["failures"])
    report["failures"] = dict(totals)
    report["seconds"] = {"writes": round(writes_seconds, 3),
                         "relationships": report["phases"]["relationships"]["seconds"]}
    report["relationships_per_second"] = round(e * k / report["phases"]["relationships"]["seconds"], 1)

    sc.setJobGroup("read", "read back")
    counts = """
        CALL () { MATCH (e:Event) RETURN count(e) AS events }
        CALL () { MATCH (t:Theme) RETURN count(t) AS themes }
        CALL () { MATCH (:Event)-[r:THEME]->(:Theme) RETURN count(r) AS relationships,
                 coalesce(sum(toInteger(r.weight)), 0) AS weights }
        CALL () { MATCH (a:Event)-[:THEME]->(b:Theme) WITH a, b, count(*) AS n WHERE n > 1
               RETURN count(*) AS duplicated }
        CALL () { MATCH (a:Event)-[:THEME]->(b:Theme) RETURN coalesce(sum(a.id * %(t)d + b.id), 0) AS checksum }
        CALL () { MATCH (a:Event) WHERE COUNT { (a)-[:THEME]->(:Theme) } <> %(k)d RETURN count(a) AS incomplete }
        RETURN events, themes, relationships, weights, duplicated, checksum, incomplete
        """ % {"t": t, "k": k}
    try:
        row = (spark.read.format(FORMAT).options(**connection).option("query", counts).load()
               .collect()[0].asDict())
        report["graph"] = {key: int(value) for key, value in row.items()}
    except Exception as x:
        report["graph"] = {"failed": first_line(x)}
    report["expected"] = {"events": e, "themes": t, "relationships": e * k,
                          "weights": sum(i % k for i in range(e * k)), "duplicated": 0,
                          "checksum": sum(ev * t + th for ev, th in expected_pairs), "incomplete": 0}
    _, read_failures, _ = log_since(log, offset)
    report["read_failures"] = read_failures
    spark.stop()
    print(json.dumps(report, sort_keys=True))


if __name__ == "__main__":
    sys.exit(main())

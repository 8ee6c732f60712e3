#!/usr/bin/env python3
"""Runs testkit's tests/neo4j one test at a time against a running server, without Docker (io.sluice.bolt.TestkitTest).

Starts the Python driver's testkit backend itself (its testkitbackend package, on 127.0.0.1:PORT) and
restarts it after every failed or errored test (a test cut at nutkit's 10 s reply bound can leave the backend
stuck in a driver call, which then fails every later test in setUp).

The TEST_NEO4J_* / TEST_DRIVER_NAME variables must already be in the environment (TestkitTest sets them).
Writes results.json, failures.txt and backend.log into --out.
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import traceback
import unittest

# `python -m testkitbackend` (testkitbackend/__main__.py sync_main) binds 0.0.0.0:9876, hard-coded; this is the same
# loop bound to loopback on a port of our choice.
BACKEND_MAIN = """
import sys, warnings
warnings.simplefilter("error")
from testkitbackend.server import Server
server = Server(("127.0.0.1", int(sys.argv[1])))
print("Start serving", flush=True)
while True:
    server.handle_request()
"""


class BackendProcess:
    def __init__(self, python, driver_dir, port, log_path, cmd=None):
        self.python = python
        self.cmd = cmd
        self.driver_dir = driver_dir
        self.port = port
        self.log_path = log_path
        self.proc = None
        self.starts = 0

    def start(self):
        log = open(self.log_path, "a")
        log.write(f"==== backend start #{self.starts + 1} {time.strftime('%H:%M:%S')}\n")
        log.flush()
        if self.cmd:  # another driver's backend (must listen on self.port); exec: the shell becomes the backend,
            # so that stop() waits for the backend itself, not for a shell whose child still holds the port
            argv = ["/bin/sh", "-c", "exec " + self.cmd]
        else:  # -u -W error: as the Python driver's own testkit/backend.py runs it
            argv = [self.python, "-u", "-W", "error", "-c", BACKEND_MAIN, str(self.port)]
        # own process group, so that stop() ends the backend and any children it has
        self.proc = subprocess.Popen(argv, cwd=self.driver_dir, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        log.close()
        self.starts += 1
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"backend exited with {self.proc.returncode}; see {self.log_path}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    pass
                # the probe connection is served as an (empty) session; let it finish
                time.sleep(0.2)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"backend not listening on 127.0.0.1:{self.port} after 30 s")

    def stop(self):
        if self.proc:
            for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        self.proc = None
        # a process the backend started may outlive it a moment: the next backend must not find the port taken,
        # nor its probe reach the old one
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    pass
                time.sleep(0.1)
            except OSError:
                return
        print(f"WARNING: 127.0.0.1:{self.port} still answers 10 s after the backend was stopped", flush=True)

    def restart(self):
        self.stop()
        self.start()


def iter_tests(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from iter_tests(t)
        else:
            yield t


def short_reason(text, limit=300):
    """The exception line of a traceback (its first line, for multi-line assertion messages)."""
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception|Failure|Exit)\b", ln):
            return ln[:limit]
    return (lines[-1] if lines else "")[:limit]


def run_one(test):
    """Runs one test method; returns its record (status PASS, FAIL, ERROR or SKIP) and prints a line."""
    tid = re.sub(r"^tests\.", "", test.id())
    res = unittest.TestResult()
    t0 = time.monotonic()
    try:
        test(res)
    except KeyboardInterrupt:
        raise
    except Exception:  # should not happen: unittest catches inside
        res.errors.append((test, traceback.format_exc()))
    dt = time.monotonic() - t0
    skips = list(res.skipped)
    whole_skip = [r for tc, r in skips if tc is test]  # else a subtest's
    if res.errors:
        status = "ERROR"
    elif res.failures:
        status = "FAIL"
    elif whole_skip:
        status = "SKIP"
    else:
        status = "PASS"
    detail = ""
    if status in ("FAIL", "ERROR"):
        detail = short_reason((res.errors or res.failures)[0][1])
    elif status == "SKIP":
        detail = whole_skip[0]
    elif skips:
        detail = f"{len(skips)} subtest(s) skipped"
    print(f"{status:5} {dt:6.2f}s {tid}  {detail}", flush=True)
    return {"id": tid, "status": status, "seconds": round(dt, 2), "detail": detail,
            "tracebacks": [tb for _, tb in res.errors + res.failures],
            "subtest_skips": [f"{tc}: {r}" for tc, r in skips if tc is not test]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--testkit", required=True, help="testkit tree (cwd and top-level dir for discovery)")
    ap.add_argument("--driver", required=True, help="the folder holding testkitbackend/")
    ap.add_argument("--python", default=sys.executable, help="python of the venv with the driver installed")
    ap.add_argument("--backend-port", type=int, default=9876)
    ap.add_argument("--pattern", default=None, help="regex on test ids (e.g. test_summary|test_bookmarks)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-restart", action="store_true", help="keep one backend for the whole run")
    ap.add_argument("--backend-cmd", default=None,
                    help="shell command starting another driver's backend in --driver (default: the Python one)")
    args = ap.parse_args()
    # SIGTERM (e.g. from timeout) -> KeyboardInterrupt, which unittest lets through (SystemExit it would record
    # as a test error): the run stops, the backend is stopped in the finally below, the partial results written
    def on_term(*_):
        raise KeyboardInterrupt("SIGTERM")
    signal.signal(signal.SIGTERM, on_term)

    os.makedirs(args.out, exist_ok=True)
    os.environ.setdefault("TEST_DRIVER_NAME", "python")
    os.environ["TEST_BACKEND_HOST"] = "127.0.0.1"
    os.environ["TEST_BACKEND_PORT"] = str(args.backend_port)
    testkit = os.path.abspath(args.testkit)
    os.chdir(testkit)
    sys.path.insert(0, testkit)

    suite = unittest.TestLoader().discover("tests.neo4j", top_level_dir=testkit)
    tests = list(iter_tests(suite))
    for t in tests:  # import errors surface as _FailedTest
        if type(t).__name__ in ("_FailedTest", "ModuleImportFailure"):
            print("LOAD ERROR", t.id(), getattr(t, "_exception", ""))
    if args.pattern:
        tests = [t for t in tests if re.search(args.pattern, t.id())]
    print(f"{len(tests)} tests; backend on 127.0.0.1:{args.backend_port}", flush=True)

    backend = BackendProcess(args.python, os.path.abspath(args.driver), args.backend_port,
                             os.path.join(args.out, "backend.log"), args.backend_cmd)
    backend.start()
    results = []
    interrupted = False
    t_start = time.monotonic()
    try:
        for test in tests:
            results.append(run_one(test))
            if results[-1]["status"] in ("FAIL", "ERROR") and not args.no_restart:
                backend.restart()
    except KeyboardInterrupt:
        interrupted = True
        print("INTERRUPTED (SIGTERM or Ctrl-C): partial results", flush=True)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        backend.stop()

    total = time.monotonic() - t_start
    counts = {s: sum(1 for r in results if r["status"] == s) for s in ("PASS", "FAIL", "ERROR", "SKIP")}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"counts": counts, "seconds": round(total, 1), "backend_starts": backend.starts,
                   "interrupted": interrupted, "tests_total": len(tests),
                   "env": {k: v for k, v in os.environ.items()
                           if k.startswith("TEST_") and k != "TEST_NEO4J_PASS"},
                   "results": results}, f, indent=1)
    with open(os.path.join(args.out, "failures.txt"), "w") as f:
        for r in results:
            if r["status"] in ("FAIL", "ERROR"):
                f.write(f"==== {r['status']} {r['id']}\n")
                for tb in r["tracebacks"]:
                    f.write(tb + "\n")
    print()
    print("SUMMARY{}: {} tests, {} passed, {} failed, {} errors, {} skipped in {:.0f}s (backend started {}x)".format(
        " (INTERRUPTED, {} of {} run)".format(len(results), len(tests)) if interrupted else "",
        len(results), counts["PASS"], counts["FAIL"], counts["ERROR"], counts["SKIP"], total, backend.starts))
    for r in results:
        if r["status"] in ("FAIL", "ERROR"):
            print(f"  {r['status']} {r['id']}: {r['detail']}")
    print(f"details: {args.out}/results.json, {args.out}/failures.txt, {args.out}/backend.log")
    if interrupted:
        return 124
    return 0 if counts["FAIL"] == 0 and counts["ERROR"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

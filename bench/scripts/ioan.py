#!/usr/bin/env python3
# ioan.py RUNDIR...: per run, over the measured 20 s (ending at the last "sluice stopping"): writes/s, and per write the
# server's and the load process's read/write syscalls and CPU (us), and the machine's steal (s)
import sys, re, datetime, collections
for d in sys.argv[1:]:
    stop = None
    for line in open(f'{d}/bolt.err'):
        m = re.match(r'(\d\d):(\d\d):(\d\d)\.(\d+) INFO .*sluice stopping', line)
        if m: stop = m.groups()
    rows = [l.split() for l in open(f'{d}/io.txt')]
    day = datetime.datetime.fromtimestamp(float(rows[0][0]), datetime.timezone.utc)
    t_end = day.replace(hour=int(stop[0]), minute=int(stop[1]), second=int(stop[2])).timestamp() - 1
    t_start = t_end - 18
    first = {}
    by = collections.defaultdict(list)
    for r in rows:
        t = float(r[0]); p = r[1]
        first.setdefault(p, t)
        by[p].append((t, [int(x) for x in r[2:]]))
    out = [l for l in open(f'{d}/bolt.out') if l.startswith('bolt-execute-write')][0].split()
    writes_s = float(out[7])
    res = {}
    for p in sorted(by, key=lambda p: first[p]):
        s = by[p]
        a = min(s, key=lambda x: abs(x[0] - t_start)); b = min(s, key=lambda x: abs(x[0] - t_end))
        if b[0] - a[0] < 10: continue
        dt = b[0] - a[0]; w = writes_s * dt
        dv = [y - x for x, y in zip(a[1], b[1])]
        res[p] = dict(syscr=dv[0] / w, syscw=dv[1] / w, rbytes=dv[2] / w, wbytes=dv[3] / w, cpu=(dv[4] + dv[5]) * 1e4 / w, steal=dv[6] / 100 / dt)
    names = ['server', 'load']
    line = f'{d.split("/")[-1]:4s} {writes_s:7.0f} w/s'
    for n, p in zip(names, list(res)[:2]):
        r = res[p]
        line += f' | {n}: rd {r["syscr"]:.2f} wr {r["syscw"]:.2f} rB {r["rbytes"]:.0f} wB {r["wbytes"]:.0f} cpu {r["cpu"]:.0f}us'
    line += f' | steal {r["steal"]:.2f}/s'
    print(line)

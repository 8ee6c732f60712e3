#!/usr/bin/env python3
# iosample.py OUT: every 2 s, per java process: epoch pid syscr syscw rchar wchar utime stime (ticks), and /proc/stat steal
import os, sys, time
out = open(sys.argv[1], 'a')
while True:
    now = time.time()
    steal = open('/proc/stat').readline().split()[8]
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try:
            if open(f'/proc/{p}/comm').read().strip() != 'java': continue
            io = dict(l.split(': ') for l in open(f'/proc/{p}/io').read().split('\n') if l)
            st = open(f'/proc/{p}/stat').read(); rest = st[st.rindex(')')+2:].split()
            out.write(f"{now:.1f} {p} {io['syscr']} {io['syscw']} {io['rchar']} {io['wchar']} {rest[11]} {rest[12]} {steal}\n")
        except (OSError, KeyError, ValueError): continue
    out.flush()
    time.sleep(2)

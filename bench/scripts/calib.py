#!/usr/bin/env python3
# calib.py OUT: every 2 s, the CPU time (not wall) a fixed piece of pure-Python work takes: the machine's speed per
# unit of work (frequency, a busy sibling hyperthread, the host), at ~1% duty; lines "epoch seconds cpu_ms"
import sys, time
out = open(sys.argv[1], 'a', buffering=1)
def work():
    s = 0
    for i in range(60000):
        s += i * i % 7
    return s
while True:
    t0 = time.process_time(); work(); t1 = time.process_time()
    out.write(f"{time.time():.1f} {(t1 - t0) * 1000:.2f}\n")
    time.sleep(2)

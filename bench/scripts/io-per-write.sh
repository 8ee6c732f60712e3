#!/usr/bin/env bash
# io-per-write.sh TAG:TREE...: the grouped executeWrite bench of each sluice tree in turn (alone on the machine), with
# each java process's read/write syscalls, bytes and CPU sampled from /proc every 2 s (iosample.py); then, per run,
# over the measured 20 s: writes/s and, per write, the server's and the load process's syscalls, bytes and CPU
# (ioan.py). Syscalls and bytes per write count the work done per write whatever the machine's speed that minute.
# Example (issue 34): bench/scripts/io-per-write.sh A1:/work/before C1:/work/main A2:/work/before C2:/work/main
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out=${OUT:-/tmp/io-per-write}
for run in "$@"; do
  tag=${run%%:*}; tree=${run#*:}; d=$out/$tag; mkdir -p "$d"
  python3 "$here/iosample.py" "$d/io.txt" & sampler=$!
  (cd "$tree" && ./sluice bench visited --api bolt --bolt-styles execute-write --modes sync \
    --config bench/grouped/sluice.yaml --load-process --prime 60 --warmup 10 --duration 20 --rounds 1 \
    --out "$d/bolt.json" > "$d/bolt.out" 2> "$d/bolt.err")
  kill $sampler
done
dirs=()
for run in "$@"; do dirs+=("$out/${run%%:*}"); done
python3 "$here/ioan.py" "${dirs[@]}"

#!/usr/bin/env bash
# Warm-up's effect on the first minute, for docs/BENCHMARKS.md ("Warm-up: the first minute"): a visited graph
# larger than Neo4j's page cache, built once (generated CSV, ./sluice import --into, started once so that the
# constraints' indexes are online, stopped cleanly) and kept as a template; then per run: a fresh copy, the OS page
# cache dropped (the store cold on disk, as after a reboot), ./sluice serve with warmup.on_start off or on, /health
# polled until 200 (time to UP, as a load balancer sees it), then closed-loop sync writes of the visited template
# over existing users (load.js): the first SECS as a whole and per 10 s, then a steady-state minute on the same server.
# usage (as root): bench/warmup/run.sh [off|on|off-hot|on-hot ...]   (default order: off on on off, ABBA)
#   -hot: the OS page cache is not dropped (the fresh copy is in it), as after a restart without a reboot
#   bench/warmup/run.sh --table FILE...   prints the table of earlier results (W/results-*.jsonl)
# env: W (work dir, /tmp/sluice-warmup), USERS (2000000), SITES (1000), PAGECACHE (64m), CLIENTS (64), SECS (60),
#      REF (60), REBUILD=1 (build the template again). Needs root for /proc/sys/vm/drop_caches.
#      READ_IOPS, READ_BPS: run each server in a blkio cgroup of its own (v1, /sys/fs/cgroup/blkio/sluice-warmup-bench,
#      removed at the end) whose reads from W's disk are throttled to so many per second / bytes per second: a slower
#      disk (a small cloud volume) than this machine's, for the same store. Only the server's reads are limited.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${W:-/tmp/sluice-warmup}; USERS=${USERS:-2000000}; SITES=${SITES:-1000}; PAGECACHE=${PAGECACHE:-64m}
CLIENTS=${CLIENTS:-64}; SECS=${SECS:-60}; REF=${REF:-60}; ORDER=("${@:-off on on off}"); ORDER=(${ORDER[*]})
HTTP=127.0.0.1:27491; BOLT=127.0.0.1:27692
export NEO4J_AUTH=none SLUICE_HEAP=${SLUICE_HEAP:-1g}
mkdir -p "$W"
config() { # $1: on|off
  cat <<YAML
templates:
  visited:
    cypher: "MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[v:VISITED]->(s) ON CREATE SET v.n = 1 ON MATCH SET v.n = v.n + 1"
    key: [user]
schema:
  - CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE
  - CREATE CONSTRAINT site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE
neo4j: {pagecache: $PAGECACHE}
warmup: {on_start: $([[ $1 == on ]] && echo true || echo false)}
YAML
}
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
pid=""
CG=""
if [[ -n "${READ_IOPS:-}${READ_BPS:-}" ]]; then
  CG=/sys/fs/cgroup/blkio/sluice-warmup-bench; dev=$(findmnt -no MAJ:MIN -T "$W" | tr -d ' ')
  mkdir -p "$CG"
  [[ -n "${READ_IOPS:-}" ]] && echo "$dev $READ_IOPS" > "$CG/blkio.throttle.read_iops_device"
  [[ -n "${READ_BPS:-}" ]] && echo "$dev $READ_BPS" > "$CG/blkio.throttle.read_bps_device"
fi
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; [[ -n "$CG" ]] && rmdir "$CG" 2>/dev/null; true; }
trap cleanup EXIT
serve() { # $1: data dir, $2: on|off, $3: log
  config "$2" > "$W/sluice-$2.yaml"
  if [[ -n "$CG" && "$1" != "$W/template" ]]; then # in the throttled cgroup from its first read
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG" ./sluice serve --config "$W/sluice-$2.yaml" \
      --data "$1" --http $HTTP --bolt $BOLT > "$3" 2>&1 & pid=$!
  else
    ./sluice serve --config "$W/sluice-$2.yaml" --data "$1" --http $HTTP --bolt $BOLT > "$3" 2>&1 & pid=$!
  fi
}
stop() { kill "$pid"; wait "$pid" || true; pid=""; }
query() { curl -s -H 'Content-Type: application/json' "http://$HTTP/db/neo4j/query/v2" -d "{\"statement\":\"$1\"}"; }

table() { # results files -> a markdown table
  echo "| warm-up | load avg at start | UP s (warm-up s) | first minute p50 / p99 / p99.9 ms | writes/s | p99 per 10 s slice, ms | disk read MiB to UP, after | next minute: writes/s, p50 / p99 ms |"
  echo "|---|---|---|---|---|---|---|---|"
  jq -r '[.mode, .load, ((.up_ms/1000*10|round/10|tostring) + (if .warmup.took_ms then " (" + (.warmup.took_ms/100|round/10|tostring) + ")" else "" end)),
    ((.first.p50_ms|round|tostring) + " / " + (.first.p99_ms|round|tostring) + " / " + (.first.p999_ms|round|tostring)),
    ((.first.writes_per_s|tostring) + (if .first.not_200 > 0 then " (" + (.first.not_200|tostring) + " not 200)" else "" end)),
    ([.slices[].p99_ms|round|tostring]|join(" ")),
    ((.disk_read_mib.to_up|tostring) + ", " + (.disk_read_mib.then|tostring)),
    (if .steady then (.steady.writes_per_s|tostring) + ", " + (.steady.p50_ms|round|tostring) + " / " + (.steady.p99_ms|round|tostring) else "-" end)]
    | "| " + join(" | ") + " |"' "$@"
}
if [[ "${1:-}" == --table ]]; then shift; table "$@"; exit 0; fi

./sluice --version > /dev/null 2>&1   # builds the jar now if needed, not inside a timed start

if [[ ! -f "$W/template/.built" || -n "${REBUILD:-}" ]]; then
  rm -rf "$W/template" "$W/csv"; mkdir -p "$W/csv"
  echo "generating $USERS users, $SITES sites, $USERS visits ..." >&2
  echo 'id:ID(User){id-type:long},name' > "$W/csv/users.csv"
  awk -v n="$USERS" 'BEGIN { for (i = 0; i < n; i++) printf "%d,user %08d of the warm-up benchmark\n", i, i }' >> "$W/csv/users.csv"
  echo 'url:ID(Site)' > "$W/csv/sites.csv"
  awk -v n="$SITES" 'BEGIN { for (i = 0; i < n; i++) printf "u%d\n", i }' >> "$W/csv/sites.csv"
  echo ':START_ID(User),:END_ID(Site),n:long' > "$W/csv/visited.csv"
  awk -v n="$USERS" -v s="$SITES" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%d,u%d,1\n", i, int(rand() * s) }' >> "$W/csv/visited.csv"
  config off > "$W/sluice-off.yaml"
  ./sluice import --into "$W/template" --config "$W/sluice-off.yaml" --nodes=User="$W/csv/users.csv" \
    --nodes=Site="$W/csv/sites.csv" --relationships=VISITED="$W/csv/visited.csv" >&2
  serve "$W/template" off "$W/template-start.log"
  until curl -sf "http://$HTTP/health" > /dev/null; do sleep 0.5; done
  query 'CALL db.awaitIndexes(600)' > /dev/null
  query 'MATCH (u:User) WITH count(u) AS users MATCH ()-[v:VISITED]->() RETURN users, count(v) AS visits' >&2; echo >&2
  query 'SHOW INDEXES YIELD name, state, populationPercent RETURN name, state, populationPercent' >&2; echo >&2
  stop
  rm -rf "$W/csv"
  touch "$W/template/.built"
fi
db_bytes=$(du -sb "$W/template/data/databases/neo4j" | cut -f1)
echo "store: $(du -sh "$W/template/data/databases/neo4j" | cut -f1) ($db_bytes bytes) in $W/template; page cache $PAGECACHE" >&2
(cd "$W/template/data/databases/neo4j" && du -b -- * | sort -rn | head -12) >&2 || true

results="$W/results-$(date +%Y%m%d-%H%M%S).jsonl"; : > "$results"
for mode in "${ORDER[@]}"; do
  rm -rf "$W/run"; cp -a "$W/template" "$W/run"; sync
  [[ $mode == *-hot ]] || echo 3 > /proc/sys/vm/drop_caches
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  [[ -n "$CG" ]] && echo 1 > "$CG/blkio.reset_stats"
  t0=$(now_ms); serve "$W/run" "${mode%-hot}" "$W/run-$mode.log"
  listening=""; until code=$(curl -s -o /dev/null -w '%{http_code}' "http://$HTTP/health") && [[ $code == 200 ]]; do
    [[ -z "$listening" && $code != 000 ]] && listening=$(( $(now_ms) - t0 ))
    kill -0 "$pid" 2>/dev/null || { echo "sluice died; see $W/run-$mode.log" >&2; exit 1; }
    sleep 0.1
  done
  up=$(( $(now_ms) - t0 )); [[ -z "$listening" ]] && listening=$up
  health=$(curl -s "http://$HTTP/health"); read_up=$(awk '/^read_bytes/ {print $2}' /proc/$pid/io)
  echo "[$mode] UP after $up ms (answering from $listening ms), load $load; warm-up: $(jq -c .warmup <<<"$health")" >&2
  result=$(SEED=$RANDOM REF=$REF node bench/warmup/load.js "http://$HTTP" "$CLIENTS" "$SECS" "$USERS" "$SITES")
  read_end=$(awk '/^read_bytes/ {print $2}' /proc/$pid/io)
  throttled='{}'
  if [[ -n "$CG" ]]; then
    grep -q "blkio:/sluice-warmup-bench" /proc/$pid/cgroup || { echo "the server is not in $CG" >&2; exit 1; }
    throttled=$(awk -v d="$dev" '$1 == d && $2 == "Read" {print $3}' "$CG/blkio.throttle.io_serviced" | head -1)
    throttled="{\"reads\": ${throttled:-0}}"
  fi
  stop
  jq -c --arg mode "$mode" --argjson up "$up" --argjson listening "$listening" --arg load "$load" \
    --argjson read_up "$read_up" --argjson read_end "$read_end" \
    --argjson warmup "$(jq -c .warmup <<<"$health")" \
    '{mode: $mode, up_ms: $up, answering_ms: $listening, load: $load, warmup: $warmup,
     disk_read_mib: {to_up: ($read_up / 1048576 | floor), then: (($read_end - $read_up) / 1048576 | floor)}} + .' <<<"$result" \
    | jq -c --arg iops "${READ_IOPS:-}" --arg bps "${READ_BPS:-}" '. + (if $iops + $bps != "" then {throttle: ({read_iops: $iops, read_bps: $bps} + $t)} else {} end)' --argjson t "$throttled" \
    | tee -a "$results" >&2
done
rm -rf "$W/run"

echo
echo "store $(du -sh "$W/template/data/databases/neo4j" | cut -f1), page cache $PAGECACHE, $CLIENTS clients, sync visited writes over $USERS users${CG:+, server reads throttled to ${READ_IOPS:-any} IOPS and ${READ_BPS:-any} B/s} ($results)"
table "$results"

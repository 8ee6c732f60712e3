#!/usr/bin/env bash
# The first minute after start against steady state, for docs/BENCHMARKS.md ("Warm at start", issue 14): per run a
# fresh data directory, `./sluice serve` (embedded Neo4j, sync visited template, no auth), /health polled until 200,
# then wrk (native: no JIT of its own to warm; 2 threads, 64 connections, one visited row per request, each thread
# its own seed) for six 10 s slices (the first minute), 30 s not measured, and a 60 s steady-state reference on
# the same server. Variants, in the order given (default: cold plain plain cold, ABBA):
#   plain  as `serve` starts by default: the launcher's JVM flags, without the AOT cache (SLUICE_NO_AOT=1), the
#          write path rehearsed before UP (warmup.write_path, 60 s at most)
#   cold   the same without the rehearsal (--warmup-write-path 0s): UP as soon as the server listens
#   aot    plain with JDK 25's ahead-of-time cache (target/sluice.aot: classes loaded and linked, method
#          profiles), trained first when missing or older than the server's jar by `./sluice aot-train` (a serve run under
#          -XX:AOTCacheOutput); the launcher gives it to serve
# usage: bench/firstminute/run.sh [plain|cold|aot ...]      env: W (work dir), USERS, SITES, CLIENTS (64)
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${W:-/tmp/sluice-firstminute}; USERS=${USERS:-1000000}; SITES=${SITES:-10000}; CLIENTS=${CLIENTS:-64}
AOT=target/sluice.aot
ORDER=("${@:-cold plain plain cold}"); ORDER=(${ORDER[*]})
HTTP=127.0.0.1:27591; BOLT=127.0.0.1:27792
export NEO4J_AUTH=none USERS SITES
command -v wrk > /dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 1; }
mkdir -p "$W"
cat > "$W/sluice.yaml" <<YAML
templates:
  visited:
    cypher: "MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[:VISITED]->(s)"
    key: [user]
schema:
  - CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE
  - CREATE CONSTRAINT site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE
YAML
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; true; }
trap cleanup EXIT
./sluice --version > /dev/null 2>&1   # builds the jar now if needed, not inside a timed start
if [[ " ${ORDER[*]} " == *" aot "* && ! ( -f "$AOT" && "$AOT" -nt server/target/sluice-server.jar ) ]]; then ./sluice aot-train >&2; fi
wrk_run() { # $1 seconds -> one JSON line
  SEED=$RANDOM wrk -t2 -c"$CLIENTS" -d"$1"s --timeout 10s -s bench/firstminute/visited.lua \
    "http://$HTTP/db/neo4j/write/visited?mode=sync" | grep '^{'
}
results="$W/results-$(date +%Y%m%d-%H%M%S).jsonl"; : > "$results"
for v in "${ORDER[@]}"; do
  rm -rf "$W/data"
  noaot=1; [[ $v == aot ]] && noaot=""
  rehearse=(); [[ $v == cold ]] && rehearse=(--warmup-write-path 0s)
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  t0=$(now_ms)
  SLUICE_NO_AOT=$noaot ./sluice serve --config "$W/sluice.yaml" --data "$W/data" --http $HTTP --bolt $BOLT \
    ${rehearse[@]+"${rehearse[@]}"} > "$W/serve-$v.log" 2>&1 & pid=$!
  until [[ $(curl -s -o /dev/null -w '%{http_code}' "http://$HTTP/health") == 200 ]]; do
    kill -0 "$pid" 2>/dev/null || { echo "sluice died; see $W/serve-$v.log" >&2; exit 1; }
    sleep 0.1
  done
  up=$(( $(now_ms) - t0 ))
  slices=()
  for i in 1 2 3 4 5 6; do slices+=("$(wrk_run 10)"); done
  wrk_run 30 > /dev/null
  steady=$(wrk_run 60)
  kill "$pid"; wait "$pid" || true; pid=""
  printf '%s\n' "${slices[@]}" | jq -sc --arg v "$v" --arg load "$load" --argjson up "$up" --argjson steady "$steady" \
    '{variant: $v, load: $load, up_ms: $up, slices_per_s: [.[].per_s | round],
      first_minute_per_s: ((map(.requests) | add) / (map(.seconds) | add) | round),
      first_p99_ms: (map(.p99_ms) | max), non_2xx: ((map(.non_2xx) | add) + $steady.non_2xx),
      steady_per_s: ($steady.per_s | round), steady_p99_ms: $steady.p99_ms}
     | . + {first_over_steady: (.first_minute_per_s / .steady_per_s * 1000 | round / 1000)}' | tee -a "$results" >&2
done
echo "results: $results"
jq -r '"| \(.variant) | \(.load) | \(.up_ms / 1000) s | \(.slices_per_s | map(tostring) | join(" ")) | \(.first_minute_per_s) | \(.steady_per_s) | **\(.first_over_steady)** | \(.non_2xx) |"' "$results"

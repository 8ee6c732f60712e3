#!/usr/bin/env bash
# Fleet measurement for docs/SCALING.md: one broker (./sluice kafka), one Neo4j (./sluice neo4j), N sluice
# instances (./sluice serve --kafka --neo4j), async template writes of the 'visited' scenario from a Node load
# generator in its own process; reports accepted writes/s and the applied rate (graph count over time).
# usage: bench/fleet/run.sh N [SECONDS]     (all on loopback, under /tmp/sluice-fleet)
# Sync writes across instances (no Kafka): bench/fleet/sync.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1}; SECS=${2:-30}; W=/tmp/sluice-fleet; rm -rf "$W"; mkdir -p "$W"
export NEO4J_AUTH=neo4j/fleet-password-1
cat > "$W/sluice.yaml" <<YAML
templates:
  visited:
    cypher: "MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[v:VISITED]->(s) ON CREATE SET v.n = 1 ON MATCH SET v.n = v.n + 1"
    key: [user]
schema:
  - CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE
  - CREATE CONSTRAINT site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE
journal:
  kafka: {topic: visits, partitions: 6, max_lag_records: 200000}
YAML
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
SLUICE_HEAP=256m ./sluice kafka --data "$W/kafka" --listen 127.0.0.1:29092 > "$W/kafka.log" 2>&1 & pids+=($!)
SLUICE_HEAP=1g ./sluice neo4j --data "$W/neo4j" --bolt 127.0.0.1:29687 --pagecache 256m > "$W/neo4j.log" 2>&1 & pids+=($!)
until grep -q 'kafka ready' "$W/kafka.log" && grep -q 'neo4j ready' "$W/neo4j.log"; do sleep 0.5; done
urls=()
for i in $(seq 1 "$N"); do
  port=$((27470 + i))
  SLUICE_HEAP=512m ./sluice serve --config "$W/sluice.yaml" --data "$W/s$i" --http 127.0.0.1:$port \
    --kafka 127.0.0.1:29092 --neo4j bolt://127.0.0.1:29687 --password fleet-password-1 > "$W/s$i.log" 2>&1 & pids+=($!)
  urls+=("http://127.0.0.1:$port")
done
for i in $(seq 1 "$N"); do until grep -q "sluice ready" "$W/s$i.log"; do sleep 0.5; done; done
joined=$(IFS=,; echo "${urls[*]}")
count() { curl -s -u neo4j:fleet-password-1 -H 'Content-Type: application/json' "${urls[0]}/db/neo4j/query/v2" \
  -d '{"statement":"MATCH ()-[v:VISITED]->() RETURN sum(v.n) AS n"}' | sed 's/.*"values":\[\[\([0-9]*\)\]\].*/\1/'; }
SEED=$RANDOM node bench/fleet/load.js 20 0 32 "$joined" > /dev/null   # JIT warm-up, not counted
c0=$(count); t0=$(date +%s.%N)
SEED=$RANDOM node bench/fleet/load.js "$SECS" 0 64 "$joined" | tee "$W/result.json"
c1=$(count); t1=$(date +%s.%N)
echo "{\"applied_per_s\": $(echo "($c1 - $c0) / ($t1 - $t0)" | bc -l | cut -d. -f1)}"

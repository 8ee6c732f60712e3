#!/usr/bin/env bash
# Sync writes across instances (issue 12, docs/BENCHMARKS.md "Sync mode across instances"): one Neo4j
# (./sluice neo4j) and, for each configuration, its own N `./sluice serve --neo4j` instances (no Kafka: sync writes
# never touch it), all started at the beginning; then ROUNDS rounds in which the Node load generator sends
# 'visited' writes with ?mode=sync to one configuration at a time, in order in odd rounds and in reverse order in
# even ones (ABBA), so that a configuration is compared with the first one within each round, on a machine whose
# other load drifts. The graph is seeded first with every user and site (the sites dense), so no window pays for
# creating nodes another made.
# usage: bench/fleet/sync.sh SECONDS CONFIG...     CONFIG = INSTANCES:on|off[:rr|key]
#   SECONDS: each measured window; on|off: apply.lock_order; rr: each client round robin over the instances
#   (default); key: a user's writes always through one instance (key-affinity routing, user % instances).
#   e.g. bench/fleet/sync.sh 20 1:on 2:on 2:off 2:on:key
# env: ROUNDS (3), SITES (50), USERS (100000), CLIENTS (64), WARMUP (5 s untimed before each window; 20 s the
#      first time a configuration is used), NEO4J_WARMUP (60 s of untimed load before everything: Neo4j is new to
#      the load), APPLIERS (apply.appliers per instance, 2), SLUICE_JAVA_OPTS (to every sluice process).
# Prints one JSON line per window (load.js's, plus the graph check), then a table per configuration. The files
# are under /tmp/sluice-sync.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:?usage: bench/fleet/sync.sh SECONDS INSTANCES:on|off[:rr|key] ...}; shift
(( $# > 0 )) || { echo "usage: bench/fleet/sync.sh SECONDS INSTANCES:on|off[:rr|key] ..." >&2; exit 2; }
for c in "$@"; do
  [[ "$c" =~ ^[1-9][0-9]?:(on|off)(:(rr|key))?$ ]] || { echo "sync.sh: bad configuration '$c'" >&2; exit 2; }
done
[[ $(printf '%s\n' "$@" | sort | uniq -d) == "" ]] || { echo "sync.sh: a configuration given twice" >&2; exit 2; }
ROUNDS=${ROUNDS:-3}; SITES=${SITES:-50}; USERS=${USERS:-100000}; CLIENTS=${CLIENTS:-64}; WARMUP=${WARMUP:-5}
NEO4J_WARMUP=${NEO4J_WARMUP:-60}; APPLIERS=${APPLIERS:-2}
W=/tmp/sluice-sync; rm -rf "$W"; mkdir -p "$W"
export NEO4J_AUTH=neo4j/fleet-password-1
BOLT=127.0.0.1:29688
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
SLUICE_HEAP=1g ./sluice neo4j --data "$W/neo4j" --bolt "$BOLT" --pagecache 256m > "$W/neo4j.log" 2>&1 & pids+=($!)
until grep -q 'neo4j ready' "$W/neo4j.log"; do sleep 0.5; done

configs=("$@"); joined=()
for k in "${!configs[@]}"; do # configuration k: instances on ports 27571 + 10k ...
  IFS=: read -r n order _ <<< "${configs[$k]}"
  cat > "$W/sluice-$k.yaml" <<YAML
templates:
  visited:
    cypher: "MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[v:VISITED]->(s) ON CREATE SET v.n = 1 ON MATCH SET v.n = v.n + 1"
    key: [user]
schema:
  - CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE
  - CREATE CONSTRAINT site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE
apply: {appliers: $APPLIERS, lock_order: $([[ $order == on ]] && echo true || echo false)}
YAML
  urls=()
  for i in $(seq 1 "$n"); do
    port=$((27571 + 10 * k + i - 1))
    SLUICE_HEAP=512m ./sluice serve --config "$W/sluice-$k.yaml" --data "$W/c$k-s$i" --http 127.0.0.1:$port \
      --neo4j "bolt://$BOLT" --password fleet-password-1 > "$W/c$k-s$i.log" 2>&1 & pids+=($!)
    urls+=("http://127.0.0.1:$port")
    until grep -q "sluice ready" "$W/c$k-s$i.log"; do # one at a time: instances starting together race on schema
      kill -0 "${pids[-1]}" 2>/dev/null || { echo "sync.sh: instance $i of '${configs[$k]}' exited" >&2; exit 1; }
      sleep 0.5
    done
  done
  joined+=("$(IFS=,; echo "${urls[*]}")")
done

query() { # Cypher through the Query API of the first instance; prints the first value of the answer
  curl -s -u neo4j:fleet-password-1 -H 'Content-Type: application/json' "${joined[0]%%,*}/db/neo4j/query/v2" \
    -d "{\"statement\":\"$1\"}" | jq -c '.data.values[0][0] // .'
}
# every user and site, so that no window creates more nodes than another; and each site dense already (60
# relationships from :Seed nodes; Neo4j's threshold is 50), since a node turning dense locks its neighbours inside
# the commit, outside any order a client can impose (docs/ARCHITECTURE.md), once in its life
query "UNWIND range(0, $((USERS - 1))) AS i CALL (i) { MERGE (:User {id: i}) } IN TRANSACTIONS OF 10000 ROWS" > /dev/null
query "UNWIND range(0, $((SITES - 1))) AS i MERGE (s:Site {url: 'u' + i}) WITH s UNWIND range(1, 60) AS k CREATE (:Seed)-[:SEEDED]->(s)" > /dev/null
if (( NEO4J_WARMUP > 0 )); then
  MODE=sync USERS=$USERS SITES=$SITES SEED=$RANDOM node bench/fleet/load.js "$NEO4J_WARMUP" 0 "$CLIENTS" "${joined[0]}" > /dev/null
fi

declare -A used
for round in $(seq 1 "$ROUNDS"); do
  order=("${!configs[@]}")
  if (( round % 2 == 0 )); then order=(); for ((k = ${#configs[@]} - 1; k >= 0; k--)); do order+=("$k"); done; fi
  for k in "${order[@]}"; do
    c=${configs[$k]}; IFS=: read -r _ lock route <<< "$c"; route=${route:-rr}
    warm=$WARMUP; [[ -n "${used[$k]:-}" ]] || warm=20; used[$k]=1
    c0=$(query "MATCH ()-[v:VISITED]->() RETURN sum(v.n)")
    result=$(MODE=sync ROUTE=$route USERS=$USERS SITES=$SITES SEED=$RANDOM \
      node bench/fleet/load.js "$SECS" "$warm" "$CLIENTS" "${joined[$k]}")
    c1=$(query "MATCH ()-[v:VISITED]->() RETURN sum(v.n)")
    echo "$result" | jq -c --arg config "$c" --argjson round "$round" --argjson lock_order \
      "$([[ $lock == on ]] && echo true || echo false)" --argjson c0 "$c0" --argjson c1 "$c1" \
      --arg load "$(uptime | sed 's/.*average: //')" '{config: $config, round: $round, lock_order: $lock_order} + . +
      {graph: {applied: ($c1 - $c0), acknowledged: .total.ok,
               exact: (($c1 - $c0) >= .total.ok and ($c1 - $c0) <= .total.ok + .total.lost_in_transport)},
       load_average: $load}' | tee -a "$W/results.jsonl"
  done
done
# per configuration, over its windows: writes/s as a ratio to the first configuration's in the same round (the
# median of the rounds' ratios, and their range), the median per instance, the mean rows per batch and time to
# apply and commit one (ms), DeadlockDetected retries per 10k acknowledged writes, other transient retries,
# errors (non-200 answers), whether every window's graph count equals its acknowledged writes
echo
jq -rs --argjson configs "$(printf '%s\n' "${configs[@]}" | jq -R . | jq -s .)" '
  def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
  def r2: . * 100 | round / 100;
  . as $all | (map(select(.config == $configs[0])) | map({key: (.round | tostring), value: .accepted_per_s}) | from_entries) as $ref
  | ["config", "windows", "writes/s ratio", "[min, max]", "per instance (median)", "rows/batch", "commit ms",
     "deadlocks/10k", "other retries", "errors", "graph exact"],
    ($configs[] as $c | $all | map(select(.config == $c)) as $w | ($w | map(.accepted_per_s / $ref[.round | tostring])) as $ratios
     | [$w[].per_instance[]] as $pi | ([$pi[].batches] | add) as $b
     | [$c, ($w | length), ($ratios | median | r2), "[\($ratios | min | r2), \($ratios | max | r2)]",
        ([range(0; $w[0].instances)] | map(. as $i | [$w[].per_instance[$i].writes_per_s] | median | round | tostring) | join(" / ")),
        (if $b > 0 then ([$pi[] | select(.batches > 0) | .rows_per_batch * .batches] | add) / $b * 10 | round / 10 else "-" end),
        (if $b > 0 then ([$pi[] | select(.batches > 0) | .commit_ms * .batches] | add) / $b * 10 | round / 10 else "-" end),
        (([$pi[].transient_retries.DeadlockDetected // 0] | add) * 10000 / ([$pi[].ok] | add) * 10 | round / 10),
        ([$pi[].transient_retries | to_entries[] | select(.key != "DeadlockDetected") | .value] | add // 0),
        ([$w[] | .refused_503 + .failed] | add), ([$w[].graph.exact] | all)]) | @tsv' "$W/results.jsonl" \
  | column -t -s $'\t'

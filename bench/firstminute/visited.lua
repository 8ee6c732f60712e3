-- wrk script for bench/firstminute/run.sh: one sync `visited` row per request, {user, url} uniform over
-- [0, USERS) and [0, SITES) (env USERS, SITES). Every thread seeds its own generator (wrk's Lua threads would
-- otherwise all repeat one sequence, and every run the last one's).
local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

function init(args)
  local seed = tonumber(os.getenv("SEED") or os.time()) * 1000 + id
  math.randomseed(seed)
  users = tonumber(os.getenv("USERS") or "1000000")
  sites = tonumber(os.getenv("SITES") or "10000")
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local body = string.format('{"user": %d, "url": "u%d"}', math.random(0, users - 1), math.random(0, sites - 1))
  return wrk.format(nil, nil, nil, body)
end

function done(summary, latency, requests)
  local non2xx = summary.errors.status
  io.write(string.format('{"requests": %d, "seconds": %.3f, "per_s": %.1f, "p50_ms": %.2f, "p99_ms": %.2f, "non_2xx": %d, "socket_errors": %d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, non2xx,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end

-- take-lease.lua: take calls' leases in a lease set (a carrier's calls in progress; or a scope's leases that
-- lapsed while their owner could not reach Redis) while the set has room. Leases past their deadline no longer
-- count: their owner stopped renewing them. Redis TIME is the clock (or a test's, below).
--
-- KEYS[1]: the lease set (sorted set, member = call and owner instance, score = deadline in ms)
-- ARGV: lease_member, lease_ms, max, then optionally more lease members, taken in that order
-- Reply: {leases taken or refreshed (1|0 for one member), leases counted after the decision}

-- The clock: Redis TIME, or a test's time when the key <prefix>:{<tag>}:test-clock beside KEYS[1] holds one
-- (microseconds; set by tests and by what-if on its scratch server, see lua/README.md). The set's TTL runs on
-- Redis's real clock: on a test clock, which runs apart from it, it is at least min_ttl (10 min) of it.
local function clock(key)
  local test = redis.call('GET', string.match(key, '^.-}') .. ':test-clock')
  if test then return math.floor(tonumber(test) / 1000), 600000 end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), 0
end
local now_ms, min_ttl = clock(KEYS[1])
local lease_ms, max = tonumber(ARGV[2]), tonumber(ARGV[3])
local ttl = math.max(lease_ms, min_ttl)

-- Lapsed leases no longer count; at most 32 are dropped per call (after a crash of an instance with thousands of
-- calls up, later calls drop the rest), so a call costs a bounded amount whatever the set holds.
local stale = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. now_ms)
if stale > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, math.min(stale, 32) - 1) end
local count = redis.call('ZCOUNT', KEYS[1], now_ms, '+inf')
local taken = 0
for i = 1, #ARGV do
  if i == 1 or i > 3 then
    local member = ARGV[i]
    -- a call that holds its lease already (a retried attempt) keeps it and is not counted twice
    local held = tonumber(redis.call('ZSCORE', KEYS[1], member) or '-1') >= now_ms
    if held or count < max then
      if not held then count = count + 1 end
      redis.call('ZADD', KEYS[1], now_ms + lease_ms, member)
      taken = taken + 1
    end
  end
end
if taken > 0 and redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return { taken, count }

-- renew-leases.lua: an owner instance pushes the deadline of its leases in one lease set to now + lease_ms.
-- Only leases still in the set are refreshed (ZADD XX): a lease released, lapsed or moved to another key since
-- the owner listed its members is never added back here. The members not found are returned; the owner takes
-- those of its calls still up again through take-lease.lua, under the cap.
--
-- KEYS[1]: the lease set
-- ARGV: lease_ms, then the owner's lease members in that set
-- Reply: {leases refreshed, then each member that was not in the set}

-- The clock: Redis TIME, or a test's time when the key <prefix>:{<tag>}:test-clock beside KEYS[1] holds one
-- (microseconds; see lua/README.md). The set's TTL runs on Redis's real clock: on a test clock, which runs apart
-- from it, it is at least min_ttl (10 min) of it.
local function clock(key)
  local test = redis.call('GET', string.match(key, '^.-}') .. ':test-clock')
  if test then return math.floor(tonumber(test) / 1000), 600000 end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), 0
end
local now_ms, min_ttl = clock(KEYS[1])
local deadline = now_ms + tonumber(ARGV[1])
local ttl = math.max(tonumber(ARGV[1]), min_ttl)

-- Lapsed leases no longer count; at most 32 are dropped per call (later calls drop the rest), so a call costs a
-- bounded amount whatever the set holds. One of the owner's own that lapsed is dropped and reported missing.
local stale = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. now_ms)
if stale > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, math.min(stale, 32) - 1) end
local out = { 0 }
for i = 2, #ARGV do
  local score = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[i]))
  if score and score >= now_ms then
    redis.call('ZADD', KEYS[1], 'XX', deadline, ARGV[i])
    out[1] = out[1] + 1
  else
    if score then redis.call('ZREM', KEYS[1], ARGV[i]) end
    out[#out + 1] = ARGV[i]
  end
end
if out[1] > 0 and redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return out

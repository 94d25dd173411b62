-- count-leases.lua: calls in progress in a lease set: leases whose deadline has not passed. Read-only.
--
-- KEYS[1]: the lease set
-- Reply: {live leases}

-- The clock: Redis TIME, or a test's time when the key <prefix>:{<tag>}:test-clock beside KEYS[1] holds one
-- (microseconds, see lua/README.md).
local function clock(key)
  local test = redis.call('GET', string.match(key, '^.-}') .. ':test-clock')
  if test then return math.floor(tonumber(test) / 1000) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local now_ms = clock(KEYS[1])
return { redis.call('ZCOUNT', KEYS[1], now_ms, '+inf') }

-- next-slot.lua: read-only view of a carrier's pacing key for the admin API: how long a call arriving
-- now would wait for its slot (pace.lua's rule, nothing reserved). Redis TIME is the clock.
--
-- KEYS[1]: the carrier's pacing key (as pace.lua)
-- ARGV[1]: interval_us, ARGV[2]: burst (as pace.lua)
-- Reply: {wait_us, now_us}

-- The clock: Redis TIME, or a test's time when the key <prefix>:{<tag>}:test-clock beside KEYS[1] holds one
-- (microseconds; set by tests and by what-if on its scratch server, see lua/README.md).
local function clock(key)
  local test = redis.call('GET', string.match(key, '^.-}') .. ':test-clock')
  if test then return tonumber(test) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local now = clock(KEYS[1])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
local slot = math.max(now, tat - (tonumber(ARGV[2]) - 1) * tonumber(ARGV[1]))
return { slot - now, now }

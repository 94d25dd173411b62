-- next-slot.lua: read-only view of a carrier's pacing key for the admin API: how long a call arriving
-- now would wait for its slot (pace.lua's rule, nothing reserved). Redis TIME is the clock.
--
-- KEYS[1]: the carrier's pacing key (as pace.lua)
-- ARGV[1]: interval_us, ARGV[2]: burst (as pace.lua)
-- Reply: {wait_us, now_us}

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
local slot = math.max(now, tat - (tonumber(ARGV[2]) - 1) * tonumber(ARGV[1]))
return { slot - now, now }

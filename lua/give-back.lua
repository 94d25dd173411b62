-- give-back.lua: return the slot of a reserved call that will never be sent (cancelled or rerouted while
-- held), so the carrier's capacity is not lost. Spacing stays exact: only the newest reservation is undone
-- (the TAT steps back one interval, as if it had never been made); an older one is noted in the returned
-- set and undone once every reservation after it has been. Redis TIME is the clock.
--
-- KEYS[1]: the carrier's pacing key (pace.lua); KEYS[2]: its returned set (sorted set of TATs, score = TAT)
-- ARGV[1]: tat_us       the TAT that reservation set: its slot + burst * interval
-- ARGV[2]: interval_us  as pace.lua
-- Reply: {given_back 1|0 (0 = noted in the returned set, or nothing to give back), tat_us stored now (0 = none)}

-- The clock: Redis TIME, or a test's time when the key <prefix>:{<tag>}:test-clock beside KEYS[1] holds one
-- (microseconds; set by tests and by what-if on its scratch server, see lua/README.md).
local function clock(key)
  local test = redis.call('GET', string.match(key, '^.-}') .. ':test-clock')
  if test then return tonumber(test) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local now = clock(KEYS[1])
local tat = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local stored = tonumber(redis.call('GET', KEYS[1]))

-- A TAT already past frees nothing: pace.lua treats it as now.
if not stored or stored <= now or tat > stored or tat <= now then
  return { 0, stored or 0 }
end

if tat < stored then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  redis.call('ZADD', KEYS[2], tat, string.format('%d', tat))
  redis.call('PEXPIRE', KEYS[2], math.ceil((stored - now) / 1000) + 1000)
  return { 0, stored }
end

stored = tat - interval
while redis.call('ZREM', KEYS[2], string.format('%d', stored)) == 1 do
  stored = stored - interval
end
if stored > now then
  redis.call('SET', KEYS[1], string.format('%d', stored), 'PX', math.ceil((stored - now) / 1000) + 1000)
else
  redis.call('DEL', KEYS[1])
end
return { 1, stored }

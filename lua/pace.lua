-- pace.lua: reserve a carrier's next send slot (leaky bucket / GCRA), or reserve nothing when the
-- slot is further away than the caller may wait. Check and reserve are one atomic step, so any number
-- of gateways together send at the carrier's rate. Redis TIME is the clock.
--
-- KEYS[1]: the carrier's pacing key; it holds the theoretical arrival time (TAT) in microseconds,
--          i.e. the earliest slot of the next call when no burst is left.
-- ARGV[1]: interval_us   microseconds between calls (1e6 / cps)
-- ARGV[2]: burst         calls allowed back to back before spacing applies (1 = strict spacing)
-- ARGV[3]: max_wait_us   the longest the caller will hold the call
-- Reply: {reserved 1|0, delay_us (slot - now, also when not reserved), slot_us, now_us}

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = (tonumber(ARGV[2]) - 1) * interval
local max_wait = tonumber(ARGV[3])

local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end

-- slot = max(now, last + interval), where burst lets up to `burst` calls share the earliest slot.
local slot = math.max(now, tat - tolerance)
local delay = slot - now
if delay > max_wait then
  return { 0, delay, slot, now }
end

tat = tat + interval
redis.call('SET', KEYS[1], string.format('%d', tat), 'PX', math.ceil((tat - now) / 1000) + 1000)
return { 1, delay, slot, now }

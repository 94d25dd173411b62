-- pace.lua: reserve a carrier's next send slot (leaky bucket / GCRA), or reserve nothing when the
-- slot is further away than the caller may wait. Check and reserve are one atomic step, so any number
-- of gateways together send at the carrier's rate. Redis TIME is the clock.
--
-- KEYS[1]: the carrier's pacing key; it holds the theoretical arrival time (TAT) in microseconds,
--          i.e. the earliest slot of the next call when no burst is left.
-- ARGV[1]: interval_us   microseconds between calls (1e6 / cps)
-- ARGV[2]: burst         calls allowed back to back before spacing applies (1 = strict spacing)
-- ARGV[3]: max_wait_us   the longest the caller will hold the call: the carrier's max-wait, the same for every
--                        reservation of the carrier (a TAT beyond it is taken for a clock step back, below)
-- Reply: {reserved 1|0, delay_us (slot - now, also when not reserved), slot_us, now_us}

-- The clock: Redis TIME, or a test's time when the key <prefix>:{<tag>}:test-clock beside KEYS[1] holds one
-- (microseconds; set by tests and by what-if on its scratch server, see lua/README.md). The key's TTL runs on
-- Redis's real clock: on a test clock, which runs apart from it, it is at least min_ttl (10 min) of it. KEYS.time_us,
-- when a script running this one set it (admit-pace.lua: admit.lua's reading), is Redis TIME already read.
local function clock(key)
  local test = redis.call('GET', string.match(key, '^.-}') .. ':test-clock')
  if test then return tonumber(test), 600000 end
  if KEYS.time_us then return KEYS.time_us, 0 end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2]), 0
end
local now, min_ttl = clock(KEYS[1])
local interval = tonumber(ARGV[1])
local tolerance = (tonumber(ARGV[2]) - 1) * interval
local max_wait = tonumber(ARGV[3])

local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
-- A reservation never leaves the TAT further ahead than this; a TAT beyond it means Redis's clock stepped back
-- (or max-wait was lowered). It is pulled back to it, so reservations resume one interval after the last slot
-- that can have been handed out, instead of once the clock catches up with the old TAT.
local furthest = now + max_wait + tolerance + interval
local stepped = tat > furthest
if stepped then tat = furthest end

-- slot = max(now, last + interval), where burst lets up to `burst` calls share the earliest slot.
local slot = math.max(now, tat - tolerance)
local delay = slot - now
if delay > max_wait then
  if stepped then
    redis.call('SET', KEYS[1], string.format('%d', tat), 'PX', math.max(math.ceil((tat - now) / 1000) + 1000, min_ttl))
  end
  return { 0, delay, slot, now }
end

tat = tat + interval
redis.call('SET', KEYS[1], string.format('%d', tat), 'PX', math.max(math.ceil((tat - now) / 1000) + 1000, min_ttl))
return { 1, delay, slot, now }

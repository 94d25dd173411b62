-- admit-pace.lua: admit.lua, then, for an admitted call only, pace.lua for the carrier the call goes to
-- first, atomically and in one round trip instead of two. Only where every key is on one node (standalone,
-- sentinel, embedded): in a Redis Cluster the carrier's key lives in another slot, and the two scripts run
-- apart. Not runnable alone: admit.lua and pace.lua are defined before it as the functions
-- admit(KEYS, ARGV) and pace(KEYS, ARGV) (LuaScript.composed; lua/README.md shows it with redis-cli).
--
-- KEYS: admit.lua's KEYS, then last the carrier's pacing key (pace.lua's KEYS[1]).
-- ARGV: admit.lua's ARGV, then last pace.lua's three: interval_us, burst, max_wait_us.
-- Reply: admit.lua's 8 fields; for an admitted call (ok) then pace.lua's 4:
--        reserved 1|0, delay_us, slot_us, now_us.

local function slice(list, from, to)
  local part = {}
  for i = from, to do part[#part + 1] = list[i] end
  return part
end

-- Redis TIME is read once: admit.lua leaves its reading in the KEYS table it is given (time_us, false until then),
-- pace.lua takes it from there (a tag with a test clock still reads its own).
local admit_keys = slice(KEYS, 1, #KEYS - 1)
admit_keys.time_us = false
local verdict = admit(admit_keys, slice(ARGV, 1, #ARGV - 3))
if verdict[1] ~= 1 then
  return verdict
end
local slot = pace({ KEYS[#KEYS], time_us = admit_keys.time_us }, slice(ARGV, #ARGV - 2, #ARGV))
for i = 1, 4 do verdict[8 + i] = slot[i] end
return verdict

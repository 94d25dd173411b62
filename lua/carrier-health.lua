-- carrier-health.lua: publish a carrier's health state for the fleet, unless a stronger hold is in force.
-- KEYS[1]: the carrier's health key. ARGV[1]: the new value ('' = clear: the carrier is up),
-- ARGV[2]: its origin (0 checks, 1 the carrier's Retry-After, 2 an operator), ARGV[3]: its TTL in ms.
-- A value starts with its origin digit: "origin|...". Reply: {the value in force afterwards, '' if none}.

local current = redis.call('GET', KEYS[1])
-- A hold of a stronger origin lasts its TTL: the checks cannot lift an operator's or the carrier's hold.
if current and tonumber(string.sub(current, 1, 1)) > tonumber(ARGV[2]) then
  return { current }
end
if ARGV[1] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
end
return { ARGV[1] }

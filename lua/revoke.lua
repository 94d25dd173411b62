-- revoke.lua: undo one admission made by admit.lua whose decision the gateway never used (the reply came
-- after the gateway's timeout and the call was refused), so the call counts nowhere. Same KEYS and ARGV as
-- admit.lua without its lease part, plus ARGV[#ARGV] = admitted_us, the now_us of that admission's reply.
-- Reply: {removed}, the number of window keys the call was removed from.

local member = ARGV[1]
local weight = tonumber(ARGV[2])
local admitted = tonumber(ARGV[#ARGV])
local seen_key = KEYS[#KEYS]
local id = function(n) return string.format('%d', n) end

-- Only this admission: a member scored at another time is another admission of the same call.
local function remove_member(key)
  local score = redis.call('ZSCORE', key, member)
  if not score or tonumber(score) ~= admitted then return 0 end
  redis.call('ZREM', key, member)
  for w = 2, weight do redis.call('ZREM', key, member .. '#' .. w) end
  return 1
end

local removed, done = 0, {}
local a, k = 4, 1
for s = 1, tonumber(ARGV[3]) do
  k = k + 1 -- the scope's block key
  local n = tonumber(ARGV[a]); a = a + 1
  for l = 1, n do
    local key, precision = KEYS[k], tonumber(ARGV[a + 2]) * 1000
    if not done[key] and precision == 0 then
      removed = removed + remove_member(key)
    elseif not done[key] then
      -- admit.lua added the weight to bucket floor(admitted / precision); gone if the bucket was pruned.
      local b = id(math.floor(admitted / precision))
      local c = tonumber(redis.call('HGET', key, b))
      if c and c >= weight then
        if c == weight then redis.call('HDEL', key, b) else redis.call('HINCRBY', key, b, -weight) end
        if redis.call('HINCRBY', key, 'n', -weight) <= 0 then redis.call('DEL', key) end
        removed = removed + 1
      end
    end
    done[key] = true
    k = k + 1; a = a + 3
  end
end
remove_member(seen_key)
return { removed }

-- revoke.lua: undo one admission made by admit.lua whose decision the gateway never used (the reply came
-- after the gateway's timeout and the call was refused), so the call counts nowhere. Same KEYS and ARGV as
-- admit.lua without its lease part, plus ARGV[#ARGV] = admitted_us, the now_us of that admission's reply; a
-- limit's mode may also be 2: a shadow limit that was over (its would_refuse), so the call is not in its window.
-- Reply: {removed}, the number of window keys the call was removed from.
--
-- Idempotent: admit.lua records every admission in a dedupe set (the longest exact window when it is the
-- longest horizon, else the seen key) at its time. Only while that set holds the member at admitted_us is the
-- admission still there to undo; a revoke run twice, or one of an admission since replaced by a newer one of
-- the same call, finds another score or none and removes nothing.

local member = ARGV[1]
local weight = tonumber(ARGV[2])
local admitted = tonumber(ARGV[#ARGV])
local seen_key = KEYS[#KEYS]
local id = function(n) return string.format('%d', n) end
local K = 32 -- admit.lua's buckets per block

local limits = {}
local a, k = 4, 1
for s = 1, tonumber(ARGV[3]) do
  k = k + 1 -- the scope's block key
  local n = tonumber(ARGV[a]); a = a + 1
  for l = 1, n do
    limits[#limits + 1] = { key = KEYS[k], window = tonumber(ARGV[a]) * 1000, precision = tonumber(ARGV[a + 2]) * 1000,
      shadow = ARGV[a + 3] ~= '0', skip = ARGV[a + 3] == '2' }
    k = k + 1; a = a + 4
  end
end

-- admit.lua's dedupe set for these limits
local longest_exact, horizon = nil, 0
for _, l in ipairs(limits) do
  if l.precision == 0 and not l.shadow and (longest_exact == nil or l.window > longest_exact.window) then
    longest_exact = l
  end
  horizon = math.max(horizon, l.window + l.precision)
end
local dedupe = seen_key
if longest_exact and longest_exact.window >= horizon then dedupe = longest_exact.key end
if tonumber(redis.call('ZSCORE', dedupe, member)) ~= admitted then return { 0 } end

-- Only this admission: a member scored at another time is another admission of the same call.
local function remove_member(key)
  local score = redis.call('ZSCORE', key, member)
  if not score or tonumber(score) ~= admitted then return 0 end
  redis.call('ZREM', key, member)
  for w = 2, weight do redis.call('ZREM', key, member .. '#' .. w) end
  return 1
end

local removed, done = 0, {}
for _, l in ipairs(limits) do
  if l.skip then
    -- the call was never recorded in this shadow window
  elseif not done[l.key] and l.precision == 0 then
    removed = removed + remove_member(l.key)
  elseif not done[l.key] then
    -- admit.lua added the weight to bucket floor(admitted / precision) and to its block; gone if pruned.
    local b = math.floor(admitted / l.precision)
    local c = tonumber(redis.call('HGET', l.key, id(b)))
    if c and c >= weight then
      if c == weight then redis.call('HDEL', l.key, id(b)) else redis.call('HINCRBY', l.key, id(b), -weight) end
      local g = 'g' .. id(math.floor(b / K))
      if redis.call('HINCRBY', l.key, g, -weight) <= 0 then redis.call('HDEL', l.key, g) end
      if redis.call('HINCRBY', l.key, 'n', -weight) <= 0 then redis.call('UNLINK', l.key) end
      removed = removed + 1
    end
  end
  done[l.key] = true
end
remove_member(seen_key)
return { removed }

-- revoke.lua: undo one admission made by admit.lua whose decision the gateway never used (the reply came
-- after the gateway's timeout and the call was refused), so the call counts nowhere. Same KEYS and ARGV as
-- admit.lua without its lease part, plus ARGV[#ARGV] = admitted_us, the now_us of that admission's reply.
-- Reply: {removed}, the number of window keys the call was removed from.
--
-- Idempotent: admit.lua records every admission in a dedupe set at its time: the enforced windows' (the longest
-- enforced exact window when it is the longest horizon, else the seen key), and each shadow limit's own (its
-- window when exact and as long as the enforced horizon, else its own seen key), which holds the member only if
-- that shadow window recorded the call.
-- Only while a set holds the member at admitted_us is the admission still there to undo in its windows; a revoke run
-- twice, or one of an admission since replaced by a newer one of the same call, finds another score or none and
-- removes nothing.

local member = ARGV[1]
local weight = tonumber(ARGV[2])
local admitted = tonumber(ARGV[#ARGV])
local id = function(n) return string.format('%d', n) end
local K = 32 -- admit.lua's buckets per block

local limits = {}
local a, k = 4, 1
for s = 1, tonumber(ARGV[3]) do
  k = k + 1 -- the scope's block key
  local n = tonumber(ARGV[a]); a = a + 1
  for l = 1, n do
    local limit = { key = KEYS[k], window = tonumber(ARGV[a]) * 1000, precision = tonumber(ARGV[a + 2]) * 1000,
      shadow = ARGV[a + 3] == '1' }
    k = k + 1; a = a + 4
    if limit.shadow then limit.seen = KEYS[k]; k = k + 1 end
    limits[#limits + 1] = limit
  end
end
local seen_key = KEYS[k]

-- Whether `key` holds this admission: a member scored at another time is another admission of the same call.
local function holds(key)
  local score = redis.call('ZSCORE', key, member)
  return score and tonumber(score) == admitted
end

local function remove_member(key)
  if not holds(key) then return 0 end
  redis.call('ZREM', key, member)
  for w = 2, weight do redis.call('ZREM', key, member .. '#' .. w) end
  return 1
end

-- admit.lua added the weight to bucket floor(admitted / precision) and to its block; gone if pruned.
local function remove_from_buckets(l)
  local b = math.floor(admitted / l.precision)
  local c = tonumber(redis.call('HGET', l.key, id(b)))
  if not c or c < weight then return 0 end
  if c == weight then redis.call('HDEL', l.key, id(b)) else redis.call('HINCRBY', l.key, id(b), -weight) end
  local g = 'g' .. id(math.floor(b / K))
  if redis.call('HINCRBY', l.key, g, -weight) <= 0 then redis.call('HDEL', l.key, g) end
  if redis.call('HINCRBY', l.key, 'n', -weight) <= 0 then redis.call('UNLINK', l.key) end
  return 1
end

-- admit.lua's dedupe set for the enforced limits
local longest_exact, horizon = nil, 0
for _, l in ipairs(limits) do
  if not l.shadow then
    if l.precision == 0 and (longest_exact == nil or l.window > longest_exact.window) then longest_exact = l end
    horizon = math.max(horizon, l.window + l.precision)
  end
end
local dedupe = horizon > 0 and seen_key or nil
if longest_exact and longest_exact.window >= horizon then dedupe = longest_exact.key end
local enforced = dedupe ~= nil and holds(dedupe)

local removed, done = 0, {}
for _, l in ipairs(limits) do
  if done[l.key] or (not l.shadow and not enforced) then
    -- recorded once per key; or the enforced windows hold this admission no more
  elseif not l.shadow or (l.precision == 0 and l.window >= horizon) then
    -- an enforced window, or a shadow window that is its own dedupe set
    if l.precision == 0 then removed = removed + remove_member(l.key) else removed = removed + remove_from_buckets(l) end
  elseif holds(l.seen) then
    if l.precision == 0 then removed = removed + remove_member(l.key) else removed = removed + remove_from_buckets(l) end
    remove_member(l.seen)
  end
  done[l.key] = true
end
if enforced then remove_member(seen_key) end
return { removed }

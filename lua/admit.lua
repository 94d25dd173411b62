-- admit.lua: admit one call against every limit of every scope at once, or refuse it without
-- recording anything, so that only admitted calls use capacity. Redis TIME is the clock.
--
-- KEYS: for each scope in order, its block key, then one key per limit of that scope; last, the peer's
--       seen key (members of admitted calls, used when a precision window outlasts every exact window).
--       Optionally then one lease key per scope (concurrent calls). All keys of one call share one hash tag.
-- ARGV: member, weight, scope count, then for each scope: its limit count n, then n triples
--       window_ms, max, precision_ms (0 = exact sliding log, else sub-buckets of that length);
--       optionally then lease_member, lease_ms, and per scope its max-concurrent (0 = none).
-- Reply: {admitted 1|0, retry_after_ms, scope (1-based, 0 = none), limit (1-based, 0 = none),
--         remaining (-1 = no limits), now_us, reason "ok"|"duplicate"|"limit"|"blocked"|"too-heavy"|"concurrent"}

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local member = ARGV[1]
local weight = tonumber(ARGV[2])

local function id(n) return string.format('%d', n) end

local scope_count = tonumber(ARGV[3])
local blocks, limits = {}, {}
local a, k = 4, 1
for s = 1, scope_count do
  blocks[s] = KEYS[k]; k = k + 1
  local n = tonumber(ARGV[a]); a = a + 1
  for l = 1, n do
    limits[#limits + 1] = { scope = s, index = l, key = KEYS[k], window_ms = tonumber(ARGV[a]),
      window = tonumber(ARGV[a]) * 1000, max = tonumber(ARGV[a + 1]), precision = tonumber(ARGV[a + 2]) * 1000 }
    k = k + 1; a = a + 3
  end
end
local seen_key = KEYS[k]

-- Leases: a sorted set per capped scope, member = lease_member (call and owner instance), score = the
-- lease's deadline in ms; a lease past its deadline (its owner stopped renewing) no longer counts.
local lease_member, lease_ms, leases = ARGV[a], tonumber(ARGV[a + 1]), {}
if lease_member then
  for s = 1, scope_count do
    local cap = tonumber(ARGV[a + 1 + s])
    if cap > 0 then leases[#leases + 1] = { scope = s, key = KEYS[k + s], cap = cap } end
  end
end
local now_ms = math.floor(now / 1000)

-- The first capped scope that is full; a call holding its lease already (a re-offer) is not counted twice.
local function full_scope()
  for _, l in ipairs(leases) do
    redis.call('ZREMRANGEBYSCORE', l.key, '-inf', '(' .. now_ms)
    if not redis.call('ZSCORE', l.key, lease_member) and redis.call('ZCARD', l.key) >= l.cap then return l end
  end
end

local function take_leases()
  for _, l in ipairs(leases) do
    redis.call('ZADD', l.key, now_ms + lease_ms, lease_member)
    if redis.call('PTTL', l.key) < lease_ms then redis.call('PEXPIRE', l.key, lease_ms) end
  end
end

for s, key in ipairs(blocks) do
  local ttl = redis.call('PTTL', key)
  if ttl > 0 then return { 0, ttl, s, 0, 0, now, 'blocked' } end
end

-- Exact window: a call admitted at time x counts while x >= now - window.
local function exact_count(l)
  redis.call('ZREMRANGEBYSCORE', l.key, '-inf', '(' .. id(now - l.window))
  return redis.call('ZCARD', l.key)
end

-- The excess-th oldest call leaves the window one microsecond after its time + window.
local function exact_retry(l, excess)
  local e = redis.call('ZRANGE', l.key, excess - 1, excess - 1, 'WITHSCORES')
  return tonumber(e[2]) + l.window + 1 - now
end

-- Sub-bucket window: a hash of bucket id -> count, plus 'n' (sum) and 'o' (oldest bucket kept, normally
-- the oldest non-empty one). Every bucket touching [now - window, now] counts in full, so the window errs
-- towards refusing.
local function bucketed_count(l)
  local oldest = tonumber(redis.call('HGET', l.key, 'o'))
  if not oldest then return 0 end
  local first = math.floor((now - l.window) / l.precision)
  if first - oldest > l.window / l.precision + 1 then
    redis.call('DEL', l.key)
    return 0
  end
  local n = tonumber(redis.call('HGET', l.key, 'n'))
  if oldest < first then
    -- Drop stale buckets and move 'o' on to the oldest bucket left. 'o' only moves forward, so each
    -- bucket id is visited once in the key's life, not once per call.
    local b, last = oldest, math.floor(now / l.precision)
    while b <= last do
      local c = redis.call('HGET', l.key, id(b))
      if c and b >= first then break end
      if c then n = n - tonumber(c); redis.call('HDEL', l.key, id(b)) end
      b = b + 1
    end
    if b > last then
      redis.call('DEL', l.key)
      return 0
    end
    oldest = b
    redis.call('HSET', l.key, 'o', id(b), 'n', n)
  end
  l.oldest = oldest
  return n
end

-- Walk buckets from the oldest until enough capacity leaves; bucket b leaves at (b + 1) * precision + window.
-- A call of weight 1 at a full window needs only the oldest bucket: one HGET, whatever the window's size.
local function bucketed_retry(l, excess)
  local freed = 0
  for b = l.oldest, math.floor(now / l.precision) do
    freed = freed + (tonumber(redis.call('HGET', l.key, id(b))) or 0)
    if freed >= excess then return (b + 1) * l.precision + l.window - now end
  end
  return l.window
end

local remaining = nil
local refused, refused_retry = nil, 0
for _, l in ipairs(limits) do
  if l.precision == 0 then l.count = exact_count(l) else l.count = bucketed_count(l) end
  if weight > l.max then return { 0, -1, l.scope, l.index, 0, now, 'too-heavy' } end
  local left = l.max - l.count - weight
  if left < 0 then
    local retry
    if l.precision == 0 then retry = exact_retry(l, -left) else retry = bucketed_retry(l, -left) end
    if retry > refused_retry then refused, refused_retry = l, retry end
  elseif remaining == nil or left < remaining then
    remaining = left
  end
end

-- A retransmission or failover attempt of an admitted call (same member) counts once, for as long as any
-- window may still count it: a precision window holds a call up to window + precision. The longest exact
-- window keeps members (pruned above) that long if it is the longest; else the seen key keeps them.
local longest_exact, horizon = nil, 0
for _, l in ipairs(limits) do
  if l.precision == 0 and (longest_exact == nil or l.window > longest_exact.window) then longest_exact = l end
  horizon = math.max(horizon, l.window + l.precision)
end
local seen = nil
if longest_exact and longest_exact.window >= horizon then
  seen = longest_exact.key
elseif horizon > 0 then
  seen = seen_key
  redis.call('ZREMRANGEBYSCORE', seen, '-inf', '(' .. id(now - horizon))
end
if seen and redis.call('ZSCORE', seen, member) then
  local full = full_scope()
  if full then return { 0, 0, full.scope, 0, 0, now, 'concurrent' } end
  take_leases()
  -- nothing is recorded, so what is left is max - count (not less this call's weight), over every limit
  local left = nil
  for _, l in ipairs(limits) do left = math.min(left or l.max, math.max(l.max - l.count, 0)) end
  return { 1, 0, 0, 0, left, now, 'duplicate' }
end

if refused then
  return { 0, math.ceil(refused_retry / 1000), refused.scope, refused.index, 0, now, 'limit' }
end

local full = full_scope()
if full then return { 0, 0, full.scope, 0, 0, now, 'concurrent' } end
take_leases()

-- Limits of one scope with the same window and precision share a key (and count the same calls): record once.
local recorded = {}
for _, l in ipairs(limits) do
  if not recorded[l.key] and l.precision == 0 then
    redis.call('ZADD', l.key, now, member)
    for w = 2, weight do redis.call('ZADD', l.key, now, member .. '#' .. w) end
    redis.call('PEXPIRE', l.key, l.window_ms + 1)
  elseif not recorded[l.key] then
    local b = id(math.floor(now / l.precision))
    redis.call('HINCRBY', l.key, b, weight)
    redis.call('HINCRBY', l.key, 'n', weight)
    redis.call('HSETNX', l.key, 'o', b)
    redis.call('PEXPIRE', l.key, l.window_ms + l.precision / 1000)
  end
  recorded[l.key] = true
end
if seen == seen_key then
  redis.call('ZADD', seen, now, member)
  redis.call('PEXPIRE', seen, math.ceil(horizon / 1000) + 1)
end
return { 1, 0, 0, 0, remaining or -1, now, 'ok' }

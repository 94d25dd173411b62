-- admit.lua: admit one call against every limit of every scope at once, or refuse it without
-- recording anything, so that only admitted calls use capacity. Redis TIME is the clock. A shadow limit
-- (or cap) refuses nothing: it is reported when it would have refused, and records the call only where it
-- would have if enforced (the call admitted, and itself not over).
--
-- KEYS: for each scope in order, its block key, then one key per limit of that scope; last, the peer's
--       seen key (members of admitted calls, used when a precision window outlasts every exact window).
--       Optionally then one lease key per scope (concurrent calls). All keys of one call share one hash tag.
-- ARGV: member, weight, scope count, then for each scope: its limit count n, then n quadruples
--       window_ms, max, precision_ms (0 = exact sliding log, else sub-buckets of that length), mode (0 enforce,
--       1 shadow); optionally then lease_member, lease_ms, and per scope its max-concurrent (0 = none) and
--       that cap's mode.
-- Reply: {admitted 1|0, retry_after_ms, scope (1-based, 0 = none), limit (1-based, 0 = none),
--         remaining (-1 = no limits), now_us, reason "ok"|"duplicate"|"limit"|"blocked"|"too-heavy"|"concurrent",
--         would_refuse: the shadow limits over, "scope.limit" joined by spaces (limit 0: the scope's cap), or ""}

-- The clock: Redis TIME, or a test's time when the key <prefix>:{<tag>}:test-clock beside KEYS[1] holds one
-- (microseconds; set by tests and by what-if on its scratch server, see lua/README.md). Key TTLs run on Redis's
-- real clock: on a test clock, which runs apart from it, a window's key or lease set keeps at least min_ttl
-- (10 min) of it.
local function clock(key)
  local test = redis.call('GET', string.match(key, '^.-}') .. ':test-clock')
  if test then return tonumber(test), 600000 end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2]), 0
end
local now, min_ttl = clock(KEYS[1])
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
      window = tonumber(ARGV[a]) * 1000, max = tonumber(ARGV[a + 1]), precision = tonumber(ARGV[a + 2]) * 1000,
      shadow = ARGV[a + 3] == '1' }
    k = k + 1; a = a + 4
  end
end
local seen_key = KEYS[k]

-- Leases: a sorted set per capped scope, member = lease_member (call and owner instance), score = the
-- lease's deadline in ms; a lease past its deadline (its owner stopped renewing) no longer counts.
local lease_member, lease_ms, leases = ARGV[a], tonumber(ARGV[a + 1]), {}
if lease_member then
  for s = 1, scope_count do
    local cap = tonumber(ARGV[a + 2 * s])
    if cap > 0 then
      leases[#leases + 1] = { scope = s, key = KEYS[k + s], cap = cap, shadow = ARGV[a + 2 * s + 1] == '1' }
    end
  end
end
local now_ms = math.floor(now / 1000)

-- The first enforced capped scope that is full; a call holding its lease already is not counted twice. A full
-- shadow cap is marked over instead (its lease is not taken, as if it had refused the call).
local function full_scope()
  for _, l in ipairs(leases) do
    redis.call('ZREMRANGEBYSCORE', l.key, '-inf', '(' .. now_ms)
    local full = not redis.call('ZSCORE', l.key, lease_member) and redis.call('ZCARD', l.key) >= l.cap
    if full and not l.shadow then return l end
    l.over = full
  end
end

local function take_leases()
  for _, l in ipairs(leases) do
    if not l.over then redis.call('ZADD', l.key, now_ms + lease_ms, lease_member) end
    local ttl = math.max(lease_ms, min_ttl)
    if redis.call('PTTL', l.key) < ttl then redis.call('PEXPIRE', l.key, ttl) end
  end
end

for s, key in ipairs(blocks) do
  local ttl = redis.call('PTTL', key)
  if ttl > 0 then return { 0, ttl, s, 0, 0, now, 'blocked', '' } end
end

-- A sorted set of calls (score = time): drop those older than `from`, at most 64 per call (a quiet spell can
-- leave many: later calls drop the rest, and the whole key goes at once when none is left). Returns how many
-- stale entries are left, all ranked before the live ones.
local function prune_log(key, from)
  local stale = redis.call('ZCOUNT', key, '-inf', '(' .. id(from))
  if stale == 0 then return 0 end
  if stale >= redis.call('ZCARD', key) then
    redis.call('UNLINK', key)
    return 0
  end
  redis.call('ZREMRANGEBYRANK', key, 0, math.min(stale, 64) - 1)
  return stale - math.min(stale, 64)
end

-- Exact window: a call admitted at time x counts while x >= now - window. Pruned once per key (limits of the
-- same window share it).
local stale_left = {}
local function exact_count(l)
  stale_left[l.key] = stale_left[l.key] or prune_log(l.key, now - l.window)
  l.stale = stale_left[l.key]
  return redis.call('ZCARD', l.key) - l.stale
end

-- The excess-th oldest call leaves the window one microsecond after its time + window.
local function exact_retry(l, excess)
  local e = redis.call('ZRANGE', l.key, l.stale + excess - 1, l.stale + excess - 1, 'WITHSCORES')
  return tonumber(e[2]) + l.window + 1 - now
end

-- Precision window: a hash of bucket id -> count (bucket = floor(time / precision)), 'g<k>' -> the sum of the
-- K buckets of block k (ids k*K .. k*K+K-1), 'n' -> the sum of all buckets, 'o' -> no bucket is older.
-- Every bucket touching [now - window, now] counts in full, so the window errs towards refusing. Block sums
-- let a call step over empty stretches and whole blocks: whatever the hash holds, one call reads at most 3W + 1
-- block sums and 3K buckets and deletes at most D blocks (config allows at most K * (W - 2) buckets per window).
local K, W, D = 32, 66, 2
local function blk(b) return math.floor(b / K) end

-- The counts of fields prefix..id for id = from..to (absent = 0), in one HMGET.
local function counts(key, prefix, from, to)
  if to < from then return {} end
  local f = {}
  for i = from, to do f[#f + 1] = prefix .. id(i) end
  local r = redis.call('HMGET', key, unpack(f))
  for i = 1, #r do r[i] = tonumber(r[i]) or 0 end
  return r
end

-- Count the buckets from 'first' on, and delete the stale ones before it: whole blocks by their sums (the oldest
-- D non-empty ones per call; later calls delete the rest), then the stale part of first's block. 'n' and the
-- block sums stay the sums of the buckets present. If more than W blocks are stale and the blocks left unread
-- are not all empty, those still count (l.cut): never fewer calls counted than admitted, and later calls catch
-- up W blocks at a time.
local function bucketed_count(l)
  local state = redis.call('HMGET', l.key, 'o', 'n')
  local o, n = tonumber(state[1]), tonumber(state[2]) or 0
  l.first = math.floor((now - l.window) / l.precision)
  if not o or o >= l.first then return n end
  local g0, gf = blk(o), blk(l.first)
  local last = math.min(gf - 1, g0 + W - 1)
  l.cut = last < gf - 1
  local sums, stale = counts(l.key, 'g', g0, last), 0
  for _, c in ipairs(sums) do stale = stale + c end
  if l.cut and n - stale + weight > l.max then
    -- Counting them would refuse the call; they may all be empty: then what is not stale lies in the W + 1
    -- blocks from first's on, and the count (and Retry-After) are exact.
    local inside = 0
    for _, c in ipairs(counts(l.key, 'g', gf, gf + W)) do inside = inside + c end
    l.cut = stale + inside < n
  end
  local lo, part, part_sum = math.max(o, gf * K), {}, 0
  if not l.cut then
    part = counts(l.key, '', lo, l.first - 1)
    for _, c in ipairs(part) do part_sum = part_sum + c end
    if stale + part_sum >= n then
      redis.call('UNLINK', l.key)
      return 0
    end
  end
  local count, deleted, next_o = n - stale - part_sum, 0, nil
  for i, c in ipairs(sums) do
    local g = g0 + i - 1
    if c > 0 and deleted == D then next_o = g * K; break end
    if c > 0 then
      local f = { 'g' .. id(g) }
      for b = math.max(o, g * K), g * K + K - 1 do f[#f + 1] = id(b) end
      redis.call('HDEL', l.key, unpack(f))
      n, deleted = n - c, deleted + 1
    end
  end
  if not next_o and l.cut then next_o = (last + 1) * K end
  if not next_o then
    if part_sum > 0 then
      local f = {}
      for i, c in ipairs(part) do if c > 0 then f[#f + 1] = id(lo + i - 1) end end
      redis.call('HDEL', l.key, unpack(f))
      if redis.call('HINCRBY', l.key, 'g' .. id(gf), -part_sum) <= 0 then redis.call('HDEL', l.key, 'g' .. id(gf)) end
      n = n - part_sum
    end
    next_o = l.first
  end
  redis.call('HSET', l.key, 'o', id(next_o), 'n', n)
  return count
end

-- Buckets leave in id order, bucket b at (b + 1) * precision + window. Walk from 'first': its block's
-- buckets, then block sums, then the buckets of the block in which enough has left. Beyond that (a walk cut
-- short, buckets ahead of the clock after it stepped back) the key's TTL, by when every bucket has left.
local function bucketed_retry(l, excess)
  local freed, gf = 0, blk(l.first)
  local function scan(from, to)
    for i, c in ipairs(counts(l.key, '', from, to)) do
      freed = freed + c
      if freed >= excess then return from + i - 1 end
    end
  end
  local b = not l.cut and scan(l.first, gf * K + K - 1)
  if not l.cut and not b then
    for i, c in ipairs(counts(l.key, 'g', gf + 1, gf + W)) do
      if freed + c >= excess then b = scan((gf + i) * K, (gf + i) * K + K - 1); break end
      freed = freed + c
    end
  end
  if b then return (b + 1) * l.precision + l.window - now end
  return math.max(redis.call('PTTL', l.key) * 1000, l.window + l.precision)
end

-- A shadow limit is counted as if enforced; over its max it is only marked (l.over), and takes no part in
-- refusing, Retry-After or remaining.
local remaining = nil
local refused, refused_retry = nil, 0
for _, l in ipairs(limits) do
  if l.precision == 0 then l.count = exact_count(l) else l.count = bucketed_count(l) end
  if weight > l.max and not l.shadow then return { 0, -1, l.scope, l.index, 0, now, 'too-heavy', '' } end
  local left = l.max - l.count - weight
  if l.shadow then
    l.over = left < 0
  elseif left < 0 then
    local retry
    if l.precision == 0 then retry = exact_retry(l, -left) else retry = bucketed_retry(l, -left) end
    if retry > refused_retry then refused, refused_retry = l, retry end
  elseif remaining == nil or left < remaining then
    remaining = left
  end
end

-- A copy of an admitted call (same member: Call-ID, From tag, CSeq) is refused for as long as any window may
-- still count the call: a precision window holds a call up to window + precision. The longest enforced exact
-- window keeps members (pruned above) that long if it is the longest; else the seen key keeps them. (A shadow
-- window does not hold every admitted call.)
local longest_exact, horizon = nil, 0
for _, l in ipairs(limits) do
  if l.precision == 0 and not l.shadow and (longest_exact == nil or l.window > longest_exact.window) then
    longest_exact = l
  end
  horizon = math.max(horizon, l.window + l.precision)
end
local seen, since = nil, nil
if longest_exact and longest_exact.window >= horizon then
  seen, since = longest_exact.key, now - longest_exact.window
elseif horizon > 0 then
  seen, since = seen_key, now - horizon
  prune_log(seen, since)
end
local seen_at = seen and tonumber(redis.call('ZSCORE', seen, member))
if seen_at and seen_at >= since then
  -- a merged request: not admitted again, nothing recorded, no lease; what is left is max - count
  local left = -1
  for _, l in ipairs(limits) do
    if not l.shadow then left = math.max(math.min(left < 0 and l.max or left, l.max - l.count), 0) end
  end
  return { 0, 0, 0, 0, left, now, 'duplicate', '' }
end

-- The shadow limits and caps that would have refused the call, as "scope.limit" (limit 0: the cap).
local function would_refuse()
  local over = {}
  for _, l in ipairs(limits) do if l.over then over[#over + 1] = l.scope .. '.' .. l.index end end
  for _, l in ipairs(leases) do if l.over then over[#over + 1] = l.scope .. '.0' end end
  return table.concat(over, ' ')
end

if refused then
  return { 0, math.ceil(refused_retry / 1000), refused.scope, refused.index, 0, now, 'limit', would_refuse() }
end

local full = full_scope()
if full then return { 0, 0, full.scope, 0, 0, now, 'concurrent', would_refuse() } end
take_leases()

-- Limits of one scope with the same window and precision share a key (and count the same calls): record once.
-- A shadow limit over its max records nothing (enforced, it would have refused the call); it shares a key only
-- with shadow limits of the same max (trunkgate's KeyLayout), which are over together.
local recorded = {}
for _, l in ipairs(limits) do
  if l.over or recorded[l.key] then
    -- nothing to record here
  elseif l.precision == 0 then
    redis.call('ZADD', l.key, now, member)
    for w = 2, weight do redis.call('ZADD', l.key, now, member .. '#' .. w) end
    redis.call('PEXPIRE', l.key, math.max(l.window_ms + 1, min_ttl))
  else
    local b = math.floor(now / l.precision)
    redis.call('HINCRBY', l.key, id(b), weight)
    redis.call('HINCRBY', l.key, 'g' .. id(blk(b)), weight)
    redis.call('HINCRBY', l.key, 'n', weight)
    -- 'o' moves back too when the clock stepped back, so these buckets are pruned in their turn
    local o = tonumber(redis.call('HGET', l.key, 'o'))
    if not o or b < o then redis.call('HSET', l.key, 'o', id(b)) end
    redis.call('PEXPIRE', l.key, math.max(l.window_ms + l.precision / 1000, min_ttl))
  end
  recorded[l.key] = true
end
if seen == seen_key then
  redis.call('ZADD', seen, now, member)
  redis.call('PEXPIRE', seen, math.max(math.ceil(horizon / 1000) + 1, min_ttl))
end
return { 1, 0, 0, 0, remaining or -1, now, 'ok', would_refuse() }

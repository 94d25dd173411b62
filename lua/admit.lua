-- admit.lua: admit one call against every enforced limit of every scope at once, or refuse it without
-- recording anything, so that only admitted calls use capacity. Redis TIME is the clock. A shadow limit refuses
-- nothing and touches no enforced key, horizon or dedupe: it keeps a window (and, at a precision, a dedupe set) of
-- its own, counts a call there exactly as it would if enforced, and is reported when it would refuse. A shadow cap
-- is reported when full and then takes no lease.
--
-- KEYS: for each scope in order, its block key, then per limit of that scope its key, followed, for a shadow limit,
--       by that limit's own seen key; last, the peer's seen key (members of admitted calls, used when a precision
--       window outlasts every enforced exact window). Optionally then one lease key per scope
--       (concurrent calls). All keys of one call share one hash tag.
-- ARGV: member, weight, scope count, then for each scope: its limit count n, then n quadruples
--       window_ms, max, precision_ms (0 = exact sliding log, else sub-buckets of that length), mode (0 enforce,
--       1 shadow); optionally then lease_member, lease_ms, and per scope its max-concurrent (0 = none) and
--       that cap's mode.
-- Reply: {admitted 1|0, retry_after_ms, scope (1-based, 0 = none), limit (1-based, 0 = none),
--         remaining (-1 = no limits), now_us, reason "ok"|"duplicate"|"limit"|"blocked"|"too-heavy"|"concurrent",
--         would_refuse: the shadow limits over, "scope.limit" joined by spaces (limit 0: the scope's cap), or ""}

-- The clock, read once: Redis TIME, or a test's time when the key <prefix>:{<tag>}:test-clock beside KEYS[1] holds
-- one (microseconds; set by tests and by what-if on its scratch server, see lua/README.md). Key TTLs run on Redis's
-- real clock: on a test clock, which runs apart from it, a window's key or lease set keeps at least min_ttl
-- (10 min) of it. A script that runs this one and then pace.lua (admit-pace.lua) passes KEYS with time_us = false:
-- the reading of TIME is left there for pace.lua, so TIME is read once.
local function clock(key)
  local test = redis.call('GET', string.match(key, '^.-}') .. ':test-clock')
  if test then return tonumber(test), 600000 end
  local t = redis.call('TIME')
  local us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  if KEYS.time_us == false then KEYS.time_us = us end
  return us, 0
end
local now, min_ttl = clock(KEYS[1])
local member = ARGV[1]
local weight = tonumber(ARGV[2])

local function id(n) return string.format('%d', n) end
-- a block sum's field name
local function gid(n) return string.format('g%d', n) end

local scope_count = tonumber(ARGV[3])
local blocks, limits = {}, {}
local a, k = 4, 1
for s = 1, scope_count do
  blocks[s] = KEYS[k]; k = k + 1
  local n = tonumber(ARGV[a]); a = a + 1
  for l = 1, n do
    local limit = { scope = s, index = l, key = KEYS[k], window = tonumber(ARGV[a]) * 1000,
      max = tonumber(ARGV[a + 1]), precision = tonumber(ARGV[a + 2]) * 1000, shadow = ARGV[a + 3] == '1' }
    k = k + 1; a = a + 4
    if limit.shadow then limit.seen = KEYS[k]; k = k + 1 end
    limits[#limits + 1] = limit
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

-- a block key is usually absent: one EXISTS for a peer and its group, a PTTL each only when one is there
if #blocks == 1 or redis.call('EXISTS', unpack(blocks)) > 0 then
  for s, key in ipairs(blocks) do
    local ttl = redis.call('PTTL', key)
    if ttl > 0 then return { 0, ttl, s, 0, 0, now, 'blocked', '' } end
  end
end
for _, l in ipairs(limits) do
  if weight > l.max and not l.shadow then return { 0, -1, l.scope, l.index, 0, now, 'too-heavy', '' } end
end

-- The work of one decision is bounded as a whole, whatever its keys hold: at most `prune_left` stale entries of
-- sorted sets (windows, seen keys, lease sets) and `blocks_left` stale blocks of precision windows are deleted per
-- call, shared by all its keys; later calls delete the rest, and counts leave out what is still there.
local prune_left, blocks_left = 32, 2

-- A key lives at least `ms` more, and its expiry only ever moves later: after Redis's clock stepped back, entries
-- recorded ahead of the new clock keep the life they were given. When it must move, it moves to 1.5 x `ms`, so that
-- a key written at every call is refreshed about once per third of its life, not at every call (an idle key goes
-- within 1.5 x `ms`). A key this call created (`fresh`) has no expiry yet.
local function keep_for(key, ms, fresh)
  ms = math.max(ms, min_ttl)
  if fresh or redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, math.ceil(ms * 1.5)) end
end

-- A sorted set of calls or leases (score = time): drop those scored before `from`, within the budget (the whole key
-- at once when none is left). Returns its size (with `sized`, or when some were stale; else nil) and how many stale
-- entries are left, all ranked first.
local function prune_log(key, from, sized)
  local stale = redis.call('ZCOUNT', key, '-inf', '(' .. id(from))
  local card = (sized or stale > 0) and redis.call('ZCARD', key) or nil
  if stale == 0 then return card, 0 end
  if stale >= card then
    redis.call('UNLINK', key)
    return 0, 0
  end
  local dropped = math.min(stale, prune_left)
  if dropped > 0 then redis.call('ZREMRANGEBYRANK', key, 0, dropped - 1) end
  prune_left = prune_left - dropped
  return card - dropped, stale - dropped
end

-- Whether `set` holds the member at or after `from`.
local function holds(set, from)
  local at = tonumber(redis.call('ZSCORE', set, member))
  return at ~= nil and at >= from
end

-- The first enforced capped scope that is full; a call holding its lease already is not counted twice. A full
-- shadow cap is marked over instead (its lease is not taken, as if it had refused the call).
local function full_scope()
  for _, l in ipairs(leases) do
    local card, stale = prune_log(l.key, now_ms, true)
    local held = holds(l.key, now_ms)
    local full = not held and card - stale >= l.cap
    if full and not l.shadow then return l end
    l.over, l.fresh = full, card == 0
  end
end

local function take_leases()
  for _, l in ipairs(leases) do
    if not l.over then redis.call('ZADD', l.key, now_ms + lease_ms, lease_member) end
    keep_for(l.key, lease_ms, l.fresh and not l.over)
  end
end

-- Exact window: a call admitted at time x counts while x >= now - window.
local function exact_count(key_state, l)
  local card, stale = prune_log(l.key, now - l.window, true)
  key_state.stale, key_state.fresh = stale, card == 0
  return card - stale
end

-- The excess-th oldest call leaves the window one microsecond after its time + window.
local function exact_retry(l, excess)
  local e = redis.call('ZRANGE', l.key, l.stale + excess - 1, l.stale + excess - 1, 'WITHSCORES')
  return tonumber(e[2]) + l.window + 1 - now
end

-- Precision window: a hash of bucket id -> count (bucket = floor(time / precision)), 'g<k>' -> the sum of the
-- K buckets of block k (ids k*K .. k*K+K-1), 'n' -> the sum of all buckets, 'o' -> no bucket is older, 'z' -> no
-- bucket is newer (absent when unknown: a hash merged from another tag or written before 'z' came in), 'e' -> PIN.
-- Every bucket touching [now - window, now] counts in full, so the window errs towards refusing. Block sums
-- let a call step over empty stretches and whole blocks: whatever the hash holds, one call reads at most 3W + 1
-- block sums and 3K buckets per window (config allows at most K * (W - 2) buckets per window).
local K, W = 32, 66
local function blk(b) return math.floor(b / K) end
-- Redis keeps a small hash as a listpack, where each field read or written scans the whole hash (up to 512 fields by
-- default): fields per call would not bound the work. A value longer than hash-max-listpack-value (64 bytes by
-- default) makes the hash a hashtable, one field O(1), for good; 'e' holds one, set when the hash is created and
-- added, once, to a hash from before it (that one conversion reads the listpack once).
local PIN = string.rep('e', 128)

-- The counts of fields prefix..id for id = from..to (absent = 0; prefix '' or 'g'), in one HMGET. Block sums are
-- read CHUNK at a time where a call may need only the first few: a field named costs about what a command does.
local CHUNK = 16
local function counts(key, prefix, from, to)
  if to < from then return {} end
  local f = {}
  local name = prefix == 'g' and gid or id
  for i = from, to do f[#f + 1] = name(i) end
  local r = redis.call('HMGET', key, unpack(f))
  for i = 1, #r do r[i] = tonumber(r[i]) or 0 end
  return r
end

-- Count the buckets from 'first' on, and delete the stale ones before it: whole blocks by their sums (the oldest
-- non-empty ones, within the budget; later calls delete the rest), then the stale part of first's block. 'n' and
-- the block sums stay the sums of the buckets present. If more than W blocks are stale and the blocks left unread
-- are not all empty, those still count (ks.cut): never fewer calls counted than admitted, and later calls catch
-- up W blocks at a time. `max` is the smallest max of the limits counting in this key. ks.part: what the stale
-- part of first's block still holds (its block sum counts it).
local function bucketed_count(ks, l, max)
  local state = redis.call('HMGET', l.key, 'o', 'n', 'z', 'e')
  local o, n, z = tonumber(state[1]), tonumber(state[2]) or 0, tonumber(state[3])
  ks.first = math.floor((now - l.window) / l.precision)
  ks.o, ks.z, ks.fresh, ks.part = o, z, n == 0, 0
  local function drop()
    redis.call('UNLINK', l.key)
    ks.o, ks.z, ks.fresh = nil, nil, true
    return 0
  end
  -- a hash kept is made a hashtable before more than its state and one chunk of block sums are read
  local function pin()
    if n > 0 and not state[4] then redis.call('HSET', l.key, 'e', PIN); state[4] = PIN end
  end
  -- the newest bucket has left the window, so has every other
  if o and o < ks.first and z and z < ks.first then return drop() end
  if not o or o >= ks.first then pin(); return n end
  local g0, gf = blk(o), blk(ks.first)
  local last = math.min(gf - 1, g0 + W - 1)
  ks.cut = last < gf - 1
  -- the stale blocks' sums: a first chunk, then (the hash made a hashtable) the rest; once those read hold every
  -- bucket (a hash without 'z' after a quiet spell), the hash goes
  local sums, stale = {}, 0
  for _, range in ipairs({ { g0, math.min(g0 + CHUNK - 1, last) }, { g0 + CHUNK, last } }) do
    for _, c in ipairs(counts(l.key, 'g', range[1], range[2])) do sums[#sums + 1] = c; stale = stale + c end
    if stale >= n then return drop() end
    pin()
  end
  if ks.cut and n - stale + weight > max then
    -- Counting them would refuse the call; they may all be empty: then what is not stale lies in the W + 1
    -- blocks from first's on, and the count (and Retry-After) are exact.
    local inside = 0
    for _, c in ipairs(counts(l.key, 'g', gf, gf + W)) do inside = inside + c end
    ks.cut = stale + inside < n
  end
  local lo, part, part_sum = math.max(o, gf * K), {}, 0
  if not ks.cut then
    part = counts(l.key, '', lo, ks.first - 1)
    for _, c in ipairs(part) do part_sum = part_sum + c end
    if stale + part_sum >= n then return drop() end
  end
  local count, next_o = n - stale - part_sum, nil
  ks.part = part_sum
  for i, c in ipairs(sums) do
    local g = g0 + i - 1
    if c > 0 and blocks_left == 0 then next_o = g * K; break end
    if c > 0 then
      local f = { gid(g) }
      for b = math.max(o, g * K), g * K + K - 1 do f[#f + 1] = id(b) end
      redis.call('HDEL', l.key, unpack(f))
      n, blocks_left = n - c, blocks_left - 1
    end
  end
  if not next_o and ks.cut then next_o = (last + 1) * K end
  if not next_o then
    if part_sum > 0 then
      local f = {}
      for i, c in ipairs(part) do if c > 0 then f[#f + 1] = id(lo + i - 1) end end
      redis.call('HDEL', l.key, unpack(f))
      if redis.call('HINCRBY', l.key, gid(gf), -part_sum) <= 0 then redis.call('HDEL', l.key, gid(gf)) end
      n, ks.part = n - part_sum, 0
    end
    next_o = ks.first
  end
  redis.call('HSET', l.key, 'o', id(next_o), 'n', n)
  ks.o = next_o
  return count
end

-- Buckets leave in id order, bucket b at (b + 1) * precision + window: the one to find holds the excess-th oldest
-- call, and so also the (count - excess + 1)-th newest. Walk block sums from the nearer end, a chunk at a time: from
-- first's block (less its stale part) on, or back from the newest bucket's ('z') when that is nearer; then the
-- buckets of the block reached. Beyond W + 1 blocks (a walk cut short, buckets ahead of the clock after it stepped
-- back) the key's TTL, by when every bucket has left.
local function bucketed_retry(l, excess)
  local gf, ks = blk(l.first), l.state
  local function leaves(b) return (b + 1) * l.precision + l.window - now end
  local function walk(from, to, step, need)
    local seen = 0
    for lo = from, to, step * CHUNK do
      local hi = lo + step * (CHUNK - 1)
      if (hi - to) * step > 0 then hi = to end
      local sums = counts(l.key, 'g', math.min(lo, hi), math.max(lo, hi))
      for g = lo, hi, step do
        local c = sums[g - math.min(lo, hi) + 1]
        if g == gf then c = c - ks.part end
        if seen + c >= need then
          local b0, b1 = math.max(g * K, l.first), g * K + K - 1
          local buckets = counts(l.key, '', b0, b1)
          for b = (step > 0 and b0 or b1), (step > 0 and b1 or b0), step do
            seen = seen + buckets[b - b0 + 1]
            if seen >= need then return b end
          end
          return nil
        end
        seen = seen + c
      end
    end
  end
  local b
  if l.cut then
    b = nil
  elseif ks.z and blk(ks.z) - gf <= W and l.count - excess + 1 < excess then
    b = walk(blk(ks.z), gf, -1, l.count - excess + 1)
  else
    b = walk(gf, gf + W, 1, excess)
  end
  if b then return leaves(b) end
  return math.max(redis.call('PTTL', l.key) * 1000, l.window + l.precision)
end

-- Count every key once (limits of one scope with the same window and precision share it, and count the same
-- calls): the state of each key, shared by its limits.
local key_states, smallest_max = {}, {}
for _, l in ipairs(limits) do smallest_max[l.key] = math.min(smallest_max[l.key] or l.max, l.max) end
for _, l in ipairs(limits) do
  local ks = key_states[l.key]
  if not ks then
    ks = {}
    if l.precision == 0 then ks.count = exact_count(ks, l) else ks.count = bucketed_count(ks, l, smallest_max[l.key]) end
    key_states[l.key] = ks
  end
  l.state, l.count, l.stale, l.first, l.cut = ks, ks.count, ks.stale, ks.first, ks.cut
end

-- The enforced limits decide. A shadow limit takes no part in refusing, Retry-After or remaining.
local remaining = nil
local refused, refused_retry = nil, 0
for _, l in ipairs(limits) do
  local left = l.max - l.count - weight
  if l.shadow then
    -- weighed below, on its own
  elseif left < 0 then
    local retry
    if l.precision == 0 then retry = exact_retry(l, -left) else retry = bucketed_retry(l, -left) end
    if retry > refused_retry then refused, refused_retry = l, retry end
  elseif remaining == nil or left < remaining then
    remaining = left
  end
end

-- A copy of an admitted call (same member: Call-ID, From tag, CSeq) is refused for as long as any enforced window
-- may still count the call: a precision window holds a call up to window + precision. The longest enforced exact
-- window keeps members that long if it is the longest; else the seen key keeps them.
local longest_exact, horizon = nil, 0
for _, l in ipairs(limits) do
  if not l.shadow then
    if l.precision == 0 and (longest_exact == nil or l.window > longest_exact.window) then longest_exact = l end
    horizon = math.max(horizon, l.window + l.precision)
  end
end
local seen, since, seen_fresh = nil, nil, false
if longest_exact and longest_exact.window >= horizon then
  seen, since = longest_exact.key, now - longest_exact.window
elseif horizon > 0 then
  seen, since = seen_key, now - horizon
  seen_fresh = prune_log(seen, since) == 0
end

-- Each shadow limit as if it were enforced beside the enforced ones: a copy of a call it counted is not weighed
-- again for as long as it and the enforced limits would hold the call (the longer of `horizon` and its own window +
-- precision): in its own window when exact and that long, else in its own seen key. Any other call is over when
-- count + weight > max. A call it is not over for is recorded if no enforced limit or cap refuses it: admitted, or a
-- copy of an admitted call that this shadow limit did not count (enforced, it would have refused the first offer,
-- so this one would be weighed afresh).
for _, l in ipairs(limits) do
  if l.shadow then
    local ks = l.state
    if ks.copy == nil then
      ks.horizon = math.max(horizon, l.window + l.precision)
      if l.precision == 0 and l.window >= ks.horizon then
        ks.copy = holds(l.key, now - l.window)
      else
        ks.seen = l.seen
        ks.seen_fresh = prune_log(l.seen, now - ks.horizon) == 0
        ks.copy = holds(l.seen, now - ks.horizon)
      end
    end
    l.over = not ks.copy and l.count + weight > l.max
    ks.record = not ks.copy and not l.over
  end
end

-- Record the call in a sorted-set window or seen key, or in a precision window.
local function record_log(key, ttl_ms, fresh)
  redis.call('ZADD', key, now, member)
  for w = 2, weight do redis.call('ZADD', key, now, member .. '#' .. w) end
  keep_for(key, ttl_ms, fresh)
end
local function record_buckets(l)
  local ks, b = l.state, math.floor(now / l.precision)
  if ks.fresh then
    redis.call('HSET', l.key, id(b), weight, gid(blk(b)), weight, 'n', weight, 'o', id(b), 'z', id(b), 'e', PIN)
    return keep_for(l.key, (l.window + l.precision) / 1000, true)
  end
  redis.call('HINCRBY', l.key, id(b), weight)
  redis.call('HINCRBY', l.key, gid(blk(b)), weight)
  redis.call('HINCRBY', l.key, 'n', weight)
  -- 'o' moves back when the clock stepped back, so these buckets are pruned in their turn; 'z' only forward
  local marks = {}
  if not ks.o or b < ks.o then marks[#marks + 1] = 'o'; marks[#marks + 1] = id(b) end
  if (ks.fresh or ks.z) and (not ks.z or b > ks.z) then marks[#marks + 1] = 'z'; marks[#marks + 1] = id(b) end
  if #marks > 0 then redis.call('HSET', l.key, unpack(marks)) end
  keep_for(l.key, (l.window + l.precision) / 1000)
end
-- Record in the windows of `which` limits (each key once).
local function record(which)
  local done = {}
  for _, l in ipairs(limits) do
    if which(l) and not done[l.key] then
      if l.precision == 0 then record_log(l.key, l.window / 1000 + 1, l.state.fresh) else record_buckets(l) end
      if l.state.seen then record_log(l.seen, math.ceil(l.state.horizon / 1000) + 1, l.state.seen_fresh) end
      done[l.key] = true
    end
  end
end

-- The shadow limits and caps that would have refused the call, as "scope.limit" (limit 0: the cap); with
-- `counted`, the shadow windows not over record the call.
local function would_refuse(counted)
  if counted then record(function(l) return l.shadow and l.state.record end) end
  local over = {}
  for _, l in ipairs(limits) do if l.over then over[#over + 1] = l.scope .. '.' .. l.index end end
  for _, l in ipairs(leases) do if l.over then over[#over + 1] = l.scope .. '.0' end end
  return table.concat(over, ' ')
end

if seen and holds(seen, since) then
  -- a merged request: not admitted again, nothing recorded in the enforced windows, no lease; what is left is
  -- max - count
  local left = -1
  for _, l in ipairs(limits) do
    if not l.shadow then left = math.max(math.min(left < 0 and l.max or left, l.max - l.count), 0) end
  end
  return { 0, 0, 0, 0, left, now, 'duplicate', would_refuse(true) }
end

if refused then
  return { 0, math.ceil(refused_retry / 1000), refused.scope, refused.index, 0, now, 'limit', would_refuse(false) }
end

local full = full_scope()
if full then return { 0, 0, full.scope, 0, 0, now, 'concurrent', would_refuse(false) } end
take_leases()

record(function(l) return not l.shadow end)
if seen == seen_key then record_log(seen, math.ceil(horizon / 1000) + 1, seen_fresh) end
return { 1, 0, 0, 0, remaining or -1, now, 'ok', would_refuse(true) }

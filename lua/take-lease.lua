-- take-lease.lua: take one call's lease in a lease set (a carrier's calls in progress) unless the set is full.
-- Leases past their deadline no longer count: their owner stopped renewing them. Redis TIME is the clock.
--
-- KEYS[1]: the lease set (sorted set, member = call and owner instance, score = deadline in ms)
-- ARGV: lease_member, lease_ms, max
-- Reply: {taken 1|0, leases counted after the decision}

local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local member, lease_ms, max = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now_ms)
local count = redis.call('ZCARD', KEYS[1])
-- a call that holds its lease already (a retried attempt) keeps it and is not counted twice
if not redis.call('ZSCORE', KEYS[1], member) then
  if count >= max then return { 0, count } end
  count = count + 1
end
redis.call('ZADD', KEYS[1], now_ms + lease_ms, member)
if redis.call('PTTL', KEYS[1]) < lease_ms then redis.call('PEXPIRE', KEYS[1], lease_ms) end
return { 1, count }

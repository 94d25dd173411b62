-- take-lease.lua: take calls' leases in a lease set (a carrier's calls in progress; or a scope's leases that
-- lapsed while their owner could not reach Redis) while the set has room. Leases past their deadline no longer
-- count: their owner stopped renewing them. Redis TIME is the clock.
--
-- KEYS[1]: the lease set (sorted set, member = call and owner instance, score = deadline in ms)
-- ARGV: lease_member, lease_ms, max, then optionally more lease members, taken in that order
-- Reply: {leases taken or refreshed (1|0 for one member), leases counted after the decision}

local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease_ms, max = tonumber(ARGV[2]), tonumber(ARGV[3])

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now_ms)
local count = redis.call('ZCARD', KEYS[1])
local taken = 0
for i = 1, #ARGV do
  if i == 1 or i > 3 then
    local member = ARGV[i]
    -- a call that holds its lease already (a retried attempt) keeps it and is not counted twice
    local held = redis.call('ZSCORE', KEYS[1], member)
    if held or count < max then
      if not held then count = count + 1 end
      redis.call('ZADD', KEYS[1], now_ms + lease_ms, member)
      taken = taken + 1
    end
  end
end
if taken > 0 and redis.call('PTTL', KEYS[1]) < lease_ms then redis.call('PEXPIRE', KEYS[1], lease_ms) end
return { taken, count }

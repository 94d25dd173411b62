-- renew-leases.lua: an owner instance pushes the deadline of its leases in one lease set to now + lease_ms.
-- A lease that expired meanwhile (Redis was out of reach longer than lease_ms) is taken again: its call
-- is still up, so it counts again.
--
-- KEYS[1]: the lease set
-- ARGV: lease_ms, then the owner's lease members in that set
-- Reply: {leases taken again}

local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local deadline = now_ms + tonumber(ARGV[1])

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now_ms)
local again = 0
for i = 2, #ARGV do
  again = again + redis.call('ZADD', KEYS[1], deadline, ARGV[i])
end
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return { again }

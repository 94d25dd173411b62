-- count-leases.lua: calls in progress in a lease set: leases whose deadline has not passed. Read-only.
--
-- KEYS[1]: the lease set
-- Reply: {live leases}

local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return { redis.call('ZCOUNT', KEYS[1], now_ms, '+inf') }

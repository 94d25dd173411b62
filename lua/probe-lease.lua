-- probe-lease.lua: take or renew the lease to probe one carrier, so one gateway of the fleet probes it.
-- KEYS[1]: the carrier's lease key. ARGV[1]: this instance's id, ARGV[2]: the lease's TTL in ms.
-- Reply: {1} if this instance holds the lease now (taken or renewed), {0} if another one does.

local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then
  return { 0 }
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return { 1 }

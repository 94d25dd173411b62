-- release-leases.lua: a call ended (or left a carrier): drop its lease from each lease set given.
--
-- KEYS: lease sets, all in one hash slot (a peer's and its group's, or one carrier's)
-- ARGV[1]: the lease member
-- Reply: {lease sets it was removed from}

local removed = 0
for _, key in ipairs(KEYS) do
  removed = removed + redis.call('ZREM', key, ARGV[1])
end
return { removed }

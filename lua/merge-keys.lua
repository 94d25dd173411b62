-- merge-keys.lua: add what take-keys.lua took from a peer's old keys to its keys under the new hash tag,
-- where other gateways may already have counted calls: windows are merged, never overwritten.
--
-- KEYS: the same keys under the new tag, in the same order; ARGV: take-keys.lua's reply
-- Reply: {keys merged}
--   zset (exact window, seen key): ZADD NX (a call in both stays once, at its first admission)
--   hash (precision window): every field but 'o', 'z' and 'e' added (bucket counts, block sums 'g<k>', 'n'), 'o'
--     the older, 'z' (no bucket newer) the newer, or none when either hash had buckets and no 'z' (admit.lua then
--     does without it for this key), 'e' (admit.lua's encoding pin) set
--   string (block): set, with the longer of the two TTLs
-- Each key keeps the longer of its two TTLs.

local a, merged = 1, 0
for _, key in ipairs(KEYS) do
  local kind, pttl, n = ARGV[a], tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
  if kind == 'zset' then
    for i = a, a + n - 1, 2 do redis.call('ZADD', key, 'NX', ARGV[i + 1], ARGV[i]) end
  elseif kind == 'hash' then
    local here = redis.call('HMGET', key, 'n', 'z')
    local z = (tonumber(here[1]) or 0) == 0 and -1 or tonumber(here[2])
    local z_taken = nil
    for i = a, a + n - 1, 2 do
      if ARGV[i] == 'z' then
        z_taken = tonumber(ARGV[i + 1])
      elseif ARGV[i] == 'e' then
        redis.call('HSET', key, 'e', ARGV[i + 1])
      elseif ARGV[i] == 'o' then
        local o = tonumber(redis.call('HGET', key, 'o'))
        if not o or tonumber(ARGV[i + 1]) < o then redis.call('HSET', key, 'o', ARGV[i + 1]) end
      else
        redis.call('HINCRBY', key, ARGV[i], ARGV[i + 1])
      end
    end
    if z and z_taken then redis.call('HSET', key, 'z', string.format('%d', math.max(z, z_taken)))
    else redis.call('HDEL', key, 'z') end
  elseif kind == 'string' and pttl > 0 then
    redis.call('SET', key, ARGV[a], 'PX', math.max(pttl, redis.call('PTTL', key)))
  end
  if kind ~= 'none' then
    merged = merged + 1
    if pttl > 0 and redis.call('PTTL', key) < pttl then redis.call('PEXPIRE', key, pttl) end
  end
  a = a + n
end
return { merged }

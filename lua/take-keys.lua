-- take-keys.lua: read and delete a peer's keys under its old hash tag (a live reload moved the peer into
-- or out of a group), for merge-keys.lua to add under the new tag. Reading and deleting in one step means
-- that each admission is handed on by exactly one gateway, however many run the move.
--
-- KEYS: the peer's keys under the old tag (block key, window keys, seen key, lease set), after the keys to
--       read only (a group's window that was the peer's dedupe set: the group keeps it)
-- ARGV[1]: how many of the first KEYS to read only (absent = 0)
-- Reply (flat): per key: type ('none', 'zset', 'hash' or 'string'), PTTL, n, then n items
--       (zset: member, score, ...; hash: field, value, ...; string: its value)

local out = {}
local keep = tonumber(ARGV[1] or '0')
for i, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key).ok
  local items = {}
  if kind == 'zset' then
    items = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  elseif kind == 'hash' then
    items = redis.call('HGETALL', key)
  elseif kind == 'string' then
    items = { redis.call('GET', key) }
  end
  out[#out + 1] = kind
  out[#out + 1] = tostring(redis.call('PTTL', key))
  out[#out + 1] = tostring(#items)
  for _, item in ipairs(items) do out[#out + 1] = item end
  if i > keep then redis.call('DEL', key) end
end
return out

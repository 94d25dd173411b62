-- usage.lua: read-only view of admission windows for the admin API. Writes nothing, so reading a window
-- never changes an admission decision. Redis TIME is the clock, as in admit.lua.
--
-- KEYS: window keys as admit.lua names them (all of one hash tag)
-- ARGV[1]: list_max   how many of the newest calls to list per exact window (0 = none)
-- then per key: window_ms, precision_ms (0 = exact window)
-- Reply: { now_us, { used, calls }, ... } one pair per key, in KEYS order. used: units admitted in the
-- window as admit.lua would count them now; calls: for exact windows, newest first, member, admitted_us, ...

-- The clock: Redis TIME, or a test's time when the key <prefix>:{<tag>}:test-clock beside KEYS[1] holds one
-- (microseconds; set by tests and by what-if on its scratch server, see lua/README.md).
local function clock(key)
  local test = key and redis.call('GET', string.match(key, '^.-}') .. ':test-clock')
  if test then return tonumber(test) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local now = clock(KEYS[1])
local list_max = tonumber(ARGV[1])
local reply = { now }

for i, key in ipairs(KEYS) do
  local window = tonumber(ARGV[2 * i]) * 1000
  local precision = tonumber(ARGV[2 * i + 1]) * 1000
  local from = string.format('%d', now - window)
  local used = 0
  local calls = {}
  if precision == 0 then
    used = redis.call('ZCOUNT', key, from, '+inf')
    if list_max > 0 then
      calls = redis.call('ZREVRANGEBYSCORE', key, '+inf', from, 'WITHSCORES', 'LIMIT', 0, list_max)
    end
  else
    -- every bucket touching [now - window, now] counts in full, the stale ones not at all
    local first = math.floor((now - window) / precision)
    local fields = redis.call('HGETALL', key)
    for j = 1, #fields, 2 do
      local bucket = tonumber(fields[j]) -- nil for 'n', 'o' and the block sums 'g<k>'
      if bucket and bucket >= first then
        used = used + tonumber(fields[j + 1])
      end
    end
  end
  reply[i + 1] = { used, calls }
end
return reply

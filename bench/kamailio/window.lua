-- Rolling-window admission for the Kamailio reference proxy (bench/kamailio/kamailio.cfg): the same kind of
-- check trunkgate's lua/admit.lua makes for one window, a sorted set of the calls admitted in the last
-- ARGV[1] ms, scored by Redis TIME in microseconds.
-- KEYS[1] the peer's sliding log; ARGV[1] window (ms), ARGV[2] max calls in the window, ARGV[3] Call-ID.
-- Reply: 1 admitted (recorded), 0 refused.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]) * 1000)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1

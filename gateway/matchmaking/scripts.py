"""Quick play's timings and its Lua scripts: each change of a ticket's state is one script
on the ticket (all keys share the ``{mm}`` hash tag), the steps told in
``gateway.matchmaking``."""

MAX_PLAYERS = 8
# A ticket not refreshed for this long belongs to a searcher whose gateway is gone.
STALE_SECONDS = 5.0
# How long each step may take before any gateway settles it: the matcher's commit and
# offer after a claim, the home's taking an offer, the home's telling after taking it.
CLAIM_SECONDS = 15.0
OFFER_SECONDS = 5.0
DELIVER_SECONDS = 10.0
# A release whose table is not there yet (its matcher has not committed) is tried again,
# every RELEASE_RETRY_SECONDS for RELEASE_PATIENCE_SECONDS.
RELEASE_RETRY_SECONDS = 2.0
RELEASE_PATIENCE_SECONDS = 120.0
# The TTL of the shared sets (pending, releases, alive), refreshed by every write, and of an
# inbox; every gateway sweeps them, so the TTL only matters once every gateway is gone.
SHARED_TTL_SECONDS = 600
INBOX_TTL_SECONDS = 60
# After writing the seat, how long a cancel still releases it (one that crossed the message).
TELL_GRACE_SECONDS = 0.1
PROGRESS_SECONDS = 2.0
INBOX_SECONDS = 0.05
SETTLE_SECONDS = 1.0
SCAN = 200

# KEYS: the pool, the alive set, pending, then each member's ticket. ARGV: now, the stale
# limit, the table id, the deadline, the shared TTL, then the ids. Claims every member for
# the table, or none: only members still in the pool, waiting, and whose home is alive.
CLAIM_SCRIPT = """
for i = 6, #ARGV do
  if not redis.call('ZSCORE', KEYS[1], ARGV[i]) then return 0 end
  if redis.call('HGET', KEYS[i - 2], 'state') ~= 'waiting' then return 0 end
  local seen = redis.call('ZSCORE', KEYS[2], ARGV[i])
  if not seen or tonumber(seen) < tonumber(ARGV[1]) - tonumber(ARGV[2]) then return 0 end
end
for i = 6, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HSET', KEYS[i - 2], 'state', 'claimed', 'table', ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[i])
end
redis.call('EXPIRE', KEYS[3], ARGV[5])
return 1
"""

# KEYS: pending, releases, then each member's ticket and its home's inbox. ARGV: now, the
# table id, the deadline, the shared TTL, the inbox TTL, then each member's id, seat (the
# TakeSeatResponse) and release entry. Offers each member still claimed for the table its
# seat; queues the release of the others' seats and answers their entries (a member that
# cancelled while claimed for it is done with: its ticket goes).
OFFER_SCRIPT = """
local released = {}
for i = 0, (#ARGV - 5) / 3 - 1 do
  local sid, seat, entry = ARGV[6 + 3 * i], ARGV[7 + 3 * i], ARGV[8 + 3 * i]
  local ticket, inbox = KEYS[3 + 2 * i], KEYS[4 + 2 * i]
  local state = redis.call('HGET', ticket, 'state')
  local ours = redis.call('HGET', ticket, 'table') == ARGV[2]
  if state == 'claimed' and ours then
    redis.call('HSET', ticket, 'state', 'offered', 'offer', seat)
    redis.call('ZADD', KEYS[1], ARGV[3], sid)
    redis.call('RPUSH', inbox, sid)
    redis.call('EXPIRE', inbox, ARGV[5])
  else
    redis.call('ZADD', KEYS[2], ARGV[1], entry)
    released[#released + 1] = entry
    if state == 'cancelled' and ours then
      redis.call('DEL', ticket)
      redis.call('ZREM', KEYS[1], sid)
    end
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return released
"""

# KEYS: an inbox. Empties it, answering what it held.
TAKE_INBOX_SCRIPT = """
local ids = redis.call('LRANGE', KEYS[1], 0, -1)
if #ids > 0 then redis.call('DEL', KEYS[1]) end
return ids
"""

# KEYS: the ticket, pending. ARGV: the id, the deadline. The home takes its searcher's offer.
DELIVER_SCRIPT = """
if redis.call('HGET', KEYS[1], 'state') ~= 'offered' then return false end
redis.call('HSET', KEYS[1], 'state', 'delivering')
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return redis.call('HGET', KEYS[1], 'offer')
"""

# KEYS: the ticket, pending. ARGV: the id. The seated message was written: the seat stands
# (0: the offer was settled first, its seat released).
TOLD_SCRIPT = """
if redis.call('HGET', KEYS[1], 'state') ~= 'delivering' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'told')
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""

# The release entry of a ticket's seat: "table|player|game|rating|since" (RELEASE_FIELDS).
RELEASE_ENTRY = """
local function release_entry(ticket, now)
  local f = redis.call('HMGET', ticket, 'table', 'player', 'game', 'rating')
  return f[1] .. '|' .. f[2] .. '|' .. f[3] .. '|' .. f[4] .. '|' .. now
end
"""

# KEYS: the ticket, pending, releases, the player's one-search key. ARGV: the id, now, the
# key prefix (for the ticket's pool), the shared TTL, '1' to take back a told seat. A search
# ends: waiting, it leaves its pool; claimed, it is marked cancelled (its matcher, or the
# settling, releases the seat); offered or delivering (or told and taken back), its seat's
# release is queued and answered; told, its ticket is dropped.
END_SCRIPT = (
    RELEASE_ENTRY
    + """
if redis.call('GET', KEYS[4]) == ARGV[1] then redis.call('DEL', KEYS[4]) end
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'claimed' then
  redis.call('HSET', KEYS[1], 'state', 'cancelled')
  return false
end
if state == 'offered' or state == 'delivering' or (state == 'told' and ARGV[5] == '1') then
  local entry = release_entry(KEYS[1], ARGV[2])
  redis.call('ZADD', KEYS[3], ARGV[2], entry)
  redis.call('EXPIRE', KEYS[3], ARGV[4])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('DEL', KEYS[1])
  return entry
end
if state == 'waiting' then
  redis.call('ZREM', ARGV[3] .. ':pool:' .. redis.call('HGET', KEYS[1], 'pool'), ARGV[1])
end
if state ~= 'cancelled' then redis.call('DEL', KEYS[1]) end
return false
"""
)

# KEYS: the ticket, pending, releases. ARGV: the id, now, the key prefix, the shared TTL, the
# pool TTL. Settles an overdue ticket: a claimed or offered searcher's seat is released and
# it goes back to its pool, in its place (its home, if alive, waits on); a delivering or
# cancelled one's seat is released and the ticket dropped. Answers the release entry.
SETTLE_SCRIPT = (
    RELEASE_ENTRY
    + """
local state = redis.call('HGET', KEYS[1], 'state')
redis.call('ZREM', KEYS[2], ARGV[1])
if state ~= 'claimed' and state ~= 'offered' and state ~= 'delivering' and state ~= 'cancelled' then
  return false
end
local entry = release_entry(KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[2], entry)
redis.call('EXPIRE', KEYS[3], ARGV[4])
if state == 'claimed' or state == 'offered' then
  local pool = ARGV[3] .. ':pool:' .. redis.call('HGET', KEYS[1], 'pool')
  redis.call('HSET', KEYS[1], 'state', 'waiting')
  redis.call('HDEL', KEYS[1], 'offer', 'table')
  redis.call('ZADD', pool, redis.call('HGET', KEYS[1], 'since'), ARGV[1])
  redis.call('EXPIRE', pool, ARGV[5])
else
  redis.call('DEL', KEYS[1])
end
return entry
"""
)

# KEYS: the player's one-search key, the alive set. ARGV: the new id, now, the stale limit,
# the key's TTL. Takes the key over from a search whose home stopped refreshing it: answers
# the old id ('' if there was none), or false while the old search is alive.
TAKE_OVER_SCRIPT = """
local old = redis.call('GET', KEYS[1])
if old then
  local seen = redis.call('ZSCORE', KEYS[2], old)
  if seen and tonumber(seen) >= tonumber(ARGV[2]) - tonumber(ARGV[3]) then return false end
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[4])
return old or ''
"""

# KEYS: releases. ARGV: the entry, now, the lease. Leases a due release to this gateway.
LEASE_SCRIPT = """
local due = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not due or tonumber(due) > tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
return 1
"""

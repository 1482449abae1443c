"""Quick play: FindGame queues a player until a table seats them, and seats them only
together with telling them.

The queues live in Redis, so any gateway serves any searcher, and every gateway with a
searcher in a pool also runs the matching of that pool. A pool is one (game, rated,
options); each searcher's ticket holds its player, rating, wanted player counts, when it
joined, and its *home*: the gateway that holds its stream, the only one that can tell it
anything. Matching, oldest searcher first: the searchers whose ratings are within the
anchor's window (which widens with the anchor's wait) and whose player counts agree make a
table when they are enough; once the anchor has waited the bot-fill time (default 20 s),
its group is completed with bots of the rating nearest the people's.

Exactly once. A seat is made by one gateway (the matcher) and told by another (each
searcher's home); either may die, and a searcher may cancel, at any instant. So every
ticket moves through states, each change one Lua script on the ticket (all keys share one
hash tag), and a seat that its searcher is not told of is given to a bot at once:

1. ``waiting`` -> ``claimed``: the matcher's claim takes every member of a group from the
   pool, or none (only members still waiting and whose home is alive), and names the table
   it is about to make. Two gateways matching the same pool never both claim a searcher.
2. The matcher creates the table (that id) with the people seated, in one commit.
3. ``claimed`` -> ``offered``: for each member still claimed for this table, the seat is
   written in its ticket and its id pushed to its home's inbox; a member that is no longer
   claimed for it (it cancelled, or its claim was settled, below) has its seat released.
4. ``offered`` -> ``delivering``: the home takes the offer (only while the searcher's stream
   is open: a search that ended is no longer waited on), notes the table in the player's
   tables, and writes the seated message.
5. ``delivering`` -> ``told`` once the message is written. A write that fails releases the
   seat, and so does a cancel in the 100 ms the stream stays open after the message (the
   told seat is taken back): a cancel that crossed the message on the wire reaches the
   gateway after the write, and cannot be told from a client that read the message and
   closed, so a client reads the stream to its end (docs/clients.md). A home that dies in
   those 100 ms leaves the seat told: its client most likely read it.

A searcher whose stream ends untold (cancel, disconnect, its search timing out) ends its
ticket in one script: waiting, it leaves the pool; claimed, it is marked ``cancelled`` and
step 3 releases its seat; offered or delivering, its seat is released now. Whatever dies,
nothing is left to one gateway's memory: each claimed, offered or delivering ticket has a
deadline in ``pending`` (15 s to be offered, 5 s to be taken by its home, 10 s to be told),
and every gateway settles the overdue ones: an untold seat is released, and the searcher
goes back to the pool (its home, if alive, goes on waiting for it) or, once delivering or
cancelled, is dropped. So a matcher that dies after its commit leaves seats that are
released when their claims fall due, and a home that dies leaves offers that are released
when they fall due; a matcher slower than the deadline finds the claims settled at step 3
and releases the seats itself. A release is queued in ``releases`` before it is tried, and
every gateway retries the queued ones (a table whose matcher has not committed yet is
looked for again for two minutes), so a gateway that dies mid-release loses none. A release
gives the player's seat to a bot (the table's wake-up lets that bot act at once), revokes
its token and takes the player's name off it.

The last hop has no acknowledgement: a searcher whose cancel crosses the seated message on
the wire and reaches its gateway more than the grace after the write (a gateway that busy)
misses a seat that stays its own. That seat is listed by ListMyTables (the table is noted
before the message is written) and rejoined by RejoinSeat; the table's decision timer
covers a player who never comes. The one other seat left to that timer: a matcher that
commits its table more than two minutes after its claim (the release queued when the claim
fell due has given up looking for the table) and then dies before its offers.

One search per player at a time: a second is refused (ALREADY_SEARCHING) unless the first
one's home has stopped refreshing it (its gateway died): then the new search ends the old
ticket (releasing what it was offered) and takes over, so a client whose gateway died may
search again at another after a few seconds.

Keys, all under one hash tag (``<prefix>:{mm}:``) for the scripts (which also name a
ticket's pool key from the ticket), each with a TTL:
``pool:<pool>`` (sorted set: search id -> join time), ``t:<search id>`` (hash: the ticket),
``alive`` (sorted set: search id -> when its home last saw it waiting; entries older than
``2 * STALE_SECONDS`` are swept by every gateway), ``searching:<player>`` (the player's
search id), ``inbox:<gateway>`` (list: offers for that gateway's searchers), ``pending``
(sorted set: search id -> deadline) and ``releases`` (sorted set: seat to release -> when to
try). Each gateway serves its searchers in one trip every quarter second (alive, one-search
keys), reads its inbox every 50 ms, and settles what is overdue every second.
"""

from gateway.matchmaking.matchmaker import Matchmaker
from gateway.matchmaking.tickets import Release, Settings

__all__ = ["Matchmaker", "Release", "Settings"]

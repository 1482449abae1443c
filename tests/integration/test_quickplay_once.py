"""Quick play exactly once: a searcher holds a seat only if it was told of it, whatever the
instant of its cancel or of a gateway's death, and every key the matchmaker leaves behind
has a TTL. Each test audits every table the stack made: each human seat belongs to a
player whose stream received it, no player holds two, and an untold seat is a bot's."""

import asyncio
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc
import pytest

from common import auth
from common.errors import reason_of
from common.redis_client import connect
from deploy.stack import Stack
from gateway.matchmaking import scripts as matchmaking_scripts
from gateway.matchmaking.tickets import Release
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tests.scale import games

pytestmark = pytest.mark.integration

GATEWAY_ENV = {
    "TAVOLA_QUICKPLAY_BOT_FILL_SECONDS": "2",
    "TAVOLA_QUICKPLAY_TIMEOUT_SECONDS": "30",
    "TAVOLA_QUOTA_CREATE_PER_MINUTE": "0",
    "TAVOLA_QUOTA_PLAYERS_PER_MINUTE": "0",
    "TAVOLA_QUOTA_SEATS_PER_MINUTE": "0",
}


def two_gateways(redis_url: str, prefix: str, log_dir) -> Stack:
    """Two gateways, no worker: the tables are only audited, never played (so no decision
    timer hands a seat to a bot behind the audit's back)."""
    return Stack(
        redis_url=redis_url,
        key_prefix=prefix,
        games=("borgia",),
        gateways=2,
        bots=("random",),
        with_worker=False,
        gateway_env=GATEWAY_ENV,
        log_dir=log_dir,
    )


@dataclass
class Audit:
    """What the stack's tables say against what each player's stream was told."""

    tables: int = 0
    seated: int = 0  # human seats held
    ghosts: list[tuple[str, str, int]] = field(default_factory=list)  # (player, table, seat) held, never told
    doubles: list[str] = field(default_factory=list)  # players holding two seats or more
    told_released: list[tuple[str, str, int]] = field(default_factory=list)  # told, then given to a bot
    keys_without_ttl: list[str] = field(default_factory=list)
    stale_alive: int = 0  # entries of the alive set older than the matchmaker keeps

    def figures(self) -> dict[str, int]:
        return {
            "tables": self.tables,
            "seated": self.seated,
            "ghosts": len(self.ghosts),
            "doubles": len(self.doubles),
            "told_released": len(self.told_released),
            "keys_without_ttl": len(self.keys_without_ttl),
            "stale_alive": self.stale_alive,
        }


def audit(stack: Stack, address: str, told: dict[str, tuple[str, int]]) -> Audit:
    """``told``: each player's seat as its stream received it (table id, seat)."""
    redis = connect(stack.redis_url)
    result = Audit()
    try:
        suffix = ":table"
        table_ids = [
            key.decode()[len(stack.key_prefix) + 2 : -len(suffix) - 1]
            for key in redis.scan_iter(match=f"{stack.key_prefix}:{{*}}{suffix}", count=1000)
        ]
        held: dict[str, list[tuple[str, int]]] = defaultdict(list)
        seats_of: dict[tuple[str, int], gw.Seat] = {}
        with grpc.insecure_channel(address) as channel:
            tables = gateway_pb2_grpc.GatewayServiceStub(channel)
            for table_id in table_ids:
                table = tables.GetTable(gw.GetTableRequest(table_id=table_id), timeout=10).table
                result.tables += 1
                for seat in table.seats:
                    seats_of[(table_id, seat.seat)] = seat
                    if seat.kind == gw.SEAT_KIND_HUMAN and seat.player_id:
                        held[seat.player_id].append((table_id, seat.seat))
        for player_id, places in held.items():
            result.seated += len(places)
            if len(places) > 1:
                result.doubles.append(player_id)
            for table_id, seat in places:
                if told.get(player_id) != (table_id, seat):
                    result.ghosts.append((player_id, table_id, seat))
        for player_id, (table_id, seat) in told.items():
            if (table_id, seat) not in held.get(player_id, []):
                result.told_released.append((player_id, table_id, seat))
        now = time.time()
        for key in redis.scan_iter(match=f"{stack.key_prefix}:{{mm}}:*", count=1000):
            if redis.ttl(key) == -1:
                result.keys_without_ttl.append(key.decode())
            if key.decode().endswith(":alive"):
                result.stale_alive = redis.zcount(key, "-inf", now - 15)
    finally:
        redis.close()
    return result


def logged(stack: Stack, *events: str) -> dict[str, int]:
    """How many times the gateways logged each of ``events``: how the run went."""
    counts = dict.fromkeys(events, 0)
    for process in stack.processes:
        if process.name.startswith("gateway"):
            lines = process.log_path.read_text(errors="replace").splitlines()
            for event in events:
                counts[event] += sum(f'"{event}"' in line for line in lines)
    return counts


SETTLING = ("untold_seat_released", "search_settled", "search_taken_over")


def settled(stack: Stack, within: float) -> None:
    """Waits until no claim, offer or release is left to settle (or ``within`` seconds)."""
    redis = connect(stack.redis_url)
    try:
        deadline = time.monotonic() + within
        base = f"{stack.key_prefix}:{{mm}}"
        while time.monotonic() < deadline:
            if not redis.zcard(f"{base}:pending") and not redis.zcard(f"{base}:releases"):
                return
            time.sleep(0.5)
    finally:
        redis.close()


# -- a cancel at every instant of a match --------------------------------------------------


@pytest.fixture(scope="module")
def sweep_stack(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    with two_gateways(redis_url, f"{key_prefix}-once", tmp_path_factory.mktemp("once")) as stack:
        yield stack
        stack.delete_keys()


class Searcher:
    """One FindGame stream read on its own thread; ``cancel`` cancels it unless it has
    received its seat (as a client's cancel button does), atomically with the reading."""

    def __init__(self, door, token: str, player_id: str, options: dict[str, str], rated: bool = False):
        self.player_id = player_id
        self.lock = threading.Lock()
        self.call = door.FindGame(
            pl.FindGameRequest(game_id="borgia", min_players=2, bot_fill=False, options=options, rated=rated),
            metadata=auth.metadata(token),
            timeout=60,
        )
        self.joined = threading.Event()
        self.told: tuple[str, int] | None = None
        self.told_at = 0.0
        self.cancelled = False
        self.thread = threading.Thread(target=self._read)
        self.thread.start()

    def _read(self) -> None:
        try:
            for message in self.call:
                with self.lock:
                    # A seat message that reached the client after it chose to cancel is
                    # not taken: the client left (and the seat goes back, docs/clients.md).
                    if message.HasField("seated") and not self.cancelled:
                        self.told = (message.seated.table.table_id, message.seated.seat)
                        self.told_at = time.monotonic()
                self.joined.set()
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.CANCELLED, error
        finally:
            self.joined.set()

    def cancel(self) -> bool:
        with self.lock:
            if self.told is None:
                self.call.cancel()
                self.cancelled = True
            return self.cancelled


# Two pools (one of B10's variants on or off): each round's two pairs never mix.
POOLS = ({"flame_of_thy_tongue": "false"}, {"flame_of_thy_tongue": "true"})


def test_a_cancel_at_any_instant_of_the_match_leaves_no_ghost_seat(sweep_stack: Stack):
    """Rounds of two pairs, each in its own pool: the searcher who will cancel joins at one
    gateway, then its partner at the other; the match follows the partner's joining within
    a matching round (a quarter second), and the cancel comes 0 to 500 ms (in 20 ms steps)
    after it (40 ms steps in make test), so that cancels land before the match, between the claim and the table's
    commit, between the commit and the telling, and after it. A partner left alone cancels
    a second later."""
    doors = [grpc.insecure_channel(address) for address in sweep_stack.gateway_addresses]
    stubs = [players_pb2_grpc.PlayerServiceStub(channel) for channel in doors]
    searchers: list[Searcher] = []
    # Each swept cancel's offset from its pair's first telling, in ms (negative: before).
    offsets: list[int] = []
    try:
        for step, delay in enumerate(range(0, 501, games(40, 20))):  # every 40 ms (20 in test-long)
            pairs: list[tuple[Searcher, Searcher]] = []
            for pair, options in enumerate(POOLS):
                made = []
                for side in range(2):
                    door = stubs[(side + pair + step) % 2]
                    created = door.CreatePlayer(pl.CreatePlayerRequest(display_name=f"s{step}-{pair}-{side}"))
                    made.append(Searcher(door, created.player_token, created.player.player_id, options))
                    assert made[-1].joined.wait(10)
                pairs.append((made[0], made[1]))
            joined = time.monotonic()
            time.sleep(delay / 1000)
            cancelled_at = time.monotonic()
            for cancelling, _ in pairs:
                cancelling.cancel()
            assert cancelled_at - joined < delay / 1000 + 0.2  # the sweep's steps held
            time.sleep(1.0)
            for cancelling, partner in pairs:
                partner.cancel()
                for searcher in (cancelling, partner):
                    searcher.thread.join(15)
                    assert not searcher.thread.is_alive()
                    searchers.append(searcher)
                told_at = [s.told_at for s in (cancelling, partner) if s.told is not None]
                if told_at:
                    offsets.append(round((cancelled_at - min(told_at)) * 1000))
    finally:
        for channel in doors:
            channel.close()
    settled(sweep_stack, 30)
    told = {s.player_id: s.told for s in searchers if s.told is not None}
    result = audit(sweep_stack, sweep_stack.gateway_addresses[0], told)
    print(
        f"\ncancel sweep: {len(searchers)} searchers, {sum(s.cancelled for s in searchers)} cancelled untold, "
        f"{len(told)} told; {result.figures()}; {logged(sweep_stack, *SETTLING)}; "
        f"cancels from their pair's first telling (ms): {sorted(offsets)}"
    )
    assert result.tables > 0 and told
    assert not result.ghosts, result.ghosts
    assert not result.doubles, result.doubles
    assert not result.told_released, result.told_released
    assert not result.keys_without_ttl, result.keys_without_ttl


def test_a_cancel_just_after_the_seat_takes_it_back(sweep_stack: Stack):
    """A client that closes its stream as soon as it reads its seat cannot be told from one
    whose cancel crossed the seat on the wire: within the 100 ms the stream stays open, the
    seat is taken back and given to a bot (docs/clients.md: read the stream to its end).
    Its partner, who reads to the end, keeps its own."""
    with grpc.insecure_channel(sweep_stack.gateway_addresses[0]) as channel:
        door = players_pb2_grpc.PlayerServiceStub(channel)
        searchers = []
        for side in range(2):
            created = door.CreatePlayer(pl.CreatePlayerRequest(display_name=f"closer {side}"))
            searchers.append(Searcher(door, created.player_token, created.player.player_id, {}, rated=True))
            assert searchers[-1].joined.wait(10)
        closer, reader = searchers
        deadline = time.monotonic() + 10
        while closer.told is None:
            assert time.monotonic() < deadline, "never seated"
            time.sleep(0.001)
        closer.call.cancel()
        for searcher in searchers:
            searcher.thread.join(15)
        assert closer.told is not None and reader.told is not None and closer.told[0] == reader.told[0]
        tables = gateway_pb2_grpc.GatewayServiceStub(channel)
        deadline = time.monotonic() + 10
        while (
            seat := tables.GetTable(gw.GetTableRequest(table_id=closer.told[0])).table.seats[closer.told[1]]
        ).kind != gw.SEAT_KIND_BOT:
            assert time.monotonic() < deadline, "the seat was not taken back"
            time.sleep(0.1)
        assert seat.player_id == ""
        kept = tables.GetTable(gw.GetTableRequest(table_id=reader.told[0])).table.seats[reader.told[1]]
        assert kept.kind == gw.SEAT_KIND_HUMAN and kept.player_id == reader.player_id


# -- a matcher or a home that dies between two steps ----------------------------------------


@pytest.mark.parametrize("left_at", ["claimed", "offered"])
def test_a_seat_left_by_a_dead_gateway_goes_to_a_bot_and_its_searcher_is_seated_again(sweep_stack: Stack, left_at: str):
    """A matcher that died right after its table's commit (the searcher claimed for that
    table, never offered), or a home that died with an offer untaken (here: an offer sent to
    an inbox nobody reads): once the step falls due, a gateway gives the seat to a bot, and
    the searcher, whose own stream is still open, goes back to its pool and is seated anew."""
    with (
        grpc.insecure_channel(sweep_stack.gateway_addresses[0]) as first,
        grpc.insecure_channel(sweep_stack.gateway_addresses[1]) as second,
    ):
        left_behind(
            sweep_stack, players_pb2_grpc.PlayerServiceStub(first), gateway_pb2_grpc.GatewayServiceStub(second), left_at
        )


def left_behind(sweep_stack: Stack, door, tables, left_at: str) -> None:
    options = {"poisoned_dice": "true", "flame_of_thy_tongue": str(left_at == "offered").lower()}
    created = door.CreatePlayer(pl.CreatePlayerRequest(display_name=f"left {left_at}"))
    player_id, token = created.player.player_id, created.player_token
    searcher = Searcher(door, token, player_id, options)
    assert searcher.joined.wait(10)
    redis = connect(sweep_stack.redis_url)
    base = f"{sweep_stack.key_prefix}:{{mm}}"
    try:
        search_id = next(
            key.decode().rsplit(":", 1)[1]
            for key in redis.scan_iter(match=f"{base}:t:*")
            if redis.hget(key, "player") == player_id.encode()
        )
        ticket = f"{base}:t:{search_id}"
        pool = f"{base}:pool:{redis.hget(ticket, 'pool').decode()}"
        # The table the dead matcher made, the player seated in it (as its commit seats).
        made = tables.CreateTable(
            gw.CreateTableRequest(
                game_id="borgia", player_count=2, auto_start=True, bot_seats=[gw.BotSeat(seat=1, bot="random")]
            )
        )
        table_id = made.table.table_id
        seat = tables.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0), metadata=auth.metadata(token))
        assert tables.GetTable(gw.GetTableRequest(table_id=table_id)).table.seats[0].player_id == player_id
        now = time.time()
        claim = [pool, f"{base}:alive", f"{base}:pending", ticket]
        assert redis.eval(
            matchmaking_scripts.CLAIM_SCRIPT, len(claim), *claim, now, 5, table_id, now - 1, 600, search_id
        )
        if left_at == "offered":
            offer = [f"{base}:pending", f"{base}:releases", ticket, f"{base}:inbox:nobody"]
            release = Release.of(table_id, player_id, "borgia", 1500.0, now)
            args = [now, table_id, now - 1, 600, 60, search_id, seat.SerializeToString(), release.entry]
            assert redis.eval(matchmaking_scripts.OFFER_SCRIPT, len(offer), *offer, *args) == []
            redis.delete(f"{base}:inbox:nobody")  # the dead home never reads it
        deadline = time.monotonic() + 10
        while tables.GetTable(gw.GetTableRequest(table_id=table_id)).table.seats[0].kind != gw.SEAT_KIND_BOT:
            assert time.monotonic() < deadline, "the untold seat was not given to a bot"
            time.sleep(0.2)
        place = tables.GetTable(gw.GetTableRequest(table_id=table_id)).table.seats[0]
        assert place.player_id == "" and place.bot == "random"
        assert searcher.told is None
        # Back in its pool: a partner's search seats both at a new table, told.
        partner = door.CreatePlayer(pl.CreatePlayerRequest(display_name=f"partner {left_at}"))
        other = Searcher(door, partner.player_token, partner.player.player_id, options)
        for one in (searcher, other):
            one.thread.join(15)
        assert searcher.told is not None and other.told is not None
        assert searcher.told[0] == other.told[0] != table_id
        settled(sweep_stack, 10)
        assert not redis.exists(ticket)
    finally:
        redis.close()


# -- a gateway killed under 320 searchers --------------------------------------------------


SEARCHERS = 320


@pytest.fixture
def doomed_stack(redis_url: str, key_prefix: str, tmp_path_factory) -> Iterator[Stack]:
    with two_gateways(redis_url, f"{key_prefix}-once-kill", tmp_path_factory.mktemp("once-kill")) as stack:
        yield stack
        stack.delete_keys()


async def searchers_through_a_kill(stack: Stack, count: int, kill_after: float) -> tuple[dict, dict]:
    """``count`` searchers arriving over eight seconds, alternately at either gateway, each
    for a table of 2 to 6 (bots fill it after two seconds);
    gateway-0 is killed (SIGKILL) ``kill_after`` seconds in. A searcher whose stream breaks
    searches again at the other gateway, as a client would. Returns each player's told seat
    and the count of each way a search ended."""
    channels = [grpc.aio.insecure_channel(address) for address in stack.gateway_addresses]
    stubs = [players_pb2_grpc.PlayerServiceStub(channel) for channel in channels]
    dead = asyncio.Event()
    told: dict[str, tuple[str, int]] = {}
    ends: dict[str, int] = defaultdict(int)

    async def one(index: int) -> None:
        created = await stubs[1].CreatePlayer(pl.CreatePlayerRequest(display_name=f"k{index}"))
        player_id, token = created.player.player_id, created.player_token
        await asyncio.sleep(index * 8.0 / count)
        door = index % 2
        players = 2 + index // 2 % 5  # tables of 2 to 6, so that many wait at the kill
        give_up = time.monotonic() + 60
        while time.monotonic() < give_up:
            if dead.is_set():
                door = 1
            request = pl.FindGameRequest(game_id="borgia", min_players=players, max_players=players)
            try:
                async for message in stubs[door].FindGame(request, metadata=auth.metadata(token), timeout=60):
                    if message.HasField("seated"):
                        told[player_id] = (message.seated.table.table_id, message.seated.seat)
                ends["seated" if player_id in told else "ended_unseated"] += 1
                return
            except grpc.aio.AioRpcError as error:
                if player_id in told:  # the stream broke after the seat came
                    ends["seated_then_broken"] += 1
                    return
                if reason_of(error) == "SEARCH_TIMED_OUT":
                    ends["timed_out"] += 1
                    return
                ends[reason_of(error) or error.code().name] += 1
                await asyncio.sleep(0.5)
        ends["gave_up"] += 1

    async def kill() -> None:
        await asyncio.sleep(kill_after)
        doomed = next(p for p in stack.processes if p.name == "gateway-0")
        doomed.popen.kill()
        await asyncio.to_thread(doomed.popen.wait)
        dead.set()

    try:
        await asyncio.gather(kill(), *(one(index) for index in range(count)))
    finally:
        for channel in channels:
            await channel.close()
    return told, dict(ends)


def test_killing_a_gateway_under_320_searchers_leaves_no_ghost_nor_double(doomed_stack: Stack):
    told, ends = asyncio.run(searchers_through_a_kill(doomed_stack, SEARCHERS, kill_after=4.0))
    settled(doomed_stack, 40)
    result = audit(doomed_stack, doomed_stack.gateway_addresses[1], told)
    print(
        f"\nkill: {SEARCHERS} searchers, {len(told)} told, ends {ends}; {result.figures()}; "
        f"{logged(doomed_stack, *SETTLING)}"
    )
    assert len(told) > SEARCHERS // 2
    assert not result.ghosts, result.ghosts
    assert not result.doubles, result.doubles
    assert not result.keys_without_ttl, result.keys_without_ttl
    assert result.stale_alive == 0

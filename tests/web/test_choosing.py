"""What a player chooses by, in a real browser against a real stack: the lobby's rows (who
sits there with their ratings, bots by name and level, options in words, timer, age, free
seats), a leaderboard with provisional players and bots on it (and "Around me" for a
provisional player), a Borgia end screen that shows the ladder after the dice bonus and
says which rule broke the tie, and the end of a table nobody played on. Each at a phone's
width (375 px) and a desktop's (1280 px), screenshots kept in .artifacts/web/, axe-core
clean.

Ratings are written to Redis as the rating worker leaves them (common/ratings.py), so that a
provisional player, an established one and a bot exist without playing dozens of games.
"""

import json
import uuid
from collections.abc import Iterator

import grpc
import pytest
import redis
from google.protobuf import any_pb2

from common import auth, ratings
from deploy.stack import NO_QUOTAS, Stack
from services.borgia.engine import score
from services.registry import get_game
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import gateway_pb2_grpc, players_pb2_grpc
from tavola.gateway.v1 import players_pb2 as pl
from tests.engine_harness import random_playout

WIDTHS = (375, 1280)
# A two-player Borgia deal (replay mode) whose seeded random playout ends with Colonna and
# Orsini tied at 20 influence after Orsini's dice bonus: 20 against 20, Orsini's puppeteer
# (seat 1) loses to the cardinal higher on the ladder (B9).
TIE_SEED = 1669


@pytest.fixture(scope="module")
def web_stack(redis_url: str, key_prefix: str, tmp_path_factory, web_bundle) -> Iterator[Stack]:
    if "web_addresses" not in Stack.__dataclass_fields__:
        pytest.skip("this gateway has no web port (the browser protocol): the browser tests skip")
    with Stack(
        redis_url=redis_url,
        key_prefix=f"{key_prefix}-webchoose",
        games=("borgia", "pecunia"),
        bots=("random",),
        with_worker=False,
        log_dir=tmp_path_factory.mktemp("web-choose-stack"),
        # A game with no timer that nobody plays for 3 s is ended (the walk every half second).
        gateway_env={
            **NO_QUOTAS,
            "TAVOLA_WEB_STATIC": str(web_bundle),
            "TAVOLA_SWEEP_SECONDS": "0.5",
            "TAVOLA_ABANDON_IDLE_SECONDS": "3",
        },
    ) as running:
        yield running
        running.delete_keys()


@pytest.fixture(scope="module")
def stubs(web_stack) -> Iterator[tuple[gateway_pb2_grpc.GatewayServiceStub, players_pb2_grpc.PlayerServiceStub]]:
    with grpc.insecure_channel(web_stack.gateway_address) as channel:
        yield gateway_pb2_grpc.GatewayServiceStub(channel), players_pb2_grpc.PlayerServiceStub(channel)


@pytest.fixture(scope="module")
def people(web_stack, stubs) -> Iterator[dict[str, pl.CreatePlayerResponse]]:
    """A provisional player (Lena), an established one (Ugo) and the random bot, rated at
    Borgia and Pecunia and on Pecunia's board, as the rating script would leave them."""
    _, players = stubs
    suffix = uuid.uuid4().hex[:6]
    made = {
        key: players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"{key} {suffix}")) for key in ("Lena", "Ugo")
    }
    keys = ratings.Keys(web_stack.key_prefix)
    client = redis.Redis.from_url(web_stack.redis_url)
    standings = {
        made["Lena"].player.player_id: {"mu": 27.5, "sigma": 6.0, "games": 3, "wins": 2, "q": 3},
        made["Ugo"].player.player_id: {"mu": 30.0, "sigma": 3.0, "games": 24, "wins": 14, "q": 24},
        "bot:random": {"mu": 24.0, "sigma": 2.0, "games": 300, "wins": 90, "q": 300},
    }
    for who, fields in standings.items():
        standing = ratings.Standing(fields["mu"], fields["sigma"], qualified=fields["q"])
        below = 0.0 if standing.established else ratings.PROVISIONAL_BELOW
        for game in ("borgia", "pecunia"):
            client.hset(keys.rating(game, who), mapping=fields)
            client.sadd(keys.games(who), game)
        client.zadd(keys.board("pecunia"), {who: standing.conservative - below})
    yield made
    client.close()


def be_player(page, base_url: str, made: pl.CreatePlayerResponse) -> None:
    """The browser plays as ``made`` (what #/me keeps after making or pasting a player)."""
    page.page.goto(base_url)
    key = {"token": made.player_token, "playerId": made.player.player_id, "name": made.player.display_name}
    page.page.evaluate(f"localStorage.setItem('tavola.player', {json.dumps(json.dumps(key))})")


def no_sideways_scroll(page, width: int) -> None:
    scrolled = page.page.evaluate("document.documentElement.scrollWidth")
    assert scrolled <= width, f"{scrolled} px wide at {width} px"


def test_lobby_rows_say_who_plays_how_strong_with_which_rules_and_since_when(open_page, base_url, stubs, people):
    gateway, _ = stubs
    ugo = people["Ugo"]
    table_id = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia",
            player_count=3,
            options={"flame_of_thy_tongue": "true"},
            bot_seats=[gw.BotSeat(seat=2, bot="random")],
        )
    ).table.table_id
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=0), metadata=auth.metadata(ugo.player_token))
    # A game under way, timed, of people and a bot: under "Being played".
    playing = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="pecunia",
            player_count=3,
            auto_start=True,
            bot_seats=[gw.BotSeat(seat=2, bot="random")],
            decision_timer=gw.DecisionTimer(seconds=120, policy=gw.TIMEOUT_POLICY_RANDOM_ACTION),
        )
    ).table.table_id
    lena = people["Lena"]
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=playing, seat=0), metadata=auth.metadata(lena.player_token))
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=playing, seat=1, display_name="a guest"))
    for width in WIDTHS:
        page = open_page(width=width, height=900, name=f"lobby-rows-{width}", locale="en-US")
        page.page.goto(base_url)
        row = page.page.wait_for_selector(f".table-row[data-table='{table_id}']")
        text = row.inner_text()
        assert ugo.player.display_name in text and "1,260" not in text  # the rating, not the board's score
        assert "1,800 ± 180" in text  # Ugo: mu 30, sigma 3, times 60
        assert "random" in text and "bot" in text and "1,440 ± 120" in text  # the bot, rated
        assert "free seat" in text and "1 seat free" in text
        assert "Flame of Thy Tongue" in text and "no time limit" in text  # the option by its catalog label
        assert "created now" in text or ("created" in text and "ago" in text)
        played = page.page.wait_for_selector(f".table-row[data-table='{playing}']").inner_text()
        assert lena.player.display_name in played and "provisional" in played and "a guest" in played
        assert "2 min a decision" in played and "seat free" not in played
        page.shot("lobby")
        page.axe("lobby")
        no_sideways_scroll(page, width)
    # The form to open a table offers the platform's suggested timer.
    page.page.click("[data-testid=new-borgia]")
    assert page.page.input_value("#timer") == "120"


def test_the_leaderboard_lists_provisional_players_and_bots_and_finds_a_provisional_player(open_page, base_url, people):
    lena, ugo = people["Lena"], people["Ugo"]
    for width in WIDTHS:
        page = open_page(width=width, height=800, name=f"board-{width}", locale="en-US")
        be_player(page, base_url, lena)
        page.page.goto(f"{base_url}#/leaderboard/pecunia")
        page.page.wait_for_selector("[data-testid=leaderboard] table")
        rows = page.page.locator("[data-testid=leaderboard] tbody tr")
        ids = [rows.nth(i).get_attribute("data-player") for i in range(rows.count())]
        # The established first (by conservative rating), then the provisional.
        assert ids == [ugo.player.player_id, "bot:random", lena.player.player_id]
        assert "bot" in rows.nth(1).inner_text() and "provisional" not in rows.nth(1).inner_text()
        assert "provisional" in rows.nth(2).inner_text() and "provisional" in (rows.nth(2).get_attribute("class") or "")
        page.shot("top")
        page.axe("top")
        page.page.click("[data-testid=around-me]")
        mine = page.page.wait_for_selector("[data-testid=leaderboard] tr.me")
        assert mine.get_attribute("data-player") == lena.player.player_id and "(you)" in mine.inner_text()
        assert page.page.locator("[data-testid=not-listed]").count() == 0
        page.shot("around-me")
        page.axe("around-me")
        no_sideways_scroll(page, width)


def play_tied_borgia(gateway) -> str:
    """Plays TIE_SEED's playout through the gateway (both seats held here); the table id."""
    game = get_game("borgia")
    playout = random_playout(game, 2, {}, TIE_SEED)
    result = score(playout.state)
    assert result.scores == (20, 20) and result.winners == (1,)
    request = gw.CreateTableRequest(game_id="borgia", player_count=2, seed=TIE_SEED, replay_mode=True)
    created = gateway.CreateTable(request)
    table_id = created.table.table_id
    tokens = [
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat, display_name=name)).seat_token
        for seat, name in enumerate(("Bea", "Carlo"))
    ]
    gateway.StartTable(gw.StartTableRequest(table_id=table_id), metadata=auth.metadata(created.host_token))
    for seat, action in playout.actions:
        packed = any_pb2.Any()
        packed.Pack(game.codec.action_to_proto(action))
        gateway.SubmitAction(
            gw.SubmitActionRequest(table_id=table_id, action=packed), metadata=auth.metadata(tokens[seat])
        )
    assert gateway.GetTable(gw.GetTableRequest(table_id=table_id)).table.status == gw.TABLE_STATUS_FINISHED
    return table_id


def test_the_borgia_end_shows_final_influence_and_the_rule_that_broke_the_tie(open_page, base_url, stubs):
    gateway, _ = stubs
    table_id = play_tied_borgia(gateway)
    for width in WIDTHS:
        page = open_page(width=width, height=900, name=f"borgia-end-{width}", locale="en-US")
        page.page.goto(f"{base_url}#/watch/{table_id}")
        ending = page.page.wait_for_selector("[data-testid=ending]")
        text = ending.inner_text()
        rule = page.page.locator("[data-testid=tie-rule]").inner_text()
        assert "tied with 20 influence" in rule and "higher on the ladder (rule B9)" in rule
        assert "final influence 20" in text and "score 20" not in text
        assert "(+12 from 6 dice left)" in text
        ladder = page.page.locator("section.ladder").inner_text()
        assert "Final ladder (after the dice bonus)" in ladder and "20" in ladder
        page.shot("end")
        page.axe("end")
        no_sideways_scroll(page, width)


def test_a_seeded_random_playout_is_the_tie_this_module_plays():
    """The seed above still makes the tie (an engine change would move it)."""
    playout = random_playout(get_game("borgia"), 2, {}, TIE_SEED)
    result = score(playout.state)
    tied = [c for c in result.ladder if result.influence[c] == result.influence[result.pope]]
    assert len(tied) == 2 and result.scores == (20, 20) and result.winners == (1,)


def test_a_table_nobody_plays_on_ends_in_words_for_its_seat(open_page, base_url, stubs):
    gateway, _ = stubs
    created = gateway.CreateTable(gw.CreateTableRequest(game_id="pecunia", player_count=2, auto_start=True))
    table_id = created.table.table_id
    tokens = [
        gateway.TakeSeat(gw.TakeSeatRequest(table_id=table_id, seat=seat, display_name=name)).seat_token
        for seat, name in enumerate(("Idris", "Oona"))
    ]
    page = open_page(width=375, height=800, name="abandoned-375", locale="en-US")
    page.page.goto(base_url)
    seat = json.dumps(json.dumps({"seat": 0, "token": tokens[0]}))
    page.page.evaluate(f"localStorage.setItem('tavola.seat.{table_id}', {seat})")
    page.page.goto(f"{base_url}#/table/{table_id}")
    headline = page.page.wait_for_selector("[data-testid=ending] [data-testid=headline]", timeout=60_000)
    assert headline.inner_text() == "Nobody played on: the table is over."
    why = page.page.locator("[data-testid=ending] [data-testid=why]").inner_text()
    assert why.startswith("The table is ended: nobody played for") and "not rated" in why
    assert page.page.locator("[data-testid=seed-verdict]").count() == 0
    page.shot("end")
    page.axe("end")
    no_sideways_scroll(page, 375)

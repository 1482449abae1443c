"""The terminal client as a player sees it: whole tables of each game played by keystrokes
against bots through the real platform, with Textual's pilot, and the screen checked at
the key moments."""

import asyncio

import pytest

from clients.terminal import __main__ as cli
from clients.terminal import choices
from clients.terminal.app import Plan, TableApp
from clients.terminal.replay import ReplayScreen
from clients.terminal.session import Session
from tavola.gateway.v1 import gateway_pb2 as gw

SIZE = (100, 40)  # the columns that decide a game must fit a 100-column terminal
# A bot named by a long option string: the screen names it "ismcts" (issue: 52 characters
# of bot spec pushed the token columns off the screen).
SEARCH_BOT = "ismcts:budget_ms=0,iterations=2,rollout=random"
OUTCOMES = ("You won!", "You share the win!", "You lost.", "Nobody wins.")


@pytest.fixture(autouse=True)
def saved_seats(tmp_path, monkeypatch):
    monkeypatch.setenv("TAVOLA_CLIENT_DIR", str(tmp_path / "seats"))


async def until(pilot, condition, seconds: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, pilot.app.screen_text()
        await pilot.pause(0.05)
    await pilot.pause(0.1)  # the screen repaints after the state changes


def deciding(app: TableApp) -> bool:
    return (bool(app.menu) and not app.sending) or app.finished


async def play_to_the_end(pilot, on_decision=None, seconds: float = 120.0) -> int:
    """Presses 1 at every decision (into a submenu, then its first action) until the end."""
    app, decisions = pilot.app, 0
    deadline = asyncio.get_running_loop().time() + seconds
    while not app.finished:
        assert asyncio.get_running_loop().time() < deadline, app.screen_text()
        await until(pilot, lambda: deciding(app))
        if app.finished:
            break
        if on_decision is not None:
            on_decision(app)
        await pilot.press("1")
        decisions += 1
        await pilot.pause(0.02)
    await pilot.pause(0.2)
    return decisions


def run(address: str, plan: Plan, scenario) -> None:
    async def main():
        app = TableApp(address, plan)
        async with app.run_test(size=SIZE) as pilot:
            await scenario(pilot)

    asyncio.run(main())


def test_borgia_by_keystrokes(stack):
    seen: dict[str, str] = {}

    def look(app: TableApp) -> None:
        text = app.screen_text()
        if "first" not in seen:
            seen["first"] = text
        if "Call: the bid is a bluff" in text and "respond" not in seen:
            seen["respond"] = text

    async def scenario(pilot):
        app = pilot.app
        await until(pilot, lambda: deciding(app))
        first = app.screen_text()
        # Your own dice are shown; the bot's are hidden.
        assert "Your dice: [" in first and "Your puppet:" in first
        assert "■ ■" in first  # the bot's dice, hidden
        assert "Ada (you)" in first and "ismcts" in first and SEARCH_BOT not in first
        for column in ("dice", "faces", "rumors", "performed"):
            assert column in first, first
        # Beside the choices, what they do, from the game's catalog.
        prompt = " ".join(str(app.prompt_widget.render()).split())
        assert "Bid: claim that at least this many" in prompt or "Call: say the bid is a bluff." in prompt, prompt
        # A bid is two short steps: a count, then a face.
        if any("Bid 1 x …" in choice.label for choice in app.menu[-1]):
            assert len(app.menu[-1]) <= 16
            await pilot.press("1")
            # The step says the count once; each face reads as the word it adds.
            shown = app.screen_text()
            assert "Your decision: Bid 1 x" in shown and "1 Bribe" in shown and "Bid 1 x Bribe" not in shown
            await pilot.press("escape")
        # A rejected action: its reason in words, and the player chooses again.
        submit = app.session.submit

        async def stale(action, version):  # as if the table had moved on meanwhile
            app.session.submit = submit
            return await submit(action, version - 1)

        app.session.submit = stale
        for _ in range(4):  # into submenus until an action is sent
            await pilot.press("1")
            await pilot.pause(0.05)
            if app.sending or app.notice:
                break
        await until(pilot, lambda: "Not taken" in app.screen_text() and deciding(app))
        assert "the table moved on" in app.notice, app.notice  # wrapped on screen at 100 columns
        # Help from the game's catalog (the rules as B4 and B9 say them), and a terminal too small.
        await pilot.press("question_mark")
        assert "Keys" in app.screen_text() and "House of Borgia" in app.screen_text()
        shown = " ".join(str(app.help_widget.render()).split())
        assert "A call ends the round's bidding." in shown and "The cardinal with the most influence" in shown
        await pilot.press("question_mark")
        await pilot.resize_terminal(60, 16)
        await pilot.pause(0.1)
        assert "too small" in app.screen_text()
        await pilot.resize_terminal(*SIZE)
        await pilot.pause(0.1)
        await play_to_the_end(pilot, look)
        end = app.screen_text()
        assert any(outcome in end for outcome in OUTCOMES), end
        # Why it ended so, in the game's own words, and the deal checked against its commitment.
        assert "Puppets revealed:" in end and ("elected pope" in end or "No pope" in end), end
        assert "Seed verified" in end, end
        await pilot.press("b")
        await pilot.pause(0.1)
        board = app.screen_text()
        # Every call reveals every die: the history shows the bot's faces.
        assert "Every die is revealed:" in board or "You call" not in board
        assert "Final result" in board and "Pope:" in board

    run(stack.gateway_address, Plan(game="borgia", players=2, seed=11, name="Ada", bots=[SEARCH_BOT]), scenario)


@pytest.mark.slow
def test_mortadella_by_keystrokes(stack):
    async def scenario(pilot):
        app = pilot.app
        await until(pilot, lambda: deciding(app))
        text = app.screen_text()
        assert "Your role:" in text and "Your victory row:" in text
        assert "Ada (you)" in text and "Lombard" in text
        # Every token column on screen, on the row of each seat named short.
        header = next((line for line in text.splitlines() if "player" in line and "People" in line), text)
        assert "Book" in header and "Mortadella" in header, header
        assert SEARCH_BOT not in text and "ismcts 2" in text and "ismcts 3" in text  # seats 1 and 2, counted from 1
        await play_to_the_end(pilot)
        end = app.screen_text()
        assert any(outcome in end for outcome in OUTCOMES), end

    plan = Plan(game="mortadella", players=3, options={"max_turns": "9"}, seed=3, name="Ada", bots=[SEARCH_BOT])
    run(stack.gateway_address, plan, scenario)


@pytest.mark.slow
def test_pecunia_by_keystrokes(stack):
    async def scenario(pilot):
        app = pilot.app
        await until(pilot, lambda: deciding(app))
        text = app.screen_text()
        assert "your hand" in text and "sesterces" in text and "queue" in text and "latrine" in text
        assert text.count("your hand") == 1  # the bot's hand is a count only
        await play_to_the_end(pilot)
        end = app.screen_text()
        assert any(outcome in end for outcome in OUTCOMES), end

    plan = Plan(game="pecunia", players=2, options={"target": "10"}, seed=3, name="Ada", bots=["random"])
    run(stack.gateway_address, plan, scenario)


def test_spectating_a_bot_table(stack, gateway):
    table = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia",
            player_count=2,
            bot_seats=[gw.BotSeat(seat=0, bot="random"), gw.BotSeat(seat=1, bot="random")],
            auto_start=True,
            seed=2,
        )
    ).table

    async def scenario(pilot):
        app = pilot.app
        await until(pilot, lambda: app.finished, seconds=60)
        await pilot.pause(0.2)
        end = app.screen_text()
        assert "won." in end or "Nobody wins." in end
        assert "You" not in end.split("\n")[0]
        await pilot.press("b")
        assert "spectating" in app.screen_text()

    run(stack.gateway_address, Plan(mode="spectate", table_id=table.table_id), scenario)


def test_rejoining_a_seat_after_a_restart(stack):
    address = stack.gateway_address
    table: dict[str, str] = {}

    async def first(pilot):
        await until(pilot, lambda: deciding(pilot.app))
        table["id"] = pilot.app.session.table_id
        await pilot.press("q")
        assert "make play REJOIN=" in pilot.app.screen_text()
        await pilot.press("y")

    run(address, Plan(game="pecunia", players=2, name="Ada", timer_seconds=300, bots=["random"]), first)

    async def again(pilot):
        await until(pilot, lambda: deciding(pilot.app))
        text = pilot.app.screen_text()
        assert "Your decision" in text and "you are Ada" in text

    run(address, Plan(mode="rejoin", table_id=table["id"]), again)


def test_an_unreachable_gateway_is_explained(capsys):
    assert cli.main(["--gateway", "127.0.0.1:9"]) == 1
    printed = capsys.readouterr().err
    assert "no gateway answers at 127.0.0.1:9" in printed and "make run" in printed
    assert "Traceback" not in printed


def test_large_choices_are_short_steps():
    labels = [f"bid {count} {face}" for count in range(1, 13) for face in ("BRIBE", "POISON", "RUMOR")]
    menu = choices.build(choices.word_paths(labels))
    assert len(menu) == 12 and menu[0].label == "bid 1 …"
    assert [choice.label for choice in menu[0].children] == ["bid 1 BRIBE", "bid 1 POISON", "bid 1 RUMOR"]
    assert choices.build(choices.word_paths(["call", "allow"]))[1].index == 1


def test_stepping_through_ones_own_replay_after_the_end(stack):
    async def scenario(pilot):
        app = pilot.app
        await play_to_the_end(pilot)
        await pilot.press("v")  # from the end screen
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        book = app.screen.book
        first = app.screen_text()
        assert f"step 1 of {len(book)}" in first and "as you saw it (Ada)" in first
        assert "What happened" in first and "random sits down." in first
        assert "has not started yet" in first
        await pilot.press("right")
        assert "step 2 of" in app.screen_text() and "Ada sits down." in app.screen_text()
        for _ in range(6):
            await pilot.press("right")
            if "Your dice: [" in app.screen_text():
                break
        # The board as Ada saw it then: her own dice, the bot's hidden.
        text = app.screen_text()
        assert "Your dice: [" in text and "■ ■" in text
        await pilot.press("end")
        last = app.screen_text()
        assert f"step {len(book)} of {len(book)}" in last and "Game over" in last
        assert "Final result" in last  # the end reveals everything
        await pilot.press("left")
        assert f"step {len(book) - 1} of" in app.screen_text()
        await pilot.press("escape")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, ReplayScreen)

    run(stack.gateway_address, Plan(game="borgia", players=2, seed=11, name="Ada", bots=["random"]), scenario)


def test_a_replay_mode_table_is_marked_before_a_seat_is_taken(stack, gateway):
    """Its creator chose the seed and knows every secret: the player is told before sitting."""
    table = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="pecunia",
            player_count=2,
            bot_seats=[gw.BotSeat(seat=1, bot="random")],
            auto_start=True,
            seed=7,
            replay_mode=True,
        )
    ).table

    async def scenario(pilot):
        app = pilot.app
        await until(pilot, lambda: "REPLAY MODE" in app.screen_text())
        assert "knows every secret" in app.screen_text() and "Take a seat anyway?" in app.screen_text()
        assert not gateway.GetTable(gw.GetTableRequest(table_id=table.table_id)).table.seats[0].taken
        await pilot.press("y")
        await until(pilot, lambda: deciding(app))
        assert "REPLAY MODE" in app.screen_text().splitlines()[0]

    run(stack.gateway_address, Plan(mode="join", table_id=table.table_id, name="Ada"), scenario)


def test_reading_a_finished_tables_replay_as_any_seat(stack, gateway):
    table = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="pecunia",
            player_count=2,
            options={"target": "10"},
            bot_seats=[gw.BotSeat(seat=0, bot="random"), gw.BotSeat(seat=1, bot="random")],
            auto_start=True,
        )
    ).table
    for _ in gateway.SpectateTable(gw.SpectateTableRequest(table_id=table.table_id), timeout=60):
        pass
    args = cli.parse_args(["--replay", table.table_id, "--seat", "2"])  # people count seats from 1
    plan = cli.plan_of(args)
    assert (plan.mode, plan.table_id, plan.seat) == ("replay", table.table_id, 1)

    async def scenario(pilot):
        app = pilot.app
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen))
        await pilot.press("pagedown")
        text = app.screen_text()
        assert "as random 2 saw it" in text and "step 11 of" in text
        assert text.count("your hand") == 1  # seat 1's hand, and only a count of the other's
        await pilot.press("escape")
        await until(pilot, lambda: app.return_code is not None)
        assert app.return_code == 0

    run(stack.gateway_address, plan, scenario)
    # While a table runs, a seat's replay needs its token: the client says so and ends.
    running = gateway.CreateTable(
        gw.CreateTableRequest(
            game_id="borgia", player_count=2, bot_seats=[gw.BotSeat(seat=1, bot="random")], auto_start=True
        )
    ).table
    gateway.TakeSeat(gw.TakeSeatRequest(table_id=running.table_id, seat=0))

    async def main() -> TableApp:
        app = TableApp(stack.gateway_address, Plan(mode="replay", table_id=running.table_id, seat=0))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.return_code is not None)
        return app

    assert asyncio.run(main()).return_code == 1


def test_a_seed_makes_a_replay_mode_table_that_deals_the_same_game(stack, gateway):
    """--seed creates the table in replay mode, where the gateway uses the seed as given: two
    tables of one seed are dealt alike (without replay mode the gateway mixes a seed with its
    own entropy, so --seed fixed nothing though its help said it did)."""
    args = cli.parse_args(["--game", "pecunia", "--players", "2", "--bots", "random", "--seed", "7", "--timer", "0"])
    plan = cli.plan_of(args)
    assert plan.seed == 7

    async def create() -> list[gw.Table]:
        tables = []
        for _ in range(2):
            session = Session(stack.gateway_address)
            try:
                await session.create(plan.game, plan.players, plan.bots, plan.options, "Ada", None, plan.seed)
                tables.append(gateway.GetTable(gw.GetTableRequest(table_id=session.table_id)).table)
            finally:
                await session.close()
        return tables

    tables = asyncio.run(create())
    assert all(table.replay_mode and not table.rated for table in tables)
    # The same seed, the same deal: the events of the game's start (a bot may have moved since).
    deals = []
    for table in tables:
        events = [step.event for step in gateway.GetReplay(gw.GetReplayRequest(table_id=table.table_id)).steps]
        started = next(event.version for event in events if event.HasField("table_started"))
        deals.append(
            [event.game_event for event in events if event.version == started and event.HasField("game_event")]
        )
    assert deals[0] and deals[0] == deals[1]


def test_the_seed_option_says_what_replay_mode_means(capsys):
    with pytest.raises(SystemExit):
        cli.parse_args(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--seed SEED create the table in replay mode with this seed" in help_text
    assert "unrated" in help_text and "REPLAY MODE" in help_text


def test_a_seat_handed_to_a_bot_is_told_in_words(stack):
    """The decision timer gives the seat to a bot: the player reads why and watches on.
    Once, the screen showed the gateway's raw seat-token error and "Retrying..." first."""
    seen: list[str] = []

    async def wait_out_the_timer(pilot):
        app = pilot.app
        await until(pilot, lambda: deciding(app))
        deadline = asyncio.get_running_loop().time() + 30
        while "handed to a bot" not in app.screen_text():
            seen.append(app.screen_text())
            assert asyncio.get_running_loop().time() < deadline, app.screen_text()
            await pilot.pause(0.05)
        seen.append(app.screen_text())
        assert app.session is not None and app.session.seat is None  # a spectator now

    plan = Plan(
        game="pecunia",
        players=2,
        name="Ada",
        timer_seconds=1,
        timer_policy=gw.TIMEOUT_POLICY_BOT_TAKES_SEAT,
        bots=["random"],
    )
    run(stack.gateway_address, plan, wait_out_the_timer)
    assert not [text for text in seen if "Retrying" in text or "TOKEN_NOT_FOR_TABLE" in text]


def test_leaving_a_private_platform_does_not_promise_a_way_back(stack):
    """make play with no gateway running starts a platform for this terminal alone, which
    stops with it: "Come back with: make play REJOIN=..." was a command that then failed."""

    async def leave(pilot):
        await until(pilot, lambda: deciding(pilot.app))
        await pilot.press("q")
        text = pilot.app.screen_text()
        assert "REJOIN" not in text
        assert "private platform" in " ".join(text.split()), text
        await pilot.press("y")

    plan = Plan(game="pecunia", players=2, name="Ada", timer_seconds=300, bots=["random"], private_platform=True)
    run(stack.gateway_address, plan, leave)

"""The bench's peer (bench/peer.py): boardgame.io's server playing the liar's-dice game of
bench/peers/boardgameio, driven end to end for a short slice, and its rules as its seats
see them: a player's dice in no other player's view, refused moves change nothing, a
call shows every hand. The server, its driver and the probe are real Node processes on
127.0.0.1; these tests skip, saying why, without node or the peer's npm packages (make
bench-peer installs them)."""

import asyncio
import json
import subprocess
from collections import Counter

import pytest

from bench import peer
from bench.report import Report

needs_node = pytest.mark.skipif(peer.missing() is not None, reason=peer.missing() or "")
HAND = 5  # dice each player starts with


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with peer.PeerServer(tmp_path_factory.mktemp("peer")) as running:
        yield running


@needs_node
def test_the_driver_plays_moves_on_the_peer_for_a_short_slice(server):
    # Enough moves that the server's CPU reaches the clock's tick (10 ms): five each were
    # measured as none at all once.
    played = asyncio.run(peer.drive(server, clients=2, seconds=2.0, limit=100))

    figures = played.figures
    assert played.error_count == 0, played.errors
    # Bounded in count: each client stops at its limit, if the second does not stop it first.
    assert 0 < figures.submits <= 200
    assert len(figures.latencies) == figures.submits
    assert figures.p50_ms > 0
    assert figures.cpu["server"] > 0 and figures.cpu["client"] > 0


@pytest.fixture(scope="module")
def probed(server):
    """Every state each seat ("0", "1", "2") and a spectator were sent during probe.js's moves."""
    answer = subprocess.run(
        ["node", "probe.js", f"--port={server.port}"],
        cwd=peer.PEER_DIR,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(answer.stdout)


def _states(probed, seat):
    return [received["state"] for received in probed["views"][seat]]


@needs_node
def test_each_player_sees_their_own_dice_and_no_one_elses(probed):
    for seat in ("0", "1", "2"):
        for state in _states(probed, seat):
            hands = state["G"]["dice"]
            assert [other for other, hand in hands.items() if hand is not None] == [seat]
            assert len(hands[seat]) == state["G"]["counts"][seat]
            assert all(1 <= value <= 6 for value in hands[seat])
    for state in _states(probed, "spectator"):
        assert all(hand is None for hand in state["G"]["dice"].values())


@needs_node
def test_no_view_carries_the_dice_generator_state(probed):
    # The seed of boardgame.io's random plugin would tell every roll to come.
    for seat in ("0", "1", "2", "spectator"):
        for state in _states(probed, seat):
            assert state["plugins"].get("random", {}).get("data") is None
            assert "prngstate" not in json.dumps(state) and '"seed"' not in json.dumps(state)


@needs_node
def test_a_bid_below_a_move_out_of_turn_and_a_borrowed_identity_change_nothing(probed):
    # Player 0's bid is state 1; the three refused moves after it leave state 1 as it was.
    assert probed["refusedAt"] == 1
    for seat in ("0", "1", "2", "spectator"):
        at_one = [state for state in _states(probed, seat) if state["_stateID"] == 1]
        assert at_one, seat
        for state in at_one:
            assert state["G"]["bid"] == {"quantity": 1, "face": 2, "by": "0"}
            assert state["ctx"]["currentPlayer"] == "1"


@needs_node
def test_a_call_shows_every_hand_and_the_loser_loses_a_die(probed):
    dealt = {seat: _states(probed, seat)[0]["G"]["dice"][seat] for seat in ("0", "1", "2")}
    after = {seat: _states(probed, seat)[-1] for seat in ("0", "1", "2", "spectator")}
    shown = Counter(value for hand in dealt.values() for value in hand)[2]
    loser = "1" if shown >= 1 else "0"  # player 1 called "at least one 2" by player 0
    for state in after.values():
        assert state["_stateID"] == 2
        last_call = state["G"]["lastCall"]
        # Everyone, spectator included, now sees the hands of the round just ended.
        assert last_call["hands"] == dealt
        assert (last_call["caller"], last_call["loser"], last_call["shown"]) == ("1", loser, shown)
        assert state["G"]["counts"] == {player: HAND - (player == loser) for player in ("0", "1", "2")}
        assert state["G"]["bid"] is None
        assert state["ctx"]["currentPlayer"] == loser  # the loser opens the next round
    # The new hands are rolled and hidden again.
    for seat in ("0", "1", "2"):
        hands = after[seat]["G"]["dice"]
        assert [other for other, hand in hands.items() if hand is not None] == [seat]


def test_without_node_the_part_says_so_and_is_skipped(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no node on it
    report = Report(quiet=True)

    peer.peer(report, 1.0, stack=None, workdir=tmp_path)

    assert "node is not installed" in report.figures["peer.skipped"]["reason"]
    assert not [key for key in report.figures if key.startswith("peer.16")]

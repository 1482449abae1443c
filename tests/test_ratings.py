"""Rating updates against a real Redis: the finishing order, who a seat's result belongs to,
the checks before a result counts, and exactly one update per table however the tasks race
or repeat."""

import secrets
import threading

import pytest
import redis
from openskill.models import PlackettLuce

from bots.worker import rating_tasks
from common import ratings
from common.commitment import commitment
from services import bot_specs
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.rules.v1 import rules_pb2
from tavola.store.v1 import ratings_pb2


def finished_table(players: list[str], winners=(0,), scores=(), game="borgia") -> tuple[gw.Table, int, bytes]:
    seed, salt = secrets.randbits(63), secrets.token_bytes(16)
    table = gw.Table(
        table_id=secrets.token_hex(8),
        game_id=game,
        player_count=len(players),
        status=gw.TABLE_STATUS_FINISHED,
        rated=True,
        seed_commitment=commitment(seed, salt),
        outcome=rules_pb2.GameOutcome(winners=winners, scores=scores),
    )
    for seat, player in enumerate(players):
        if player.startswith("bot:"):
            table.seats.add(seat=seat, kind=gw.SEAT_KIND_BOT, bot=player[4:], taken=True)
        else:
            table.seats.add(seat=seat, kind=gw.SEAT_KIND_HUMAN, player_id=player, taken=True)
    return table, seed, salt


@pytest.fixture
def store(redis_url: str, key_prefix: str):
    client = redis.Redis.from_url(redis_url)
    keys = ratings.Keys(f"{key_prefix}-ratings-{secrets.token_hex(3)}")
    yield client, keys
    created = list(client.scan_iter(match=f"{keys.base}:*", count=1000))
    if created:
        client.delete(*created)
    client.close()


def queue(client, keys: ratings.Keys, table: gw.Table, seed: int, salt: bytes) -> None:
    job = ratings_pb2.RatingJob(table=table, seed=seed, seed_salt=salt)
    client.hset(keys.jobs, table.table_id, job.SerializeToString())
    client.zadd(keys.pending, {table.table_id: 0})


def standing(client, keys: ratings.Keys, player: str, game="borgia") -> ratings.Standing:
    return ratings.Standing.of(client.hmget(keys.rating(game, player), ratings.FIELDS))


def test_places_put_winners_first_then_scores():
    table, _, _ = finished_table(["a", "b", "c", "d"], winners=(2,), scores=(5, 9, 1, 5))
    assert ratings.places(table) == [3, 2, 1, 3]
    table, _, _ = finished_table(["a", "b", "c"], winners=(0, 2))
    assert ratings.places(table) == [1, 2, 1]
    table, _, _ = finished_table(["a", "b"], winners=())
    assert ratings.places(table) == [1, 1]


def test_a_player_whose_seat_a_bot_took_keeps_the_result():
    left = gw.Seat(seat=0, kind=gw.SEAT_KIND_BOT, bot="random", player_id="p1", taken=True)
    assert ratings.participant(left) == "p1"
    assert ratings.participant(gw.Seat(seat=1, kind=gw.SEAT_KIND_BOT, bot="ismcts:level=3")) == "bot:ismcts:level=3"
    assert ratings.participant(gw.Seat(seat=2, kind=gw.SEAT_KIND_HUMAN, taken=True)) is None  # a guest


def test_a_player_who_left_early_is_scored_last_whatever_their_bot_made_of_it(store):
    """A seat taken over by a bot after its player's timeouts (the player left) comes after
    every other seat, and its bot's win is no win of the player's; it counts as left."""
    client, keys = store
    table, seed, salt = finished_table(["quitter", "stayer", "third"], winners=(0,), scores=(9, 5, 2))
    table.seats[0].kind, table.seats[0].bot = gw.SEAT_KIND_BOT, "random"
    assert ratings.places(table) == [3, 1, 2]
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "applied"
    quitter, stayer = standing(client, keys, "quitter"), standing(client, keys, "stayer")
    assert (quitter.games, quitter.wins, quitter.left) == (1, 0, 1)
    assert (stayer.left, quitter.mu < stayer.mu) == (0, True)
    assert ratings.reputation([quitter]) == (1, 0) and ratings.reputation([stayer]) == (1, 1)


def test_reputation_lets_a_newcomer_through_and_holds_a_record_to_the_share_asked():
    assert ratings.reputable(games=4, finished=0, wanted=0.9)  # no record yet
    assert not ratings.reputable(games=10, finished=8, wanted=0.9)
    assert ratings.reputable(games=10, finished=9, wanted=0.9)
    assert ratings.reputable(games=10, finished=0, wanted=0.0)  # asks nothing


def test_an_update_moves_winner_up_and_loser_down_once(store):
    client, keys = store
    table, seed, salt = finished_table(["alice", "bob", "bot:random"], winners=(0,), scores=(3, 2, 1))
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "applied"
    alice, bob, bot = (standing(client, keys, p) for p in ("alice", "bob", "bot:random"))
    assert alice.mu > ratings.DEFAULT_MU > bot.mu and alice.mu > bob.mu > bot.mu
    assert alice.sigma == ratings.DEFAULT_SIGMA  # three newcomers: none counts fully for another
    assert (alice.games, alice.wins, bob.wins) == (1, 1, 0)
    assert client.hget(keys.jobs, table.table_id) is None and client.zscore(keys.pending, table.table_id) is None
    # Sent again (a redelivered task), or the job written again: nothing moves.
    assert rating_tasks.apply(client, keys, table.table_id) == "no job"
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "applied before"
    assert standing(client, keys, "alice") == alice
    recent = client.lrange(keys.recent("alice"), 0, -1)
    assert len(recent) == 1 and table.table_id.encode() in recent[0]


@pytest.mark.parametrize(
    "spoil, reason",
    [
        (lambda table: setattr(table, "replay_mode", True), "replay mode"),
        (lambda table: setattr(table, "seed_commitment", b"\0" * 32), "commitment"),
        (lambda table: setattr(table, "rated", False), "not a rated table"),
    ],
)
def test_a_result_that_fails_its_checks_does_not_count(store, spoil, reason):
    client, keys = store
    table, seed, salt = finished_table(["alice", "bob"])
    spoil(table)
    assert reason in (rating_tasks.refusal(ratings_pb2.RatingJob(table=table, seed=seed, seed_salt=salt)) or "")
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "refused"
    assert standing(client, keys, "alice").games == 0
    assert client.hget(keys.jobs, table.table_id) is None


def test_tables_sharing_players_updated_at_once_lose_no_update(store):
    """Eight tables with the same two players, applied by eight threads at once: the
    version check makes the losers recompute, so both end with eight games."""
    client, keys = store
    tables = [finished_table(["alice", "bob"], winners=(index % 2,)) for index in range(8)]
    for table, seed, salt in tables:
        queue(client, keys, table, seed, salt)
    results: list[str] = []
    threads = [
        threading.Thread(target=lambda t=t: results.append(rating_tasks.apply(client, keys, t[0].table_id)))
        for t in tables
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["applied"] * 8
    alice, bob = standing(client, keys, "alice"), standing(client, keys, "bob")
    assert (alice.games, alice.wins, bob.games, bob.wins, alice.version) == (8, 4, 8, 4, 8)


def test_one_bot_at_two_seats_counts_for_nobody(store):
    client, keys = store
    table, seed, salt = finished_table(["bot:random", "bot:random", "carol"])
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "applied"
    assert standing(client, keys, "bot:random").games == 0 and standing(client, keys, "carol").games == 0


def earned_with_other_settings(client, keys: ratings.Keys, bot: str, game="borgia", games=12) -> None:
    """A bot's rating as a worker with other settings for it left it: on the leaderboard."""
    who = ratings.BOT_PREFIX + bot
    client.hset(
        keys.rating(game, who),
        mapping={"mu": 31.0, "sigma": 2.0, "games": games, "wins": 9, "q": games, "v": 12, "d": "0" * 16},
    )
    client.zadd(keys.board(game), {who: 1500.0})
    client.sadd(keys.bots(game), bot)


def test_a_bot_whose_settings_changed_starts_its_rating_again_at_its_next_table(store):
    """``ismcts:level=4`` keeps its string when its level's preset moves; the rating earned
    with the old settings does not carry over: the next table rates it from where its
    settings' calibration puts it, it is listed provisional (below every established player)
    until its provisional games are played again, and the version only counts on."""
    client, keys = store
    earned_with_other_settings(client, keys, "ismcts:level=4")
    table, seed, salt = finished_table(["alice", "bot:ismcts:level=4"], winners=(1,))
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "applied"
    bot = standing(client, keys, "bot:ismcts:level=4")
    assert (bot.games, bot.wins, bot.qualified, bot.version) == (1, 1, 0, 13)
    assert bot.settings == bot_specs.settings_digest("ismcts:level=4", "borgia")
    calibrated = bot_specs.calibration("ismcts:level=4", "borgia")
    assert calibrated is not None
    # A win over a provisional person: a tenth of a step up from its calibration, no surer.
    assert calibrated.rating < bot.rating < calibrated.rating + 10
    assert bot.uncertainty == pytest.approx(calibrated.uncertainty)
    assert client.zscore(keys.board("borgia"), "bot:ismcts:level=4") < -ratings.PROVISIONAL_BELOW / 2
    # With its settings unchanged, the next table goes on from there.
    table, seed, salt = finished_table(["alice", "bot:ismcts:level=4"], winners=(0,))
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "applied"
    again = standing(client, keys, "bot:ismcts:level=4")
    assert (again.games, again.wins, again.version, again.settings) == (2, 1, 14, bot.settings)
    assert standing(client, keys, "alice").settings == ""  # a person's rating has no settings


def test_a_worker_starting_restarts_only_the_ratings_earned_with_other_settings(store):
    client, keys = store
    earned_with_other_settings(client, keys, "ismcts:level=2", game="pecunia")
    table, seed, salt = finished_table(["bot:random", "bot:ismcts:level=3"], game="pecunia")
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "applied"
    current = {bot: standing(client, keys, "bot:" + bot, "pecunia") for bot in ("random", "ismcts:level=3")}
    client.sadd(keys.bots("pecunia"), "not-installed-here")  # a bot of another worker: kept

    assert rating_tasks.restart_stale_bots(client, keys) == [("pecunia", "ismcts:level=2")]
    level_2 = standing(client, keys, "bot:ismcts:level=2", "pecunia")
    calibrated = bot_specs.calibration("ismcts:level=2", "pecunia")
    assert calibrated is not None
    assert (level_2.games, level_2.wins, level_2.qualified, level_2.version) == (0, 0, 0, 13)
    # Started again from its settings' calibration, not a new player's 1500.
    assert (level_2.rating, level_2.uncertainty) == (
        pytest.approx(calibrated.rating),
        pytest.approx(calibrated.uncertainty),
    )
    assert level_2.settings == bot_specs.settings_digest("ismcts:level=2", "pecunia")
    # Back on the board, provisional: below every established one.
    score = client.zscore(keys.board("pecunia"), "bot:ismcts:level=2")
    assert score == pytest.approx(level_2.conservative - ratings.PROVISIONAL_BELOW)
    assert {bot: standing(client, keys, "bot:" + bot, "pecunia") for bot in current} == current
    assert rating_tasks.restart_stale_bots(client, keys) == []  # once


def test_a_levels_first_rated_game_starts_from_its_calibration_and_other_settings_from_1500(store):
    client, keys = store
    table, seed, salt = finished_table(["bot:ismcts:level=3", "bot:ismcts:level=2,slips=0.5"], game="mortadella")
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "applied"
    level_3 = standing(client, keys, "bot:ismcts:level=3", "mortadella")
    overridden = standing(client, keys, "bot:ismcts:level=2,slips=0.5", "mortadella")
    calibrated = bot_specs.calibration("ismcts:level=3", "mortadella")
    assert calibrated is not None and calibrated.rating < 1400  # below a new player's 1500
    assert bot_specs.calibration("ismcts:level=2,slips=0.5", "mortadella") is None  # not a preset as calibrated
    # The level won: it moved up a little from its calibration (a sure rating moves little),
    # the other setting lost from 1500, as a new player does.
    assert calibrated.rating < level_3.rating < calibrated.rating + 20
    assert level_3.uncertainty < calibrated.uncertainty + 10
    assert overridden.rating < 1500 and overridden.uncertainty > 400


# -- the farm: provisional opponents move a rating little and establish nobody ----------


def test_a_provisional_opponent_moves_a_mean_a_tenth_a_variance_not_and_qualifies_nobody():
    def shares(players, established):
        return [(share.mean, share.certainty, share.qualifies) for share in ratings.shares(players, established)]

    # Two people, neither established: each mean moves by a tenth, neither variance, and
    # neither game qualifies.
    assert shares(["farmer", "fresh"], [False, False]) == [(0.1, 0.0, False), (0.1, 0.0, False)]
    # Against an established player, in full; the established one, beating a newcomer, a tenth.
    assert shares(["newcomer", "regular"], [False, True]) == [(1.0, 1.0, True), (0.1, 0.0, False)]
    # Bots count fully for one another, established or not; a person's new bot does not.
    assert shares(["bot:random", "bot:ismcts"], [False, False]) == [(1.0, 1.0, True), (1.0, 1.0, True)]
    assert shares(["ada", "bot:random"], [False, False]) == [(0.1, 0.0, False), (0.1, 0.0, False)]
    # At a larger table, the mean over the opponents; one that counts fully qualifies the game.
    farmer = shares(["farmer", "regular", "fresh 1", "fresh 2"], [False, True, False, False])[0]
    assert farmer == (pytest.approx((1 + 0.1 + 0.1) / 3), pytest.approx(1 / 3), True)


def test_a_damped_update_moves_the_mean_and_the_variance_by_their_shares():
    assert ratings.damped(25.0, 8.0, 30.0, 6.0, ratings.Share(1.0, 1.0)) == (30.0, 6.0)
    assert ratings.damped(25.0, 8.0, 30.0, 6.0, ratings.Share(0.1, 0.0)) == (pytest.approx(25.5), 8.0)
    mu, sigma = ratings.damped(25.0, 8.0, 30.0, 6.0, ratings.Share(0.4, 0.5))
    assert mu == pytest.approx(27.0) and sigma**2 == pytest.approx(0.5 * 64 + 0.5 * 36)


def establish(client, keys: ratings.Keys, player: str, game="borgia") -> None:
    """A player past its provisional period, as the rating script leaves it."""
    games = ratings.provisional_games()
    client.hset(keys.rating(game, player), mapping={"mu": 26.0, "sigma": 3.0, "games": games, "wins": 5, "q": games})


def test_a_player_beating_fresh_accounts_is_never_established_by_them(store):
    client, keys = store
    played = ratings.provisional_games() + 5
    for index in range(played):
        table, seed, salt = finished_table(["farmer", f"fresh-{index}"], winners=(0,))
        queue(client, keys, table, seed, salt)
        assert rating_tasks.apply(client, keys, table.table_id) == "applied"
    farmer = standing(client, keys, "farmer")
    assert (farmer.games, farmer.wins, farmer.qualified) == (played, played, 0)
    assert farmer.sigma == ratings.DEFAULT_SIGMA  # no surer for it
    assert not farmer.established
    # Listed (provisional), below where any established player stands.
    assert client.zscore(keys.board("borgia"), "farmer") < -ratings.PROVISIONAL_BELOW / 2
    # Fifteen wins moved it about as far as two would have in full.
    model = PlackettLuce()
    first_win = model.rate([[model.rating()], [model.rating()]], ranks=[1, 2])[0][0].mu - ratings.DEFAULT_MU
    assert ratings.DEFAULT_MU < farmer.mu < ratings.DEFAULT_MU + 2 * first_win


def test_games_against_established_players_establish_a_player(store):
    client, keys = store
    establish(client, keys, "regular")
    provisional = ratings.provisional_games()
    for index in range(provisional):
        table, seed, salt = finished_table(["newcomer", "regular"], winners=(index % 2,))
        queue(client, keys, table, seed, salt)
        assert rating_tasks.apply(client, keys, table.table_id) == "applied"
        newcomer = standing(client, keys, "newcomer")
        assert newcomer.qualified == index + 1
        # Listed from its first game, below every established player until it is one.
        listed_established = client.zscore(keys.board("borgia"), "newcomer") > -ratings.PROVISIONAL_BELOW / 2
        assert listed_established == newcomer.established
    assert newcomer.established
    # The regular played a newcomer each time: listed throughout, its games not qualifying.
    regular = standing(client, keys, "regular")
    assert regular.qualified == provisional and client.zscore(keys.board("borgia"), "regular") is not None


def test_a_rating_written_before_qualifying_games_is_listed_provisional_at_its_next_game(store):
    client, keys = store
    games = ratings.provisional_games() + 3
    client.hset(keys.rating("borgia", "old"), mapping={"mu": 30.0, "sigma": 3.0, "games": games, "wins": 9})
    client.zadd(keys.board("borgia"), {"old": 1260.0})
    table, seed, salt = finished_table(["old", "fresh"], winners=(0,))
    queue(client, keys, table, seed, salt)
    assert rating_tasks.apply(client, keys, table.table_id) == "applied"
    assert client.zscore(keys.board("borgia"), "old") < -ratings.PROVISIONAL_BELOW / 2
    assert standing(client, keys, "old").qualified == 0


def test_a_bots_settings_digest_follows_its_games_preset_not_its_string():
    digest = bot_specs.settings_digest
    assert digest("ismcts:level=2", "pecunia") != digest("ismcts:level=2", "borgia")
    assert digest("ismcts:level=2", "pecunia") == digest("ismcts:slips=0.6,level=2", "pecunia")
    assert digest("ismcts", "borgia") == digest("ismcts:level=8", "borgia")
    assert digest("ismcts:level=2", "borgia") != digest("ismcts:level=2,slips=0.6", "borgia")

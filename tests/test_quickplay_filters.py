"""Quick play's filters (gateway/matchmaking/tickets.py ``group_for``): it never seats
together two players of whom one blocked the other (gateway/social.py), nor a player below
the share of finished games another searcher asks (FindGameRequest.min_reputation)."""

from gateway.matchmaking.tickets import Settings, Ticket, group_for


def ticket(name: str, rating: float = 1500.0, since: float = 0.0, record=(0, 0), wants: float = 0.0) -> Ticket:
    return Ticket(f"s-{name}", name, name, rating, 2, 3, since, True, "home", record[0], record[1], wants)


def test_a_blocked_pair_is_never_grouped():
    ada, bea, cid = ticket("ada"), ticket("bea"), ticket("cid")
    settings = Settings()
    assert group_for(ada, [ada, bea, cid], 1.0, settings) == ([ada, bea, cid], 3)
    blocked = {frozenset(("ada", "bea"))}
    assert group_for(ada, [ada, bea, cid], 1.0, settings, blocked) == ([ada, cid], 2)
    # Either way round, and for any member of the group, not only the anchor.
    blocked = {frozenset(("cid", "bea"))}
    assert group_for(ada, [ada, bea, cid], 1.0, settings, blocked) == ([ada, bea], 2)


def test_a_searcher_whose_only_match_is_blocked_waits_or_gets_bots():
    ada, bea = ticket("ada"), ticket("bea")
    blocked = {frozenset(("ada", "bea"))}
    settings = Settings(bot_fill_seconds=20.0)
    assert group_for(ada, [ada, bea], 1.0, settings, blocked) is None
    # Past the bot-fill time the anchor is seated with bots, still not with Bea.
    assert group_for(ada, [ada, bea], 25.0, settings, blocked) == ([ada], 2)


def test_a_searcher_asking_for_finishers_is_not_seated_with_a_quitter():
    ada = ticket("ada", wants=0.9)
    quitter = ticket("bea", record=(20, 12))  # finished 60%
    finisher = ticket("cid", record=(20, 19))  # 95%
    newcomer = ticket("dan", record=(3, 0))  # too few games for a record: let through
    settings = Settings()
    assert group_for(ada, [ada, quitter, finisher, newcomer], 1.0, settings) == ([ada, finisher, newcomer], 3)


def test_the_filter_goes_both_ways():
    # Bea asks for finishers; Ada has left half her games: neither is seated with the other,
    # whoever anchors the table.
    ada = ticket("ada", record=(10, 5))
    bea = ticket("bea", wants=0.8)
    settings = Settings()
    assert group_for(ada, [ada, bea], 1.0, settings) is None
    assert group_for(bea, [ada, bea], 1.0, settings) is None

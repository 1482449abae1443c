"""Quick play never seats together two players of whom one blocked the other
(gateway/social.py, gateway/matchmaking/tickets.py ``group_for``)."""

from gateway.matchmaking.tickets import Settings, Ticket, group_for


def ticket(name: str, rating: float = 1500.0, since: float = 0.0) -> Ticket:
    return Ticket(f"s-{name}", name, name, rating, 2, 3, since, True, "home")


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

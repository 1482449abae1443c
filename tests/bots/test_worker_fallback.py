"""The bot task (bots/worker/tasks.py) resolves the bot through the registry, submits with the
deterministic request id, and plays a random legal action when the bot fails, so a
faulty bot never stalls a table."""

import dataclasses
import random

import pytest
from google.protobuf import any_pb2
from structlog.testing import capture_logs

from bots.lab.offline import view_response
from bots.worker import registry, tasks
from services import bot_specs
from services.registry import get_game
from tavola.gateway.v1 import gateway_pb2
from tavola.rules.v1 import rules_pb2

VERSION = 7


class FakeGateway:
    """GetView answers a Borgia seat that must decide; SubmitAction records the request."""

    def __init__(self, response: gateway_pb2.GetViewResponse):
        self.response = response
        self.submitted: list[gateway_pb2.SubmitActionRequest] = []

    def GetView(self, request, metadata=None, timeout=None):
        return self.response

    def SubmitAction(self, request, metadata=None, timeout=None):
        self.submitted.append(request)
        return gateway_pb2.SubmitActionResponse()


def _raises(response, rng):
    raise RuntimeError("the bot broke")


def _illegal(response, rng):
    return rules_pb2.LegalAction(label="nonsense")


def _not_an_action(response, rng):
    return None


def _last(response, rng):
    return rules_pb2.LegalAction(action=response.legal_actions[-1].action, label="relabelled")


@pytest.fixture
def gateway(monkeypatch):
    game = get_game("borgia")
    state, _ = game.engine.new_game(3, {}, 5)
    seat = game.engine.deciders(state)[0]
    response = view_response(game, state, seat)
    response.table.version = VERSION
    response.table.table_id = "t1"
    fake = FakeGateway(response)
    monkeypatch.setattr(tasks, "gateway_stub", lambda: fake)
    real = bot_specs.load_bots()
    extra = {
        name: dataclasses.replace(real["random"], name=name, make=lambda game_id, options, s=strategy: s)
        for name, strategy in [("raises", _raises), ("illegal", _illegal), ("none", _not_an_action), ("last", _last)]
    }
    monkeypatch.setattr(bot_specs, "load_bots", lambda: {**real, **extra})
    registry.make_strategy.cache_clear()
    yield fake
    registry.make_strategy.cache_clear()


def _labels(fake: FakeGateway) -> list[str]:
    return [option.label for option in fake.response.legal_actions]


@pytest.mark.parametrize(
    ("bot", "event"),
    [
        ("raises", "bot_strategy_failed"),
        ("illegal", "bot_illegal_choice"),
        ("none", "bot_illegal_choice"),
        ("nobody", "bad_bot"),
    ],
)
def test_a_failing_bot_is_logged_and_a_random_legal_action_is_played(gateway, bot, event):
    with capture_logs() as logs:
        label = tasks.decide("t1", gateway.response.seat, VERSION, bot)
    assert label in _labels(gateway)
    assert [entry["event"] for entry in logs].count(event) == 1
    (submitted,) = gateway.submitted
    assert submitted.request_id == f"bot-{gateway.response.seat}-{VERSION}"
    assert submitted.expected_version == VERSION
    assert any(submitted.action == option.action for option in gateway.response.legal_actions)


def test_the_fallback_is_deterministic(gateway):
    first = tasks.decide("t1", gateway.response.seat, VERSION, "raises")
    assert tasks.decide("t1", gateway.response.seat, VERSION, "raises") == first
    assert gateway.submitted[0] == gateway.submitted[1]


def test_a_good_choice_is_submitted_with_the_legal_actions_own_label(gateway):
    label = tasks.decide("t1", gateway.response.seat, VERSION, "last")
    assert label == _labels(gateway)[-1]
    assert gateway.submitted[0].action == gateway.response.legal_actions[-1].action


def test_a_bot_with_options_is_resolved_for_the_tables_game(gateway):
    label = tasks.decide("t1", gateway.response.seat, VERSION, "ismcts:level=5,iterations=20,budget_ms=0")
    assert label in _labels(gateway)


def test_a_stale_task_submits_nothing(gateway):
    assert tasks.decide("t1", gateway.response.seat, VERSION + 1, "random") == "stale"
    assert gateway.submitted == []


def test_choose_keeps_a_legal_choice():
    response = gateway_pb2.GetViewResponse(
        legal_actions=[
            rules_pb2.LegalAction(action=any_pb2.Any(type_url="t/a"), label="a"),
            rules_pb2.LegalAction(action=any_pb2.Any(type_url="t/b"), label="b"),
        ]
    )
    choice, fell_back = tasks.choose(lambda r, rng: r.legal_actions[1], response, random.Random(0))
    assert (choice.label, fell_back) == ("b", False)

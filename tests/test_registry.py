"""What deployment takes from the game registry: each game's rules port, declared or
derived from its id alone, so that no game's port depends on which others are installed;
two games on one port, or a game on the gateway's, are refused with both named."""

import pytest

from services import registry
from services.registry import DERIVED_PORTS, RESERVED_PORTS, derived_port, game_ids, game_ids_of, get_game, rules_port


def test_every_game_has_its_declared_or_derived_port_and_no_two_share_one():
    ports = {}
    for game in game_ids():
        declared = get_game(game).rules_port
        assert rules_port(game) == (declared if declared is not None else derived_port(game))
        assert rules_port(game) not in RESERVED_PORTS
        ports[rules_port(game)] = game
    assert len(ports) == len(game_ids())


def test_tavolas_own_games_keep_the_ports_the_deploy_files_were_written_with():
    assert {game: rules_port(game) for game in game_ids_of("tavola")} == {
        "borgia": 50061,
        "mortadella": 50062,
        "pecunia": 50063,
    }


def test_a_derived_port_depends_on_the_game_id_alone():
    assert derived_port("coin") == derived_port("coin") in DERIVED_PORTS
    assert len({derived_port(f"game{index}") for index in range(50)}) > 45  # spread over the range


def test_two_games_on_one_port_are_refused_naming_both():
    with pytest.raises(ValueError, match="'one' and 'two' both take rules port 50070"):
        registry._check_ports({"one": 50070, "two": 50070})
    with pytest.raises(ValueError, match="reserved"):
        registry._check_ports({"one": 50051})
    registry._check_ports({"one": 50070, "two": 50071})


def test_the_games_of_a_distribution():
    assert set(game_ids_of("tavola")) <= set(game_ids())
    assert game_ids_of("no-such-distribution") == ()

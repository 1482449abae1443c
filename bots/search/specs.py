"""tavola's game-agnostic bots as the ``tavola.bots`` entry points in ``pyproject.toml`` load
them: their specs alone (``services/bot_specs.py``), each naming the function that builds its
strategy (``bots/search/makers.py``, ``bots/search/openspiel_bots.py``), so that reading the list
of bots loads none of their code. Each game's own bots are declared beside its playbook
(``bots/<game>/specs.py``).
"""

from collections.abc import Iterator, Mapping

from bots.search import calibration
from bots.search.playbooks import EVEN_SLIPS, Levels, level_schedules
from services.bot_specs import BAD_BOT_OPTION, BotError, BotOption, BotSpec, Calibration
from services.engine.api import OptionValue


def _check_ismcts(options: Mapping[str, OptionValue]) -> None:
    if not options["budget_ms"] and not options["iterations"]:
        raise BotError(BAD_BOT_OPTION, "bot 'ismcts' needs budget_ms or iterations above 0, or it never stops")


def _check_openspiel_ismcts(options: Mapping[str, OptionValue]) -> None:
    if not options["budget_ms"] and not options["iterations"]:
        raise BotError(BAD_BOT_OPTION, "bot 'openspiel-ismcts' needs budget_ms or iterations above 0")


RANDOM = BotSpec(
    name="random",
    description="Plays one of its legal actions uniformly at random.",
    strength=0,
    strength_note="The baseline every other bot is measured against.",
    make="bots.search.makers:make_random",
)

# The search bot's levels: level -> (the ismcts options it stands for, what it is). Level 8 is
# the strongest settings measured (the default); every lower level plays them too, with a
# fixed count of paired rounds (so its search does not shrink on a busy host), on one axis: a
# share of its decisions (``slips``) is played as a uniformly random legal action without
# searching, never where its own view settles the answer. bots/search/levels.py lists them;
# docs/bots.md ("Bot strength and levels") says how the shares were calibrated.
_STRONG = {"guide": "heuristic", "rollout": "sharp", "overrule": "2.0", "paired": "8", "belief": "inferred"}
DEFAULT_LEVEL = 8
LEVEL_ROUNDS = "16"  # paired rounds a searched decision of levels 1-7 (level 8: as many as 200 ms allow)
# Each game's shares, levels 1 to 8, and what level 8 alone adds in it, are its playbook's
# (``Levels``, bots/search/playbooks.py); a game without plays the even schedule.
NO_TOP: tuple[Mapping[str, str], str, str] = ({}, "", "")


def _levels(schedule: Levels) -> dict[int, tuple[dict[str, str], str]]:
    top_options, top_note, below_note = schedule.top or NO_TOP
    levels: dict[int, tuple[dict[str, str], str]] = {}
    for level, slips in enumerate(schedule.slips, start=1):
        if level == DEFAULT_LEVEL:
            levels[level] = (
                {**_STRONG, **top_options, "budget_ms": "200", "slips": slips},
                "the strongest settings measured (the default)" + (f", {top_note}" if top_note else ""),
            )
        else:
            levels[level] = (
                {**_STRONG, "budget_ms": "200", "iterations": LEVEL_ROUNDS, "slips": slips},
                "level 8's settings, "
                + (f"{below_note}, " if below_note else "")
                + f"{LEVEL_ROUNDS} paired rounds a decision, {float(slips):.0%} of its decisions played at random",
            )
    return levels


LEVELS = _levels(Levels(EVEN_SLIPS))  # a game without its own schedule


def game_levels() -> dict[str, dict[int, tuple[dict[str, str], str]]]:
    """Each game's own levels, from its playbook's schedule (read, not its code)."""
    return {game_id: _levels(schedule) for game_id, schedule in level_schedules().items()}


def _preset_table(levels: dict[int, tuple[dict[str, str], str]]) -> dict[str, dict[str, str]]:
    return {str(level): options for level, (options, _) in levels.items()}


class _GamePresets(Mapping[str, Mapping[str, Mapping[str, str]]]):
    """Each game's own level presets, read from the playbooks when first asked (a playbook
    installed later is read too: ``load_playbooks`` caches the registry, not this)."""

    def _tables(self) -> dict[str, dict[str, dict[str, str]]]:
        return {game_id: _preset_table(levels) for game_id, levels in game_levels().items()}

    def __getitem__(self, game_id: str) -> Mapping[str, Mapping[str, str]]:
        return self._tables()[game_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables())

    def __len__(self) -> int:
        return len(self._tables())


class _GameCalibrations(Mapping[str, Mapping[str, Calibration]]):
    """Each game's calibrated levels (``bots/search/calibration.py``), read when first asked."""

    def __getitem__(self, game_id: str) -> Mapping[str, Calibration]:
        if game_id not in level_schedules():
            raise KeyError(game_id)
        return calibration.levels(game_id)

    def __iter__(self) -> Iterator[str]:
        return iter(level_schedules())

    def __len__(self) -> int:
        return len(level_schedules())


ISMCTS = BotSpec(
    name="ismcts",
    description="Information-set Monte Carlo tree search: plays out many games from states consistent with "
    "what it sees and picks the action that wins most. Plays every game. level=1..8 picks a preset of the other "
    "options (8, the default, plays the strongest settings known).",
    strength=70,
    strength_note="At its default level it compares the heuristic's first eight choices on paired playouts and "
    "reads the others' hidden roles from their play, and in Borgia and two-player Mortadella hides its own "
    "puppet or role from players who read it: "
    "Borgia 89.5% of 2-player games against borgia-heuristic, "
    "Mortadella 59% of 2-player games against its heuristic (300 games), Pecunia 58% (400 games). "
    "More time plays better.",
    make="bots.search.makers:make_ismcts",
    check=_check_ismcts,
    presets=("level", _preset_table(LEVELS)),
    game_presets=_GamePresets(),
    calibrations=_GameCalibrations(),
    options=(
        BotOption(
            "level",
            "1 (weakest) to 8 (strongest): a preset of the options below; any option given overrides it.",
            "int",
            str(DEFAULT_LEVEL),
            (),
            min(LEVELS),
            max(LEVELS),
        ),
        BotOption(
            "budget_ms",
            "Thinking time per decision in milliseconds (0: no limit).",
            "int",
            "200",
            (),
            0,
            60000,
        ),
        BotOption(
            "guide",
            "heuristic: the game's heuristic models the other players and ranks its own candidates; none: plain "
            "search with no heuristic anywhere.",
            "enum",
            "heuristic",
            ("heuristic", "none"),
        ),
        BotOption(
            "iterations",
            "Playouts per decision, or with paired rounds of paired playouts (0: no limit; levels 1-7 set 16).",
            "int",
            "0",
            (),
            0,
            1_000_000,
        ),
        BotOption("c", "UCB exploration constant.", "float", "0.7", (), 0, 100),
        BotOption(
            "rollout",
            "How playouts choose: random, or the game's heuristic (random where the game has none), or "
            "sharp: the bot's own seat by a sharper heuristic where the game has one (Mortadella: two-player "
            "guesses by the odds of the deal and the tokens; Borgia: rumors aimed at the puppets the others' "
            "performs point to), which also ranks its candidates.",
            "enum",
            "sharp",
            ("random", "heuristic", "sharp"),
        ),
        BotOption(
            "overrule",
            "How sure the search must be to overrule the game's heuristic: the lead, in standard errors, "
            "another action's playouts need over the heuristic's choice (0: follow the playouts alone).",
            "float",
            "2.0",
            (),
            0,
            10,
        ),
        BotOption(
            "paired",
            "Where the game has a heuristic, compare only its first N choices, each played out from the "
            "same sampled states with the same dice (0: grow a search tree over every action instead). "
            "Stronger against heuristic players, weaker against random ones.",
            "int",
            "8",
            (),
            0,
            16,
        ),
        BotOption(
            "belief",
            "How it redraws what it cannot see: uniform, or inferred (weighted by what the others' play "
            "reveals, where the game has such a belief: Mortadella's roles from their tokens, Borgia's puppets "
            "from their performs; fitted on heuristic players), or wary: inferred, expecting that a player may "
            "open with decoys (Borgia: a mixture of an honest and a deceptive reading of each player's performs, "
            "weighed by how well each explains that player's play; elsewhere as inferred).",
            "enum",
            "inferred",
            ("uniform", "inferred", "wary"),
        ),
        BotOption(
            "self_read",
            "on: the other players in its playouts read its own public play as it reads theirs (Borgia: its "
            "puppet from its performs, by the sharp policy), so a move that gives its secret away costs what it "
            "costs there; its own seat plays out and ranks its moves by a policy that keeps its secret from "
            "such readers (Borgia: no perform that makes its puppet the first a reader would name, until a "
            "player is on its last die, or its puppet would finish behind), and the open move and decoys are "
            "compared too; off: the others play the plain heuristic. Only where the game has such a reading "
            "(Borgia; Mortadella, two players: its role from its tokens, and it holds back a guess the "
            "reader's miss should come before; level 8, the default, sets it on in both).",
            "enum",
            "off",
            ("off", "on"),
        ),
        BotOption(
            "slips",
            "The share of its decisions played as a uniformly random legal action without searching (0: none, "
            "1: all), never where its own view settles the answer; the weaker levels' one setting (the level sets it).",
            "float",
            "0",
            (),
            0,
            1,
        ),
    ),
)


OPENSPIEL_RANDOM = BotSpec(
    name="openspiel-random",
    description="OpenSpiel's uniform random bot, through the OpenSpiel adapter (needs the openspiel extra).",
    strength=0,
    strength_note="Plays like the random bot; it checks the adapter.",
    make="bots.search.openspiel_bots:make_random",
    requires=("pyspiel",),
)

OPENSPIEL_ISMCTS = BotSpec(
    name="openspiel-ismcts",
    description="OpenSpiel's information-set MCTS (random rollouts) through the OpenSpiel adapter "
    "(needs the openspiel extra). Plays every game.",
    strength=60,
    strength_note="Beats random bots given some 30 simulations a decision (about 150 ms in Borgia); "
    "tavola's ismcts beats it at the same time budget, doing 2-3 times more simulations.",
    make="bots.search.openspiel_bots:make_ismcts",
    check=_check_openspiel_ismcts,
    requires=("pyspiel",),
    options=(
        BotOption("budget_ms", "Thinking time per decision in milliseconds (0: no limit).", "int", "200", (), 0, 60000),
        BotOption("iterations", "Simulations per decision (0: no limit).", "int", "0", (), 0, 1_000_000),
        BotOption("c", "UCT exploration constant.", "float", "0.7", (), 0, 100),
    ),
)

# The probes: simple, fixed ways of playing that a strong bot must beat, each marked by this
# note (a game's own: bots/borgia/specs.py); python -m bots.lab.arena --gauntlet plays them.
PROBE_NOTE = "A probe of one weakness: every strong bot must beat it (python -m bots.lab.arena --gauntlet)."

FIRST_LEGAL = BotSpec(
    name="first-legal",
    description="Probe: always plays its first legal action.",
    strength=0,
    strength_note=PROBE_NOTE,
    make="bots.search.strategies:make_first_legal",
)

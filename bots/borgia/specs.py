"""House of Borgia's own bots as their ``tavola.bots`` entry points load them: their specs
alone (``services/bot_specs.py``), each naming the function that builds its strategy, so
that reading the list of bots loads none of their code. The probes (``bots/borgia/probes.py``)
carry the probe note, by which the arena's gauntlet finds them.
"""

from bots.search.specs import PROBE_NOTE
from services.bot_specs import BotSpec

BORGIA_ODDS = BotSpec(
    name="borgia-odds",
    description="Reads its own dice and puppet and plays the odds: calls unlikely bids, bids its best margin, "
    "helps its puppet up the ladder.",
    strength=30,
    strength_note="Beats random bots clearly; borgia-heuristic beats it four games to one.",
    make="bots.borgia.odds:make_borgia_odds",
    games=("borgia",),
)

BORGIA_HEURISTIC = BotSpec(
    name="borgia-heuristic",
    description="Plays the odds like borgia-odds, and weighs what each action does to the standings: bids the "
    "action worth most to its puppet among bids likely to hold, and performs what leaves its puppet best placed.",
    strength=40,
    strength_note="Wins 90% of 2-player games against a random bot and about three times its fair share with more "
    "players; a search bot beats it.",
    make="bots.search.makers:make_heuristic",
    games=("borgia",),
)

BORGIA_SLY = BotSpec(
    name="borgia-sly",
    description="Reads the others' puppets from their performs and aims its rumors at them, and keeps its own "
    "puppet hidden: no perform makes its puppet the first a reader would name (it lowers rivals, or raises a "
    "decoy), until a player is on its last die.",
    strength=50,
    strength_note="A light bot that is not read at a glance: about 57% of 2-player games against the reading "
    "probes (borgia-honest-reader, borgia-decoy) and 66% against borgia-heuristic.",
    make="bots.borgia.stealth:make_borgia_sly",
    games=("borgia",),
)

BORGIA_DECOY = BotSpec(
    name="borgia-decoy",
    description="Probe: reads the others' puppets and aims rumors, but its first two performs back a decoy "
    "cardinal that is not its puppet.",
    strength=45,
    strength_note=PROBE_NOTE,
    make="bots.borgia.probes:make_decoy",
    games=("borgia",),
)

BORGIA_HONEST_READER = BotSpec(
    name="borgia-honest-reader",
    description="Probe: reads the others' puppets and aims rumors, and never bluffs: it bids only what its own "
    "dice already make true, where it can.",
    strength=45,
    strength_note=PROBE_NOTE,
    make="bots.borgia.probes:make_honest_reader",
    games=("borgia",),
)

BORGIA_ALWAYS_CALL = BotSpec(
    name="borgia-always-call",
    description="Probe: the Borgia heuristic, but it calls every bid.",
    strength=30,
    strength_note=PROBE_NOTE,
    make="bots.borgia.probes:make_always_call",
    games=("borgia",),
)

BORGIA_ALWAYS_ALLOW = BotSpec(
    name="borgia-always-allow",
    description="Probe: the Borgia heuristic, but it allows every bid it may.",
    strength=30,
    strength_note=PROBE_NOTE,
    make="bots.borgia.probes:make_always_allow",
    games=("borgia",),
)

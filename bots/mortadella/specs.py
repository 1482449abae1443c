"""Il Trono di Mortadella's own bots as their ``tavola.bots`` entry points load them: their specs alone
(``services/bot_specs.py``). Its heuristic bot plays the heuristic of the game's playbook
(``bots/mortadella/playbook.py``).
"""

from services.bot_specs import BotSpec

MORTADELLA_HEURISTIC = BotSpec(
    name="mortadella-heuristic",
    description="Hand-written rules for Il Trono di Mortadella, from its own view only.",
    strength=40,
    strength_note="Beats random bots; a search bot beats it.",
    make="bots.search.makers:make_heuristic",
    games=("mortadella",),
)

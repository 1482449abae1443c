"""Pecunia non olet's own bots as their ``tavola.bots`` entry points load them: their specs alone
(``services/bot_specs.py``). Its heuristic bot plays the heuristic of the game's playbook
(``bots/pecunia/playbook.py``).
"""

from services.bot_specs import BotSpec

PECUNIA_HEURISTIC = BotSpec(
    name="pecunia-heuristic",
    description="Hand-written rules for Pecunia non olet, from its own view only.",
    strength=40,
    strength_note="Beats random bots; a search bot beats it.",
    make="bots.search.makers:make_heuristic",
    games=("pecunia",),
)

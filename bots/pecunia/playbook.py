"""Pecunia non olet's playbook for the search bot (``bots/search/playbooks.py``), registered
in ``pyproject.toml`` under ``tavola.playbooks``. Light: it names the code
(``bots.pecunia.heuristic``), imported where a search plays Pecunia.

- heuristic (also the bot's own seat's: Pecunia has no sharper one), no belief (the search
  redraws the hidden cards uniformly);
- settled: collecting when what it pays reaches the target, and the Castor oil that makes a
  Roman pay at this collection when that reaches it (P4, P7): certain wins;
- levels: shares spaced geometrically toward 0, where Pecunia's strength lies.
"""

from bots.search.playbooks import GEOMETRIC_SLIPS, Levels, Playbook

PLAYBOOK = Playbook(
    game_id="pecunia",
    heuristic="bots.pecunia.heuristic:pecunia_heuristic_policy",
    settled="bots.pecunia.heuristic:settled_answer",
    settled_wins=True,
    levels=Levels(GEOMETRIC_SLIPS, calibration="bots.pecunia:calibration.json"),
)

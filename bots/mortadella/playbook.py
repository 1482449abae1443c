"""Il Trono di Mortadella's playbook for the search bot (``bots/search/playbooks.py``),
registered in ``pyproject.toml`` under ``tavola.playbooks``. Light: it names the code
(``bots.mortadella.heuristic``, ``.roles``, ``.settled``), imported where a search plays Mortadella.

- heuristic, and a sharper one for the bot's own seat (two-player guesses by the odds of
  the deal and the tokens);
- belief: the others' roles from their tokens;
- settled: a guess of a role the deal leaves certain (M16, M19), a die that completes its
  own row (M15): certain wins;
- levels: the even schedule (its strength falls about evenly with the share).
"""

from bots.search.playbooks import EVEN_SLIPS, Levels, Playbook

PLAYBOOK = Playbook(
    game_id="mortadella",
    heuristic="bots.mortadella.heuristic:mortadella_heuristic_policy",
    sharp="bots.mortadella.heuristic:mortadella_sharp_policy",
    belief="bots.mortadella.roles:role_belief",
    settled="bots.mortadella.settled:settled_answer",
    settled_wins=True,
    levels=Levels(EVEN_SLIPS, calibration="bots.mortadella:calibration.json"),
)

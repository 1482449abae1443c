"""Il Trono di Mortadella's playbook for the search bot (``bots/search/playbooks.py``),
registered in ``pyproject.toml`` under ``tavola.playbooks``. Light: it names the code
(``bots.mortadella.heuristic``, ``.roles``, ``.settled``), imported where a search plays Mortadella.

- heuristic, and a sharper one for the bot's own seat (two-player guesses by the odds of
  the deal and the tokens);
- belief: the others' roles from their tokens;
- settled: a guess of a role the deal leaves certain (M16, M19), a die that completes its
  own row (M15): certain wins;
- self_read: the others read the bot's role from its tokens as the heuristic does, and it
  hides its role from them in two-player games (``bots.mortadella.hiding``);
- levels: the even schedule (its strength falls about evenly with the share); level 8 alone
  hides its role (``self_read=on``), levels 1-7 play as they were calibrated.
"""

from bots.search.playbooks import EVEN_SLIPS, Levels, Playbook, SelfRead

PLAYBOOK = Playbook(
    game_id="mortadella",
    heuristic="bots.mortadella.heuristic:mortadella_heuristic_policy",
    sharp="bots.mortadella.heuristic:mortadella_sharp_policy",
    belief="bots.mortadella.roles:role_belief",
    settled="bots.mortadella.settled:settled_answer",
    settled_wins=True,
    self_read=SelfRead(
        reader="bots.mortadella.heuristic:mortadella_heuristic_policy",
        candidates="bots.mortadella.heuristic:open_candidates",
        hider="bots.mortadella.heuristic:mortadella_hiding_policy",
    ),
    levels=Levels(
        EVEN_SLIPS,
        ({"self_read": "on"}, "hiding its role from players who read it", "not hiding its role"),
        calibration="bots.mortadella:calibration.json",
    ),
)

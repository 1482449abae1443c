"""House of Borgia's playbook for the search bot (``bots/search/playbooks.py``), registered
in ``pyproject.toml`` under ``tavola.playbooks``. Light: it names the code, imported where
a search plays Borgia.

- heuristic: plays the odds and weighs the standings (``bots.borgia.heuristic``);
- sharp: reads the others' puppets from their performs and aims rumors (``bots.borgia.puppets``);
- belief: the puppets the others' performs point to; wary: a mixture of an honest and a
  deceptive reading, weighed per player;
- self_read: the others read the bot as it reads them, and it hides its puppet
  (``bots.borgia.stealth``);
- settled: bids its own dice prove or refute (B4), and the last-die ends (B7-B9;
  ``bots.borgia.endgame``);
- levels: the even schedule; level 8 alone hides its puppet (``self_read=on``): against a
  mixed field that wins more than playing openly, and it is what sets level 8 apart from
  7, which read each other to a standstill (docs/bots.md, "Reading and hiding").
"""

from bots.search.playbooks import EVEN_SLIPS, Levels, Playbook, SelfRead

PLAYBOOK = Playbook(
    game_id="borgia",
    heuristic="bots.borgia.heuristic:borgia_heuristic_policy",
    sharp="bots.borgia.puppets:borgia_sharp_policy",
    belief="bots.borgia.puppets:puppet_belief",
    wary_belief="bots.borgia.puppets:wary_puppet_belief",
    self_read=SelfRead(
        reader="bots.borgia.puppets:borgia_sharp_policy",
        candidates="bots.borgia.stealth:stealth_candidates",
        hider="bots.borgia.stealth:borgia_stealth_policy",
    ),
    settled="bots.borgia.endgame:settled_answer",
    levels=Levels(
        EVEN_SLIPS,
        ({"self_read": "on"}, "hiding its puppet from players who read it", "not hiding its puppet"),
        calibration="bots.borgia:calibration.json",
    ),
)

"""House of Borgia's bots: heuristic, odds, puppets, stealth, endgame, probes; its specs and playbook."""

"""Il Trono di Mortadella's bots: its heuristic, its specs and playbook."""

"""Pecunia non olet's bots: its heuristic, its specs and playbook."""

"""The search bot and the game-agnostic bots: they learn a game from its playbook (``playbooks.py``)."""

"""tavola's bots, in wings (docs/bots.md, "Where the bots' code lives"): ``search`` (the
search and the game-agnostic bots, the playbooks' registry), one wing per game, ``worker``
(the Celery worker that plays bot seats through the gateway) and ``lab`` (the arena)."""

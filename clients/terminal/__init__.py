"""The terminal client: play, join, spectate or rejoin a table of any hosted game.

    make play GAME=borgia PLAYERS=3          # against bots, on a running or a private stack
    python -m clients.terminal --help        # every option

Its core knows no game: it draws the typed view through the game's renderer (a generic one
for games it has none for), tells the seat's events in words, and offers the seat's legal
actions as short menus. A game's renderer lives in ``renderers/<game_id>.py``.
"""

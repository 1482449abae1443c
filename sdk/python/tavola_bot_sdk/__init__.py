"""tavola-bot-sdk: write a bot for a tavola platform as one function.

    from tavola_bot_sdk import Client

    def decide(view, legal_actions):
        return legal_actions[0]

    with Client("127.0.0.1:50051") as client:
        result = client.new_table("borgia", ["ismcts"]).play(decide)

The bot plays a seat through the platform's public gateway only (``tavola_bot_sdk.client``);
``python -m tavola_bot_sdk.arena`` measures it against the platform's bots and probes.
The public API's messages and stubs come with it: ``tavola.gateway.v1``,
``tavola.rules.v1`` and each game's ``tavola.<game>.v1``.
"""

from tavola_bot_sdk.client import BadDecision, Client, Decide, LegalAction, Result, Seat, unpack

__all__ = ["BadDecision", "Client", "Decide", "LegalAction", "Result", "Seat", "unpack"]

"""What the chat tests share: players, tables seated with player tokens, played to the end."""

import random
import secrets
from dataclasses import dataclass, field

import grpc
import pytest

from common import auth
from common.errors import reason_of
from tavola.gateway.v1 import chat_pb2 as chat
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.gateway.v1 import players_pb2 as pl

PLAYERS, SPECTATORS, LOBBY = chat.CHAT_CHANNEL_PLAYERS, chat.CHAT_CHANNEL_SPECTATORS, chat.CHAT_CHANNEL_LOBBY


def new_player(players, stem: str = "Chatter") -> tuple[str, str]:
    """(player id, token) of a new player, its name unique in the suite."""
    created = players.CreatePlayer(pl.CreatePlayerRequest(display_name=f"{stem} {secrets.token_hex(4)}"))
    return created.player.player_id, created.player_token


def refused(call, code: grpc.StatusCode, reason: str) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    assert reason_of(caught.value) == reason, caught.value.details()
    return caught.value


@dataclass
class ChatTable:
    """A table of ``seats`` players, each seated with a player token, and its host token."""

    table_id: str
    host_token: str
    players: list[tuple[str, str]]  # (player id, player token) by seat
    seat_tokens: list[str] = field(default_factory=list)

    @classmethod
    def make(cls, gateway, players_stub, seats: int = 2, game: str = "borgia", **fields) -> "ChatTable":
        created = gateway.CreateTable(gw.CreateTableRequest(game_id=game, player_count=seats, **fields))
        table = cls(created.table.table_id, created.host_token, [])
        for seat in range(seats):
            player = new_player(players_stub, f"Seat{seat}er")
            taken = gateway.TakeSeat(
                gw.TakeSeatRequest(table_id=table.table_id, seat=seat), metadata=auth.metadata(player[1])
            )
            table.players.append(player)
            table.seat_tokens.append(taken.seat_token)
        return table

    def token(self, seat: int) -> list[tuple[str, str]]:
        return auth.metadata(self.players[seat][1])

    def start(self, gateway) -> None:
        gateway.StartTable(gw.StartTableRequest(table_id=self.table_id), metadata=auth.metadata(self.host_token))

    def play_to_end(self, gateway, seed: int = 5) -> None:
        chooser = random.Random(seed)
        for _ in range(2000):
            table = gateway.GetTable(gw.GetTableRequest(table_id=self.table_id)).table
            if table.status == gw.TABLE_STATUS_FINISHED:
                return
            seat = table.deciding_seats[0]
            metadata = auth.metadata(self.seat_tokens[seat])
            view = gateway.GetView(gw.GetViewRequest(table_id=self.table_id), metadata=metadata)
            gateway.SubmitAction(
                gw.SubmitActionRequest(
                    table_id=self.table_id,
                    action=chooser.choice(list(view.legal_actions)).action,
                    expected_version=table.version,
                ),
                metadata=metadata,
            )
        raise AssertionError("the game did not end in 2000 actions")


def send(chat_stub, metadata, table_id: str, channel: int, text: str) -> chat.ChatMessage:
    request = chat.SendChatRequest(table_id=table_id, channel=channel, text=text)
    return chat_stub.SendChat(request, metadata=metadata).message


def texts(chat_stub, metadata, table_id: str, channel: int) -> list[str]:
    request = chat.ListChatRequest(table_id=table_id, channel=channel)
    return [message.text for message in chat_stub.ListChat(request, metadata=metadata).messages]

"""A new table's record, made from a CreateTable request: its seed, drawn so that no client
predicts it, the commitment to that seed, the host token, and its seats, bots seated."""

import hashlib
import secrets
from collections.abc import Mapping

from common import auth
from common.commitment import commitment
from common.errors import invalid
from common.names import bot_display_name
from gateway.clocks import new_clock
from gateway.commit import now
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2


def draw_seed(request: gw.CreateTableRequest) -> int:
    """The table's seed: the client's only in replay mode; otherwise drawn from the OS's
    CSPRNG, and a client's seed is mixed with 256 bits of it, so it predicts nothing."""
    if request.replay_mode:
        if not request.HasField("seed"):
            raise invalid("SEED_REQUIRED", "replay mode plays a seed given by the creator")
        return request.seed
    entropy = secrets.token_bytes(32) + (request.seed.to_bytes(8, "big") if request.HasField("seed") else b"")
    return int.from_bytes(hashlib.sha256(entropy).digest()[:8], "big") >> 1


def new_record(
    table_id: str,
    request: gw.CreateTableRequest,
    options: Mapping[str, str],
    seed: int,
    bot_of: Mapping[int, str],
    bot_digests: Mapping[int, bytes],
) -> tuple[store_pb2.TableRecord, str]:
    """The open table's record and its host token. ``options``: every option, defaults
    filled in (the rules service's NewGame); ``bot_of``: each bot seat's checked bot, whose
    token digest is ``bot_digests``'s."""
    salt = secrets.token_bytes(16)
    host_token = auth.new_token()
    table = gw.Table(
        table_id=table_id,
        game_id=request.game_id,
        player_count=request.player_count,
        options=dict(options),
        status=gw.TABLE_STATUS_OPEN,
        create_time=now(),
        decision_timer=request.decision_timer,
        replay_mode=request.replay_mode,
        seed_commitment=commitment(seed, salt),
        rated=request.rated,
    )
    if request.HasField("clock"):
        table.clock.CopyFrom(new_clock(request, request.player_count))
    record = store_pb2.TableRecord(
        table=table,
        seed=seed,
        seed_salt=salt,
        host_token_sha256=auth.digest(host_token),
        auto_start=request.auto_start,
    )
    for seat in range(request.player_count):
        bot = bot_of.get(seat)
        if bot is None:
            record.table.seats.add(seat=seat, kind=gw.SEAT_KIND_HUMAN)
            record.seat_token_sha256.append(b"")
        else:
            name = bot_display_name(bot)  # its name and level; Seat.bot keeps the whole spec
            record.table.seats.add(seat=seat, kind=gw.SEAT_KIND_BOT, bot=bot, taken=True, display_name=name)
            record.seat_token_sha256.append(bot_digests[seat])
    return record, host_token

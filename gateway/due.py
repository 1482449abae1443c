"""When a table's pending task should have acted by: the one rule the wake-ups
(``TableCore.wake``, which records it) and the sweeps (``gateway/sweeper.py``, which act
on it) share."""

from functools import lru_cache

from gateway.store import nanos
from tavola.gateway.v1 import gateway_pb2 as gw
from tavola.store.v1 import store_pb2


@lru_cache(maxsize=1024)
def thinking_seconds(bot: str) -> float:
    """A bot's thinking budget per decision: its ``budget_ms`` option (the option's maximum
    when 0, i.e. a search limited by iterations only); 0 for a bot without one, or one
    whose worker runs elsewhere."""
    from bots import registry  # loaded by the gateway's bot catalogue already

    try:
        spec, options = registry.resolve(bot)
    except registry.BotError:
        return 0.0
    for option in spec.options:
        if option.name == "budget_ms":
            value = options[option.name]
            budget = value if isinstance(value, int | float) and value > 0 else (option.maximum or 0)
            return float(budget) / 1000
    return 0.0


def due_time(record: store_pb2.TableRecord, grace: float) -> float | None:
    """When the tasks the table waits on now should have acted by (epoch seconds); None
    when it waits on none (not in progress, or only untimed human seats decide)."""
    table = record.table
    if table.status != gw.TABLE_STATUS_IN_PROGRESS:
        return None
    changed = nanos(table.update_time) / 1e9
    times = []
    for seat in table.deciding_seats:
        info = table.seats[seat]
        if info.kind == gw.SEAT_KIND_BOT:
            times.append(changed + grace + 2 * thinking_seconds(info.bot))
        elif table.HasField("decision_deadline"):
            times.append(nanos(table.decision_deadline) / 1e9 + grace)
    return min(times, default=None)

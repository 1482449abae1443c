"""The bot workers' settings: which queues a worker consumes, how it reaches the gateway, how its
bots think and submit, and the ladder that rates them."""

from common.defaults import GATEWAY_ADDRESS
from common.settings.variable import Variable

# Descriptions shared by variables that make one row of the table.
_BOT_STREAMS = "true, 4: each worker process sends its submits on 4 `ActionService.SubmitActions` streams in turn, each opened to the next gateway the address resolves to (unary calls while traces are on, or where the gateway has no stream to give); false: unary calls"
_BOT_CHAIN = "1000, 0.25: the most decisions of its bot at one table a task plays, and how often it looks whether a task of a table with people (or a timer) waits in a queue the worker consumes (one LLEN a queue), then stops: how long a person's table may wait for a worker slot; 1: a decision a task"
_LADDER = "1, every game, `random;ismcts:budget_ms=10;ismcts:budget_ms=50` (the compose and Kubernetes files: 2, every game, the eight `ismcts` levels): its tables in play at once (its cap on the search bots' worker, one process a table; 0: off), the games and the bot settings it rates (`;`-separated)"

VARIABLES: tuple[Variable, ...] = (
    Variable(
        "TAVOLA_WORKER_BOTS",
        "str",
        "",
        "workers",
        "unset: every registered bot's queue (and the `timers` queue unless `TAVOLA_WORKER_TIMERS=false`); names (comma-separated): those bots only; `none`: no bot; `@search`: the registered search bots (a thinking budget, `deploy/workers.py`), `@light`: all the others, both read from the registry as the worker starts (the container files' two workers)",
    ),
    Variable(
        "TAVOLA_BOT_KEY",
        "str",
        "",
        "a worker of one bot",
        "unset; one bot's key (`TAVOLA_BOT_SECRET=... python -m common.auth <bot>`), for a worker run by that bot's author, who is never given the platform's secret",
    ),
    Variable(
        "TAVOLA_TIMER_GATEWAY",
        "str",
        "127.0.0.1:50052",
        "workers",
        "`127.0.0.1:50052`: where timer tasks reach `TimerService`",
    ),
    Variable("TAVOLA_GATEWAY", "str", GATEWAY_ADDRESS, "workers", "`127.0.0.1:50051`"),
    Variable("TAVOLA_BOT_STREAM", "bool", True, "workers", _BOT_STREAMS),
    Variable("TAVOLA_BOT_STREAMS", "int", 4, "workers", _BOT_STREAMS, minimum=0),
    Variable("TAVOLA_BOT_CHAIN", "int", 1000, "workers", _BOT_CHAIN, minimum=0),
    Variable("TAVOLA_BOT_CHAIN_SECONDS", "float", 0.25, "workers", _BOT_CHAIN, minimum=0),
    Variable(
        "TAVOLA_BOT_CLOCK",
        "str",
        "cpu",
        "workers",
        "`cpu` (default): a bot's thinking budget (`budget_ms`) counts the deciding thread's CPU time, as the arena's `--clock cpu` figures do, so people meet the bot that was measured however busy the host, under the wall-clock ceiling below; `wall`: wall time, a busy host's bot then searches less ([bots.md](bots.md#live-strength-equals-measured-strength))",
    ),
    Variable(
        "TAVOLA_BOT_WALL_CEILING",
        "float",
        5.0,
        "workers",
        "5: with `TAVOLA_BOT_CLOCK=cpu`, a decision ends once this many times its budget has passed on the wall clock, however little CPU it got (1 s for the default 200 ms), so an overloaded worker cannot stall a table; 0: no ceiling. Decisions it ended: `tavola_bot_decision_ceiling_total`",
        minimum=0,
    ),
    Variable(
        "TAVOLA_WORKER_TIMERS",
        "bool",
        True,
        "workers",
        "`true`; `false`: the worker leaves the `timers` queue to others",
    ),
    Variable(
        "TAVOLA_WORKER_RATINGS",
        "bool",
        None,
        "workers",
        "as `TAVOLA_WORKER_TIMERS`: whether the worker applies rating updates (the `ratings` queue); `TAVOLA_WORKER_BOTS=none` makes a worker of timers or ratings only. Such a worker, as it starts, restarts every bot rating earned with settings other than the bot's now (a level's preset moved in an upgrade), one `bot_rating_restarted` log line each ([bots.md](bots.md#bots-on-the-players-scale-the-ladder))",
    ),
    Variable("TAVOLA_LADDER_TABLES", "int", 1, "the ladder (`python -m bots.worker.ladder`)", _LADDER, minimum=0),
    Variable(
        "TAVOLA_LADDER_GAMES",
        "str",
        "borgia,mortadella,pecunia",
        "the ladder (`python -m bots.worker.ladder`)",
        _LADDER,
    ),
    Variable(
        "TAVOLA_LADDER_BOTS",
        "str",
        "random;ismcts:budget_ms=10;ismcts:budget_ms=50",
        "the ladder (`python -m bots.worker.ladder`)",
        _LADDER,
    ),
    Variable(
        "TAVOLA_TASK_EVENTS",
        "bool",
        False,
        "workers",
        "unset; `true` sends Celery task events (for Flower; the container files set it)",
    ),
    Variable(
        "TAVOLA_WORKER_EXTERNAL",
        "bool",
        False,
        "a worker of one bot",
        "unset; `true` for a bot author's worker on a Redis user that reaches its bot's queue only ([Redis users](#redis-users)): it then uses no broadcast channel (no remote control, task events, gossip, mingle or heartbeats)",
    ),
)

"""Every setting of every tavola process, declared once: its environment variable, type,
default, the processes that read it and what it does (``VARIABLES``). Processes read their
settings through it (``text``, ``integer``, ``number``, ``flag``, ``port``), each value checked
as it is read, and a bad one told in one line that names the variable (no traceback).

``ConfigError`` is what every reader raises; ``exit_on_bad_config`` turns it, raised while a
process starts, into one critical JSON log line (``bad_configuration``) and exit status 2;
each process calls ``check()`` once its logging is set up, which reads every declared
variable that is set, so a bad one stops it whether or not this process reads it. Booleans have one spelling:
true/false (also 1/0, yes/no, on/off), case-insensitive.

The Configuration table of docs/operators.md is generated from ``VARIABLES``:
``python -m common.settings --markdown`` writes it between its markers.
"""

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

import structlog

from common.defaults import DEV_BOT_SECRET, GATEWAY_ADDRESS, KEY_PREFIX, REDIS_URL

log = structlog.get_logger()

TRUE = frozenset(("1", "true", "yes", "on"))
FALSE = frozenset(("0", "false", "no", "off"))

Kind = Literal["str", "int", "float", "bool", "port"]
Value = str | int | float | bool | None
T = TypeVar("T")


class ConfigError(ValueError):
    """A setting that cannot be used, in words that name it."""


@dataclass(frozen=True)
class Variable:
    name: str
    kind: Kind
    default: Value  # None: unset, which the reader's process gives its own meaning
    used_by: str  # the processes that read it, as the docs name them
    doc: str  # the docs' third column: its default, then what it does (Markdown, one line)
    minimum: float | None = None
    also: str = ""  # said after the name in the docs (a variable of another library)


# Descriptions shared by variables that make one row of the table.
_TIMER_ADDRESS = "`127.0.0.1`, 50052: the internal port serving `TimerService` only; never publish it"
_WEB_ADDRESS = "unset: no web port; set (0: a free one), the browser protocol (Connect and gRPC-Web, [clients.md](clients.md#browser-protocol)) on that port, at `TAVOLA_WEB_HOST` (default `TAVOLA_HOST`); `make run` uses 8080"
_BOT_STREAMS = "true, 4: each worker process sends its submits on 4 `ActionService.SubmitActions` streams in turn, each opened to the next gateway the address resolves to (unary calls while traces are on, or where the gateway has no stream to give); false: unary calls"
_BOT_CHAIN = "1000, 0.25: the most decisions of its bot at one table a task plays, and how often it looks whether a task of a table with people (or a timer) waits in a queue the worker consumes (one LLEN a queue), then stops: how long a person's table may wait for a worker slot; 1: a decision a task"
_LISTEN_ADDRESS = "`127.0.0.1`, 50051 gateway; rules services the game's port (declared by the game or derived from its id: 50061 borgia, 50062 mortadella, 50063 pecunia)"
_QUICKPLAY_WINDOW = "100, 50: the rating distance within which searchers are matched, and how much it widens each second a searcher waits"
_LADDER = "1, every game, `random;ismcts:budget_ms=10;ismcts:budget_ms=50` (the compose and Kubernetes files: 2, every game, the eight `ismcts` levels): its tables in play at once (its cap on the search bots' worker, one process a table; 0: off), the games and the bot settings it rates (`;`-separated)"
_REDIS_PASSWORDS = (
    "the platform user's password (in `REDIS_URL` as `redis://tavola:<password>@...`), and a bot author's user's"
)
_LAUNCHER_FILES = "unset; for launchers (`deploy/stack.py`): a server asked for port 0 writes the port it bound there, and a worker writes the ready file once it consumes its queues"

VARIABLES: tuple[Variable, ...] = (
    Variable(
        "REDIS_URL",
        "str",
        REDIS_URL,
        "gateway (tables, logs, idempotency, wake-ups), workers (broker, unless `TAVOLA_BROKER_URL`)",
        "`redis://127.0.0.1:6379/0`; a Redis Cluster as `redis+cluster://host:port` (`rediss+cluster://` with TLS; any node, the others are discovered)",
    ),
    Variable(
        "TAVOLA_REDIS_CLUSTER",
        "bool",
        False,
        "gateway",
        "unset; `true` reads a plain `redis://` `REDIS_URL` as a cluster node",
    ),
    Variable(
        "TAVOLA_BROKER_URL",
        "str",
        "",
        "gateway (enqueues), workers",
        "`REDIS_URL`; required when `REDIS_URL` is a cluster, since Celery needs a plain Redis (the gateway refuses to start without it)",
    ),
    Variable(
        "TAVOLA_REDIS_CONNECTIONS",
        "int",
        64,
        "gateway",
        "64: Redis connections per gateway (per cluster node on a cluster)",
        minimum=1,
    ),
    Variable("TAVOLA_KEY_PREFIX", "str", KEY_PREFIX, "gateway, workers", "`tavola`"),
    Variable(
        "TAVOLA_RULES",
        "str",
        "",
        "gateway",
        "every registered game at `127.0.0.1:<its port>` (`borgia=127.0.0.1:50061,mortadella=127.0.0.1:50062,pecunia=127.0.0.1:50063`)",
    ),
    Variable(
        "TAVOLA_BOTS",
        "str",
        "",
        "gateway",
        "unset: every bot of the `tavola.bots` registry; set: only those (a name the registry does not know is a bot whose worker runs elsewhere, accepted by name)",
    ),
    Variable(
        "TAVOLA_BOT_SPECS",
        "str",
        "",
        "gateway",
        "unset; a JSON file of declared bots whose workers run elsewhere (`python -m services.bot_specs <bot>` prints one): accepted with their options checked, and listed with them ([bots.md](bots.md#running-a-bot-worker)); a file that does not read as declarations stops the gateway (`bad_configuration`)",
    ),
    Variable(
        "TAVOLA_WORKER_BOTS",
        "str",
        "",
        "workers",
        "unset: every registered bot's queue (and the `timers` queue unless `TAVOLA_WORKER_TIMERS=false`); names (comma-separated): those bots only; `none`: no bot; `@search`: the registered search bots (a thinking budget, `deploy/workers.py`), `@light`: all the others, both read from the registry as the worker starts (the container files' two workers)",
    ),
    Variable(
        "TAVOLA_BOT_SECRET",
        "str",
        DEV_BOT_SECRET,
        "gateway, the platform's workers",
        "required: at least 256 random bits (`openssl rand -hex 32`); the gateway refuses to start without it, with a weaker one or a published placeholder, and with the development secret unless `TAVOLA_DEVELOPMENT=true`; `make run`, `make demo` and the tests make a fresh random one per run. Bot keys, seat tokens of bots and timer credentials derive from it",
    ),
    Variable(
        "TAVOLA_RUN_DIR",
        "str",
        ".run/run",
        "`make run`",
        "`.run/run`: where `make run` writes its processes' logs and the run's secret",
    ),
    Variable(
        "TAVOLA_DEVELOPMENT",
        "bool",
        False,
        "gateway",
        "unset; `true` lets a development machine run on the development secret (logged as a warning)",
    ),
    Variable(
        "TAVOLA_PUSH_VAPID_PRIVATE_KEY",
        "str",
        "",
        "gateway",
        "unset: no Web Push; the VAPID private key (base64url P-256 scalar) the gateway signs its pushes with, telling players away from a table that it is their turn; `python -m gateway.push` prints a fresh pair",
    ),
    Variable(
        "TAVOLA_PUSH_VAPID_SUBJECT",
        "str",
        "mailto:operator@tavola.invalid",
        "gateway",
        "`mailto:operator@tavola.invalid`: the contact push services see in each push (VAPID `sub`): set the operator's own",
    ),
    Variable(
        "TAVOLA_PUSH_ALLOW_PRIVATE",
        "bool",
        False,
        "gateway",
        "false; `true` (development and tests only) accepts push endpoints on http and on local or private addresses, which are otherwise refused: the gateway would post where a client points it",
    ),
    Variable(
        "TAVOLA_DIGEST_SENDER",
        "str",
        "file",
        "gateway",
        "`file`: the daily digest emails go as files into `TAVOLA_DIGEST_DIR` (development); `smtp`: through `TAVOLA_SMTP_HOST`",
    ),
    Variable(
        "TAVOLA_DIGEST_DIR",
        "str",
        ".run/digests",
        "gateway",
        "`.run/digests` (git-ignored): where the `file` sender writes each mail (.eml)",
    ),
    Variable("TAVOLA_DIGEST_FROM", "str", "tavola <tables@tavola.invalid>", "gateway", "the digest's From address"),
    Variable(
        "TAVOLA_DIGEST_CHECK_SECONDS",
        "float",
        600.0,
        "gateway",
        "600: how often one gateway looks for opted-in players with tables waiting; 0 turns digests off",
        minimum=0,
    ),
    Variable(
        "TAVOLA_DIGEST_EVERY_SECONDS",
        "float",
        86400.0,
        "gateway",
        "86400: a player gets at most one digest in this long",
        minimum=1,
    ),
    Variable(
        "TAVOLA_SITE_URL",
        "str",
        "",
        "gateway",
        "unset: the digest's links are relative; the web client's address, e.g. `https://tables.example`",
    ),
    Variable("TAVOLA_SMTP_HOST", "str", "", "gateway", "unset; the SMTP server the `smtp` digest sender uses"),
    Variable("TAVOLA_SMTP_PORT", "port", 587, "gateway", "587: its port"),
    Variable(
        "TAVOLA_SMTP_USER", "str", "", "gateway", "unset: no login; else the SMTP login, with `TAVOLA_SMTP_PASSWORD`"
    ),
    Variable("TAVOLA_SMTP_PASSWORD", "str", "", "gateway", "unset; the SMTP password"),
    Variable(
        "TAVOLA_SMTP_STARTTLS", "bool", True, "gateway", "true: STARTTLS before the login; false for a local relay"
    ),
    Variable(
        "TAVOLA_BOT_KEY",
        "str",
        "",
        "a worker of one bot",
        "unset; one bot's key (`TAVOLA_BOT_SECRET=... python -m common.auth <bot>`), for a worker run by that bot's author, who is never given the platform's secret",
    ),
    Variable("TAVOLA_TIMER_HOST", "str", "127.0.0.1", "gateway", _TIMER_ADDRESS),
    Variable("TAVOLA_TIMER_PORT", "port", 50052, "gateway", _TIMER_ADDRESS),
    Variable("TAVOLA_WEB_PORT", "port", None, "gateway", _WEB_ADDRESS),
    Variable("TAVOLA_WEB_HOST", "str", "", "gateway", _WEB_ADDRESS),
    Variable(
        "TAVOLA_WEB_ORIGINS",
        "str",
        "",
        "gateway",
        "unset: only the page served by the web port itself may call it from a browser; set, the other sites' origins allowed too (`https://play.example.org,https://other.example`; `*`: any), by CORS; a request from any other origin is refused (403)",
    ),
    Variable(
        "TAVOLA_WEB_STATIC",
        "str",
        None,
        "gateway",
        "`clients/web/dist` when built: the directory served at `/` of the web port (the web client), so one URL gives the page and its API; empty: none",
    ),
    Variable(
        "TAVOLA_WEB_TRUSTED_PROXIES",
        "str",
        "",
        "gateway",
        "unset: the web port's client is the connection's peer (for quotas); set to the proxies' addresses or networks (`10.0.0.5,10.0.0.0/8`; the Kubernetes files trust the pod network), the client is the last address of their `X-Forwarded-For` that is not a proxy's (`*` trusts every peer and takes the first address, which a client can forge)",
    ),
    Variable(
        "TAVOLA_WEB_WRITE_TIMEOUT_SECONDS",
        "float",
        30.0,
        "gateway",
        "30: a browser-protocol client that takes no bytes of its response for this long is disconnected; a stream ends before that, after 0.8 of it, with `DEADLINE_EXCEEDED`, reason `CLIENT_NOT_READING` (counted under that code in `tavola_gateway_requests_total`, and logged), and then its connection is closed",
        minimum=0,
    ),
    Variable(
        "TAVOLA_TIMER_GATEWAY",
        "str",
        "127.0.0.1:50052",
        "workers",
        "`127.0.0.1:50052`: where timer tasks reach `TimerService`",
    ),
    Variable("TAVOLA_GATEWAY", "str", GATEWAY_ADDRESS, "workers", "`127.0.0.1:50051`"),
    Variable(
        "TAVOLA_CLIENT_DIR",
        "str",
        "",
        "the terminal client",
        "unset: `~/.local/state/tavola/seats` (under `XDG_STATE_HOME` when set): where the terminal client keeps its seat tokens",
    ),
    Variable("TAVOLA_BOT_STREAM", "bool", True, "workers", _BOT_STREAMS),
    Variable("TAVOLA_BOT_STREAMS", "int", 4, "workers", _BOT_STREAMS, minimum=0),
    Variable("TAVOLA_BOT_CHAIN", "int", 1000, "workers", _BOT_CHAIN, minimum=0),
    Variable("TAVOLA_BOT_CHAIN_SECONDS", "float", 0.25, "workers", _BOT_CHAIN, minimum=0),
    Variable("TAVOLA_TABLE_TTL_SECONDS", "int", 7 * 24 * 3600, "gateway", "7 days after the last change", minimum=1),
    Variable(
        "TAVOLA_OPEN_TABLE_TTL_SECONDS",
        "int",
        3600,
        "gateway",
        "3600: an open table nobody starts expires an hour after its last change and leaves the lobby",
        minimum=1,
    ),
    Variable(
        "TAVOLA_FINISHED_TABLE_TTL_SECONDS",
        "int",
        None,
        "gateway",
        "without an archive: `TAVOLA_TABLE_TTL_SECONDS`, how long a finished table (its record and log, for GetTable, GetView, GetReplay and `services.verify`) is kept after its last event; 0: until deleted. With an archive (`TAVOLA_DATABASE_URL`) it does not apply: a finished table stays in Redis until it is archived and its retry window is over",
        minimum=1,
    ),
    Variable(
        "TAVOLA_DATABASE_URL",
        "str",
        "",
        "gateway, `python -m gateway.archiver`, `python -m gateway.export`",
        "unset: no archive (finished tables expire from Redis with their TTL, and the gateway logs `no_archive`); a `postgresql://user:password@host:port/database` URL: finished tables are archived there ([The archive](#the-archive-postgresql)); the gateway brings its schema up to date as it starts (with PostgreSQL away it starts all the same, logs `archive_unreachable`, and its archiver does it once the server answers; a URL that is not `postgresql://` stops it). `make run` and `make demo` set it to the database `tavola` of the local server (made if missing), or of a private one",
    ),
    Variable(
        "TAVOLA_ARCHIVE_SECONDS",
        "float",
        1.0,
        "gateway, `python -m gateway.archiver run`",
        "1: how often the gateway's archiver copies due tables and trims archived ones (batches of 100; at once again while a backlog lasts); 0: this gateway archives nothing (its reads still fall through to the archive), for a deployment that runs `python -m gateway.archiver run` apart",
        minimum=0,
    ),
    Variable(
        "TAVOLA_ARCHIVE_LEASE_SECONDS",
        "float",
        60.0,
        "`python -m gateway.archiver run`",
        "60: how long a table taken for copying is left to its archiver before another one takes it (the archiver died, or PostgreSQL was away)",
        minimum=0.1,
    ),
    Variable(
        "TAVOLA_RETRY_WINDOW_SECONDS",
        "int",
        3600,
        "gateway",
        "3600: how long a finished table's request ids still answer retries (`replayed: true`); after it a retry is told `TABLE_FINISHED`",
        minimum=0,
    ),
    Variable("TAVOLA_HOST", "str", "127.0.0.1", "servers", _LISTEN_ADDRESS),
    Variable("TAVOLA_PORT", "port", None, "servers", _LISTEN_ADDRESS),
    Variable(
        "TAVOLA_DUE_SWEEP_SECONDS",
        "float",
        1.0,
        "gateway",
        "1: how often one gateway wakes again the tables whose bot or timer task is overdue (up to 500 at a time); 0 turns it off",
        minimum=0,
    ),
    Variable(
        "TAVOLA_TASK_GRACE_SECONDS",
        "float",
        5.0,
        "gateway",
        "5: how late a task may be before its table is woken again: a bot's task after the commit plus this plus twice the bot's thinking budget (`budget_ms`; its maximum, 60 s, for a search limited by iterations only), a timer after its deadline plus this",
        minimum=0,
    ),
    Variable(
        "TAVOLA_TIMEOUTS_TO_LEAVE",
        "int",
        3,
        "gateway",
        "3: a seat that lets this many decisions expire in one game, at a table whose timeout policy plays a random action, is taken over by a bot as one that left: its player is scored last and it counts against their finished games (0: never)",
        minimum=0,
    ),
    Variable(
        "TAVOLA_SWEEP_SECONDS",
        "float",
        30.0,
        "gateway",
        "30: how often one gateway walks a batch of 500 tables in progress, waking those quiet that long that have no due time (or every quiet one when the due sweep is off); 0 turns the walk off",
        minimum=0,
    ),
    Variable(
        "TAVOLA_ABANDON_OPEN_SECONDS",
        "float",
        1800.0,
        "gateway",
        "1800: an open table not started this long after it was opened is closed by the walk (`TAVOLA_SWEEP_SECONDS`), with a `TableAbandoned` event its seats see, and leaves the lobby; keep it below `TAVOLA_OPEN_TABLE_TTL_SECONDS`, past which it would expire unannounced; 0: never",
        minimum=0,
    ),
    Variable(
        "TAVOLA_ABANDON_IDLE_SECONDS",
        "float",
        86400.0,
        "gateway",
        '86400: a game with no decision timer whose deciding seats are all people, and in which nobody acted for this long, is ended by the walk with a `TableAbandoned` event (finished, no winner, never rated) and leaves "being played"; 0: never',
        minimum=0,
    ),
    Variable(
        "TAVOLA_LOBBY_DECISION_SECONDS",
        "int",
        120,
        "gateway",
        "120 (quick play's): the seconds per decision a table opened by hand gets by default (`ListGamesResponse.lobby_decision_seconds`, the web lobby's form); 0: no limit",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUOTA_CREATE_PER_MINUTE",
        "int",
        30,
        "gateway",
        "30: tables one client (token, else IP address) may create per minute; 0 turns the limit off. Counted in Redis (one short-lived key per client and minute under the key prefix), so shared by every gateway",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUOTA_SEATS_PER_MINUTE",
        "int",
        30,
        "gateway",
        "30: seats one client may take per minute, counted like table creation; 0 turns it off",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUOTA_STREAMS",
        "int",
        20,
        "gateway",
        "20: streams one client may hold open at once, counted per gateway process in memory (a stream lives on one gateway: with N gateways a client may hold up to N times this); bots' streams are not counted; 0 turns it off",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUOTA_ACTION_STREAMS",
        "int",
        64,
        "gateway",
        "64: `ActionService.SubmitActions` streams one client may hold open at once, counted apart from the streams above (a bot worker process holds 4, with no token: its address is the client); beyond it, a worker's submits go by unary calls; 0 turns it off",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUOTA_REPLAYS_PER_MINUTE",
        "int",
        30,
        "gateway",
        "30: replays with views (`GetReplay` with `with_views`, a rules call per logged action) one client may ask per minute; 0 turns it off",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUOTA_PLAYERS_PER_MINUTE",
        "int",
        10,
        "gateway",
        "10: players one IP address may create per minute; 0 turns it off",
        minimum=0,
    ),
    Variable(
        "TAVOLA_CHAT_TABLES",
        "str",
        "borgia:rated=spectators,mortadella:rated=spectators",
        "gateway",
        "`borgia:rated=spectators,mortadella:rated=spectators`: which chat channels each table has, as `<game or *>:<rated, unrated or *>=<on, spectators or off>` rules, the last that matches deciding (none matches: `on`, both channels); `spectators` keeps the spectators' channel and turns the players' off ([why](#chat))",
    ),
    Variable(
        "TAVOLA_CHAT_LOBBY", "bool", False, "gateway", "false: no lobby chat; true: a lobby channel for every player"
    ),
    Variable(
        "TAVOLA_CHAT_PER_MINUTE",
        "int",
        20,
        "gateway",
        "20, 5: chat messages one player may send a minute, in bursts of up to 5 (a token bucket shared by every gateway); 0 turns it off",
        minimum=0,
    ),
    Variable("TAVOLA_CHAT_BURST", "int", 5, "gateway", "see `TAVOLA_CHAT_PER_MINUTE`", minimum=1),
    Variable(
        "TAVOLA_CHAT_MAX_CHARACTERS", "int", 500, "gateway", "500: the longest chat message, in characters", minimum=1
    ),
    Variable(
        "TAVOLA_CHAT_HISTORY",
        "int",
        500,
        "gateway",
        "500: the messages each channel keeps (a table's go with its keys; older ones drop off)",
        minimum=1,
    ),
    Variable(
        "TAVOLA_CHAT_FILTER",
        "str",
        "",
        "gateway",
        "unset: every message passes; `module:callable`, called with each message's text and a `ChatContext` (gateway/chat_policy.py) before it is kept: it returns the text to keep (it may rewrite it) or `None` to refuse it (`CHAT_FILTERED`)",
    ),
    Variable(
        "TAVOLA_CHAT_WORDS",
        "str",
        "",
        "gateway",
        "unset; a file of words, one a line (`#` comments): a message holding one of them as a word, case folded, is refused (`CHAT_FILTERED`); checked before `TAVOLA_CHAT_FILTER`",
    ),
    Variable(
        "TAVOLA_METRICS_PORT",
        "port",
        None,
        "gateway, rules services, workers",
        "unset: no metrics; set, Prometheus metrics at `/metrics` on that port (the container files use 9150)",
    ),
    Variable(
        "PROMETHEUS_MULTIPROC_DIR",
        "str",
        "",
        "a prefork worker",
        "unset: a prefork pool's endpoint serves its queue lengths only, and the worker logs `metrics_of_pool_processes_not_counted` as it starts. Set to a directory of that worker's own (created if missing, emptied as the worker starts), its child processes write their counts there and its endpoint sums them ([Metrics](#metrics)). Must be in the environment before the worker starts; `make run` and the container files set it for `bot-worker-search`",
    ),
    Variable(
        "TAVOLA_LOG_LEVEL",
        "str",
        "INFO",
        "all",
        "`INFO`; workers write Celery's line per task received and succeeded only at `DEBUG`",
    ),
    Variable(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "str",
        "",
        "gateway, rules services, workers",
        "unset: no traces, and no tracing code loaded. Set (e.g. `http://collector:4317`, with `OTEL_EXPORTER_OTLP_INSECURE=true` for plain text): OpenTelemetry spans over OTLP/gRPC, in batches (`OTEL_BSP_SCHEDULE_DELAY`), each process its own `service.name` (`gateway`, `rules-<game>`, `bot-worker`). The trace context crosses gRPC metadata (`traceparent`) and the headers of each Celery task the gateway writes, so one bot action is one trace from the command that made the bot's turn to the bot's SubmitAction and its rules call (while traces are on, the gateway asks the rules services by unary calls, not on its ApplyActions streams, and the workers submit by unary calls: a stream's message carries no trace); every JSON log line written inside a span carries its `trace_id`. A call on the web port (Connect, gRPC-Web) makes the same span as on the gRPC port, continuing the request's `traceparent` header; every gateway call's span names how it came in `tavola.protocol` (`grpc`, `connect`, `grpc-web`). The gateway's streams (WatchTable, SpectateTable) make no spans, on either port. `OTEL_SDK_DISABLED=true` turns it off",
        also="(or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)",
    ),
    Variable(
        "TAVOLA_MAX_REQUEST_BYTES",
        "int",
        4096,
        "gateway",
        "4096: the most bytes a public call's request may have; a longer one is refused (`RESOURCE_EXHAUSTED` / `REQUEST_TOO_LARGE`) before it is decoded",
        minimum=1,
    ),
    Variable(
        "TAVOLA_REQUEST_LIMITS",
        "str",
        "",
        "gateway",
        "`CreateTable=16384`: methods with limits of their own, `Method=bytes,...` (the largest of all limits is also gRPC's own receive limit)",
    ),
    Variable(
        "TAVOLA_RULES_TIMEOUT_SECONDS",
        "float",
        5.0,
        "gateway",
        "5: the deadline of a call to a rules service (and of an action on its streams)",
        minimum=0,
    ),
    Variable(
        "TAVOLA_RULES_HEALTH_SECONDS",
        "float",
        2.0,
        "gateway",
        "2: how often the gateway checks each game's rules service for its health entry `rules/<game>` and `tavola_gateway_rules_up{game}` (see [Credentials](#credentials))",
        minimum=0.05,
    ),
    Variable(
        "TAVOLA_RULES_STREAMS",
        "int",
        2,
        "gateway",
        "2: long-lived `ApplyActions` streams to each game's rules service, over which the gateway applies actions (a message costs a fraction of a call's CPU); each stays on the replica it opened on, so with several replicas behind one name set it to at least their number; 0: one `ApplyAction` call an action",
        minimum=0,
    ),
    Variable(
        "TAVOLA_REDIS_POOL_TIMEOUT_SECONDS",
        "float",
        10.0,
        "gateway",
        "10: how long a command waits for a free Redis connection of the pool before it fails",
        minimum=0,
    ),
    Variable(
        "TAVOLA_RECENT_RECORDS",
        "int",
        4096,
        "gateway",
        "4096: records of the tables the gateway handled last, that a SubmitAction may start from without a load (the commit's compare-and-set tells whether one was current); 0: every command loads",
        minimum=0,
    ),
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
    Variable(
        "TAVOLA_RATING_RESEND_SECONDS",
        "float",
        30.0,
        "gateway",
        "30: how long a finished rated table's rating update may stay unapplied before a gateway sends its task again (a worker killed mid-update loses nothing; a copy changes nothing). The game's finishing commit writes the update's job with it, so a gateway stopped right after that commit loses nothing either",
        minimum=0,
    ),
    Variable(
        "TAVOLA_RATING_FINISH_PAUSE_SECONDS",
        "float",
        0.0,
        "gateway",
        "unset; tests only: the gateway hangs this long right after a rated table's finishing commit, a window in which to kill it",
        minimum=0,
    ),
    Variable(
        "TAVOLA_PROVISIONAL_GAMES",
        "int",
        10,
        "gateway, workers",
        "10: rated games against established opponents (for a bot, other bots too) a player plays before it is established and a leaderboard lists it; until then its results move others' means by a tenth ([players.md](players.md#accounts-quick-play-and-ratings)); 0: every player established from the start",
        minimum=0,
    ),
    Variable(
        "TAVOLA_RATING_PAUSE_SECONDS",
        "float",
        0.0,
        "workers",
        "unset; tests only: a rating update waits this long before it writes, a window in which to kill its worker",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUICKPLAY_BOT_FILL_SECONDS",
        "float",
        20.0,
        "gateway",
        "20: how long the oldest searcher of a quick-play group waits for people before its empty seats go to bots",
        minimum=0,
    ),
    Variable(
        "TAVOLA_QUICKPLAY_TIMEOUT_SECONDS",
        "float",
        120.0,
        "gateway",
        "120: a search that finds no table in this long ends (`DEADLINE_EXCEEDED` / `SEARCH_TIMED_OUT`)",
        minimum=0,
    ),
    Variable("TAVOLA_QUICKPLAY_WINDOW", "float", 100.0, "gateway", _QUICKPLAY_WINDOW, minimum=0),
    Variable("TAVOLA_QUICKPLAY_WINDOW_PER_SECOND", "float", 50.0, "gateway", _QUICKPLAY_WINDOW, minimum=0),
    Variable(
        "TAVOLA_QUICKPLAY_DECISION_SECONDS",
        "int",
        120,
        "gateway",
        "120: the decision timer of a quick-play table, after which a bot takes a silent seat over",
        minimum=1,
    ),
    Variable(
        "TAVOLA_QUICKPLAY_BOTS",
        "str",
        "",
        "gateway",
        "unset: the search bot's levels, `ismcts:level=1;...;ismcts:level=8`; else `bot;bot;...` (each with its options): the bots that may fill quick-play seats. Every empty seat of a table goes to the one among them, rated at the game (bots are rated players, `bot:<bot>`), whose rating is nearest the mean rating of the people at the table; when the gateway accepts none of them for the game (`TAVOLA_BOTS`), every bot it accepts is a candidate",
    ),
    Variable(
        "TAVOLA_QUICKPLAY_DEFAULT_BOT",
        "str",
        "",
        "gateway",
        "`ismcts:level=4`: the bot that fills quick-play seats while none of the candidates has a rating at the game yet (the first candidate when the gateway does not accept it)",
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
        "TAVOLA_REUSEPORT",
        "bool",
        False,
        "servers",
        "unset; `true` lets several processes listen on the same port (`SO_REUSEPORT`)",
    ),
    Variable(
        "TAVOLA_UVLOOP",
        "bool",
        True,
        "servers",
        "`true`: uvloop's event loop when it is installed; `false` asyncio's own",
    ),
    Variable(
        "TAVOLA_GC_THRESHOLD",
        "int",
        20_000,
        "servers, workers",
        "20000: allocations between young garbage collections (what was loaded at start is frozen out of them; a worker's once it is ready)",
        minimum=0,
    ),
    Variable(
        "TAVOLA_WORKER_EXTERNAL",
        "bool",
        False,
        "a worker of one bot",
        "unset; `true` for a bot author's worker on a Redis user that reaches its bot's queue only ([Redis users](#redis-users)): it then uses no broadcast channel (no remote control, task events, gossip, mingle or heartbeats)",
    ),
    Variable("TAVOLA_REDIS_PASSWORD", "str", "", "`python -m deploy.redis_users`, the deploy files", _REDIS_PASSWORDS),
    Variable(
        "TAVOLA_BOT_REDIS_PASSWORD", "str", "", "`python -m deploy.redis_users`, the deploy files", _REDIS_PASSWORDS
    ),
    Variable("TAVOLA_PORT_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
    Variable("TAVOLA_TIMER_PORT_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
    Variable("TAVOLA_WEB_PORT_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
    Variable("TAVOLA_METRICS_PORT_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
    Variable("TAVOLA_READY_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
)
DECLARED = {variable.name: variable for variable in VARIABLES}


def _raw(name: str, env: Mapping[str, str] | None) -> str | None:
    value = (os.environ if env is None else env).get(name)
    return None if value is None or value.strip() == "" else value.strip()


def env_int(name: str, default: int, minimum: int | None = None, env: Mapping[str, str] | None = None) -> int:
    raw = _raw(name, env)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={raw!r}: at least {minimum}")
    return value


def env_float(name: str, default: float, minimum: float | None = None, env: Mapping[str, str] | None = None) -> float:
    raw = _raw(name, env)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"{name}={raw!r} is not a finite number")
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name}={raw!r}: at least {minimum:g}")
    return value


def env_bool(name: str, default: bool, env: Mapping[str, str] | None = None) -> bool:
    raw = _raw(name, env)
    if raw is None:
        return default
    if raw.lower() in TRUE:
        return True
    if raw.lower() in FALSE:
        return False
    raise ConfigError(f"{name}={raw!r} is neither true nor false")


def env_port(name: str, default: int, env: Mapping[str, str] | None = None) -> int:
    port = env_int(name, default, 0, env)
    if port > 65535:
        raise ConfigError(f"{name}={port}: a port is 0 to 65535")
    return port


def value(name: str, env: Mapping[str, str] | None = None) -> Value:
    """The declared variable ``name`` as its type, its default when unset or empty."""
    variable = DECLARED[name]  # a KeyError here is a variable nobody declared
    if _raw(name, env) is None:
        return variable.default
    minimum = variable.minimum
    if variable.kind == "int":
        return env_int(name, 0, None if minimum is None else int(minimum), env)
    if variable.kind == "float":
        return env_float(name, 0.0, minimum, env)
    if variable.kind == "bool":
        return env_bool(name, False, env)
    if variable.kind == "port":
        return env_port(name, 0, env)
    return _raw(name, env)


def _typed(name: str, kinds: tuple[Kind, ...], env: Mapping[str, str] | None, kind: type[T]) -> T | None:
    if DECLARED[name].kind not in kinds:
        raise TypeError(f"{name} is declared {DECLARED[name].kind}, not {'/'.join(kinds)}")
    read = value(name, env)
    assert read is None or isinstance(read, kind), name
    return read


def text(name: str, env: Mapping[str, str] | None = None) -> str:
    """A text setting; "" when unset and declared without a default."""
    return _typed(name, ("str",), env, str) or ""


def optional_text(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """A text setting as set, even empty; None when absent, whatever its default: where
    empty means "none", or unset means something else than the default."""
    _typed(name, ("str",), {}, str)  # declared, as text
    raw = (os.environ if env is None else env).get(name)
    return None if raw is None else raw.strip()


def integer(name: str, env: Mapping[str, str] | None = None) -> int:
    read = _typed(name, ("int",), env, int)
    assert read is not None, f"{name} has no default: optional_integer"
    return read


def optional_integer(name: str, env: Mapping[str, str] | None = None) -> int | None:
    return _typed(name, ("int",), env, int)


def number(name: str, env: Mapping[str, str] | None = None) -> float:
    read = _typed(name, ("float",), env, float)
    assert read is not None, name
    return read


def flag(name: str, env: Mapping[str, str] | None = None) -> bool:
    read = _typed(name, ("bool",), env, bool)
    assert read is not None, f"{name} has no default: optional_flag"
    return read


def optional_flag(name: str, env: Mapping[str, str] | None = None) -> bool | None:
    return _typed(name, ("bool",), env, bool)


def port(name: str, default: int | None = None, env: Mapping[str, str] | None = None) -> int | None:
    """A port setting; ``default`` where its declaration leaves the port to the process."""
    read = _typed(name, ("port",), env, int)
    return default if read is None else read


def check(env: Mapping[str, str] | None = None) -> None:
    """Reads every declared variable that is set, so a bad one stops a process as it starts."""
    for name in DECLARED:
        value(name, env)


@contextlib.contextmanager
def exit_on_bad_config() -> Iterator[None]:
    """Around a process's start: a ConfigError ends it with one line and status 2."""
    try:
        yield
    except ConfigError as error:
        log.critical("bad_configuration", error=str(error))
        raise SystemExit(2) from None


# The generated table's place in docs/operators.md.
BEGIN = "<!-- variables: generated by `python -m common.settings --markdown`; edit common/settings.py -->"
END = "<!-- end of variables -->"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "operators.md"


def markdown() -> str:
    """The Configuration table: a row a variable, or one for consecutive variables that share
    their processes and description (``TAVOLA_HOST``, ``TAVOLA_PORT``)."""
    rows: list[tuple[list[str], str, str]] = []
    for variable in VARIABLES:
        shown = f"`{variable.name}`" + (f" {variable.also}" if variable.also else "")
        if rows and rows[-1][1:] == (variable.used_by, variable.doc):
            rows[-1][0].append(shown)
        else:
            rows.append(([shown], variable.used_by, variable.doc))
    lines = ["| variable | used by | default |", "| --- | --- | --- |"]
    lines += [f"| {', '.join(names)} | {used_by} | {doc} |" for names, used_by, doc in rows]
    return "\n".join(lines) + "\n"


def with_table(page: str) -> str:
    """``page`` with the generated table between its markers."""
    before, begin, rest = page.partition(BEGIN)
    _, end, after = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"docs/operators.md lacks the markers {BEGIN!r} and {END!r}")
    return f"{before}{BEGIN}\n{markdown()}{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--markdown", action="store_true", help="write the table into docs/operators.md")
    args = parser.parse_args(argv)
    if args.markdown:
        DOCS.write_text(with_table(DOCS.read_text()))
    else:
        sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

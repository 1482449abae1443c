"""What every process shares: where it listens, its logs, event loop and garbage collection,
metrics and traces, and the files it writes for the launchers."""

from common.settings.variable import Variable

# Descriptions shared by variables that make one row of the table.
_LISTEN_ADDRESS = "`127.0.0.1`, 50051 gateway; rules services the game's port (declared by the game or derived from its id: 50061 borgia, 50062 mortadella, 50063 pecunia)"
_LAUNCHER_FILES = "unset; for launchers (`deploy/stack.py`): a server asked for port 0 writes the port it bound there, and a worker writes the ready file once it consumes its queues"

VARIABLES: tuple[Variable, ...] = (
    Variable(
        "TAVOLA_RUN_DIR",
        "str",
        ".run/run",
        "`make run`",
        "`.run/run`: where `make run` writes its processes' logs and the run's secret",
    ),
    Variable(
        "TAVOLA_CLIENT_DIR",
        "str",
        "",
        "the terminal client",
        "where the terminal client keeps its seat tokens and its player (`player.json`); unset: seats in `~/.local/state/tavola/seats`, the player beside them (under `XDG_STATE_HOME` when set)",
    ),
    Variable("TAVOLA_HOST", "str", "127.0.0.1", "servers", _LISTEN_ADDRESS),
    Variable("TAVOLA_PORT", "port", None, "servers", _LISTEN_ADDRESS),
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
    Variable("TAVOLA_PORT_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
    Variable("TAVOLA_TIMER_PORT_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
    Variable("TAVOLA_WEB_PORT_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
    Variable("TAVOLA_METRICS_PORT_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
    Variable("TAVOLA_READY_FILE", "str", "", "servers, workers", _LAUNCHER_FILES),
)

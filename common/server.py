"""Boots a grpc.aio server the same way for every tavola process: health checking,
server reflection (of its services and of any further proto files it serves, such as the
hosted games' messages), a bound port (0 picks a free one) and graceful shutdown on SIGTERM."""

import asyncio
import gc
import os
import signal
from collections.abc import Awaitable, Callable, Iterable, Sequence

import grpc
import structlog
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FileDescriptor
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from common import settings

log = structlog.get_logger()


def collect_less() -> None:
    """Fewer, later garbage collections for a long-running server: what it has loaded by now
    lives as long as the process (frozen out of every collection), and young collections
    come every TAVOLA_GC_THRESHOLD allocations. With CPython's own settings a full
    collection walked every open stream of the gateway, and every kept state of a rules
    service, holding all calls for tens of milliseconds (13 and 67 ms in 15 s of 1,000
    spectators' load)."""
    threshold = settings.integer("TAVOLA_GC_THRESHOLD")
    if threshold > 0:
        gc.freeze()
        gc.set_threshold(threshold, 20, 50)


def use_uvloop() -> bool:
    """Runs this process's asyncio loops on uvloop when it is installed (unless
    TAVOLA_UVLOOP=false): a cheaper loop for every tavola server. Installed on import, so
    the servers' ``asyncio.run`` picks it up."""
    # Read as this module is imported, before a process can say what is wrong with a
    # setting in one line (its start's check does): a bad value leaves uvloop on here.
    try:
        if not settings.flag("TAVOLA_UVLOOP"):
            return False
    except settings.ConfigError:
        pass
    try:
        import uvloop
    except ImportError:
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


UVLOOP = use_uvloop()


class Server:
    def __init__(
        self,
        service_names: Iterable[str],
        proto_files: Iterable[FileDescriptor] = (),
        max_receive_bytes: int | None = None,
        interceptors: Sequence[grpc.aio.ServerInterceptor] = (),
    ):
        # Reflection serves the default descriptor pool: files defined elsewhere join it.
        for file in proto_files:
            _add_to_default_pool(file)
        # SO_REUSEPORT only when asked (TAVOLA_REUSEPORT=true): several processes then share
        # one port and the kernel spreads connections; off, a taken port is an error.
        reuseport = settings.flag("TAVOLA_REUSEPORT")
        options: list[tuple[str, int]] = [("grpc.so_reuseport", int(reuseport))]
        if max_receive_bytes is not None:
            # gRPC refuses a longer message (RESOURCE_EXHAUSTED) before any Python sees it,
            # and with no bandwidth probing a stream's receive window stays at 64 KB, so a
            # refused message is cut off there rather than buffered (3.9 MB each, 50 at once:
            # +60 MB of RSS with the probe, +1 MB without). Requests here are a few KB.
            options.append(("grpc.max_receive_message_length", max_receive_bytes))
            options.append(("grpc.http2.bdp_probe", 0))
        self.grpc = grpc.aio.server(options=options, interceptors=list(interceptors) or None)
        self.health = health.aio.HealthServicer()
        self.service_names = list(service_names)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.grpc)
        reflection.enable_server_reflection(
            [*self.service_names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME],
            self.grpc,
        )
        self.port = 0

    async def start(self, address: str) -> int:
        self.port = self.grpc.add_insecure_port(address)
        await self.grpc.start()
        for name in ["", *self.service_names]:
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        return self.port

    async def stop(self, grace: float = 5.0) -> None:
        await self.health.enter_graceful_shutdown()
        await self.grpc.stop(grace)


def _add_to_default_pool(file: FileDescriptor) -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(file.name)
        return
    except KeyError:
        pass
    for dependency in file.dependencies:
        _add_to_default_pool(dependency)
    proto = descriptor_pb2.FileDescriptorProto()
    file.CopyToProto(proto)
    pool.AddSerializedFile(proto.SerializeToString())


def listen_address(default_port: int) -> str:
    host = settings.text("TAVOLA_HOST")
    port = settings.port("TAVOLA_PORT", default_port)
    return f"{host}:{port}"


def write_port_file(port: int) -> None:
    """A launcher that asked for port 0 learns the bound port from TAVOLA_PORT_FILE."""
    path = settings.text("TAVOLA_PORT_FILE")
    if path:
        tmp = f"{path}.tmp"
        with open(tmp, "w") as handle:
            handle.write(str(port))
        os.replace(tmp, path)


async def serve_until_signal(
    server: Server,
    address: str,
    name: str,
    on_stop: Callable[[], Awaitable[None]] | None = None,
    on_stopping: Callable[[], None] | None = None,
) -> None:
    """Serves until SIGTERM or SIGINT, then stops gracefully: ``on_stopping`` is called as
    the stop begins (e.g. long-lived streams end after their current message), ``on_stop``
    once the server has stopped."""
    port = await server.start(address)
    write_port_file(port)
    log.info("serving", server=name, address=address.rsplit(":", 1)[0] + f":{port}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping", server=name)
    if on_stopping is not None:
        on_stopping()
    await server.stop()
    if on_stop is not None:
        await on_stop()
    log.info("stopped", server=name)

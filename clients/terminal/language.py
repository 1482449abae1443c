"""The language the terminal client reads the games' events in: ``--lang`` ("it", "de"),
else the terminal's locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``: "de_DE.UTF-8" reads
"de_DE"), else English. Every call names it in the ``tavola-locale`` metadata, and the
gateway tells the events, outcomes and the platform's words in it (gateway/locale.py);
the client's own words stay English, but for the help panel's headings (help.py)."""

import collections
import os
from collections.abc import Mapping

import grpc

HEADER = "tavola-locale"


def from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """The terminal's locale as a locale name ("de_DE"), "en" for none, "C" or "POSIX"."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "").split(".")[0].split("@")[0]
        if value and value not in ("C", "POSIX"):
            return value
    return "en"


class _Details(
    collections.namedtuple(
        "_Details", ("method", "timeout", "metadata", "credentials", "wait_for_ready", "compression")
    ),
    grpc.ClientCallDetails,
):
    pass


class ReaderLanguage(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds the reader's language to every call's metadata."""

    def __init__(self, locale: str):
        self.locale = locale

    def _details(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata = [item for item in (details.metadata or ()) if item[0] != HEADER] + [(HEADER, self.locale)]
        return _Details(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation, client_call_details, request):
        return continuation(self._details(client_call_details), request)

    def intercept_unary_stream(self, continuation, client_call_details, request):
        return continuation(self._details(client_call_details), request)

    def intercept_stream_unary(self, continuation, client_call_details, request_iterator):
        return continuation(self._details(client_call_details), request_iterator)

    def intercept_stream_stream(self, continuation, client_call_details, request_iterator):
        return continuation(self._details(client_call_details), request_iterator)


# The language of this run's calls: set from --lang by the command line (clients/terminal/__main__.py).
LANGUAGE = from_environment()


def in_language(channel: grpc.Channel, locale: str | None = None) -> grpc.Channel:
    """``channel`` with every call in ``locale`` (this run's language when None)."""
    return grpc.intercept_channel(channel, ReaderLanguage(locale or LANGUAGE))

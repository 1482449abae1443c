"""The reader's language: the one place a request's locale is read.

A client names the language it reads in the ``tavola-locale`` metadata ("it", "de_CH"),
else the gateway reads the request's ``accept-language`` (a browser's, through the web
port); English otherwise, and for any value that is not a locale. The events a request is
answered with are told in it (gateway/text.py), each word the game's catalogs lack in
English. Held in a context variable for the call, so that the words are told in it however
deep the call reaches.
"""

import contextvars
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from babel import Locale, UnknownLocaleError

from common.phrases import FALLBACK

HEADER = "tavola-locale"
READER: contextvars.ContextVar[str] = contextvars.ContextVar("reader_locale", default=FALLBACK)
_LONGEST = 64  # a locale is short; anything longer is not read


def parsed(value: str) -> str | None:
    """``value`` as a CLDR locale name ("de-CH" -> "de_CH"), None when it is none."""
    value = value.strip()
    if not value or len(value) > _LONGEST or not re.fullmatch(r"[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*", value):
        return None
    try:
        return str(Locale.parse(value.replace("-", "_")))
    except (UnknownLocaleError, ValueError):
        return None


def from_metadata(metadata: Iterable[tuple[str, str | bytes]]) -> str:
    """The locale a request's metadata names: ``tavola-locale``, else the first locale of
    ``accept-language`` by its weights, else English."""
    values = {key.lower(): value for key, value in metadata if isinstance(value, str)}
    named = parsed(values.get(HEADER, ""))
    if named:
        return named
    accepted = []
    for index, item in enumerate(values.get("accept-language", "")[:512].split(",")):
        name, _, weight = item.partition(";q=")
        try:
            quality = float(weight) if weight else 1.0
        except ValueError:
            continue
        if (locale := parsed(name)) is not None and quality > 0:
            accepted.append((-quality, index, locale))
    return min(accepted)[2] if accepted else FALLBACK


@contextmanager
def reading_in(context) -> Iterator[str]:
    """The call's locale (``context``: a gRPC call's), held for the words told within."""
    metadata = getattr(context, "invocation_metadata", None)
    locale = from_metadata(metadata() or () if callable(metadata) else ())
    token = READER.set(locale)
    try:
        yield locale
    finally:
        READER.reset(token)

"""What chat allows: which channels a table has (per game and rated or unrated), what a
message may hold, and the operator's filter.

A message's text is NFKC-normalized and trimmed, then checked by the one character policy
of everything a viewer reads (``common.name_rules.check_characters``: no control, format,
bidirectional, private-use or invisible characters, no pile of combining marks), then by
length, then by the operator's word list and filter. Links and markup are plain text:
clients never render a message as markup.

The filter hook: ``TAVOLA_CHAT_FILTER=package.module:callable`` is called as
``callable(text, context)`` with a ``ChatContext``; it returns the text to keep (the same,
or rewritten, e.g. masked) or None to refuse the message. It may be a coroutine function
(a call to a moderation service). ``TAVOLA_CHAT_WORDS`` names a file of refused words.
"""

import importlib
import inspect
import re
import unicodedata
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from common import settings
from common.errors import invalid
from common.name_rules import check_characters
from common.settings import ConfigError

ON, SPECTATORS, OFF = "on", "spectators", "off"
_KINDS = ("rated", "unrated", "*")


@dataclass(frozen=True)
class ChatContext:
    """What a filter may weigh besides the text."""

    channel: str  # "players", "spectators" or "lobby"
    table_id: str
    game_id: str
    player_id: str


Filter = Callable[[str, ChatContext], "str | Awaitable[str | None] | None"]


def parse_table_rules(text: str) -> tuple[tuple[str, str, str], ...]:
    """'borgia:rated=spectators,*:*=on' -> (('borgia', 'rated', 'spectators'), ...)."""
    rules = []
    for item in (item.strip() for item in text.split(",")):
        if not item:
            continue
        where, _, what = item.partition("=")
        game, _, kind = where.strip().partition(":")
        what, kind = what.strip(), kind.strip() or "*"
        if not game.strip() or kind not in _KINDS or what not in (ON, SPECTATORS, OFF):
            raise ConfigError(
                f"TAVOLA_CHAT_TABLES: {item!r} is not <game or *>:<rated, unrated or *>=<on, spectators or off>"
            )
        rules.append((game.strip(), kind, what))
    return tuple(rules)


def read_words(path: str) -> frozenset[str]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ConfigError(f"TAVOLA_CHAT_WORDS: {path!r} cannot be read ({error.strerror})") from None
    return frozenset(
        unicodedata.normalize("NFKC", line).strip().casefold()
        for line in lines
        if line.strip() and not line.lstrip().startswith("#")
    )


def load_filter(spec: str) -> Filter | None:
    if not spec:
        return None
    module_name, _, name = spec.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError, ValueError) as error:
        raise ConfigError(f"TAVOLA_CHAT_FILTER: {spec!r} names no module:callable ({error})") from None
    if not callable(found):
        raise ConfigError(f"TAVOLA_CHAT_FILTER: {spec!r} is not callable")
    return found


@dataclass(frozen=True)
class ChatSettings:
    table_rules: tuple[tuple[str, str, str], ...] = ()
    lobby: bool = False
    per_minute: int = 20
    burst: int = 5
    max_characters: int = 500
    history: int = 500
    words: frozenset[str] = frozenset()
    filter: Filter | None = field(default=None, compare=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "ChatSettings":
        words_file = settings.text("TAVOLA_CHAT_WORDS", env)
        return cls(
            table_rules=parse_table_rules(settings.text("TAVOLA_CHAT_TABLES", env)),
            lobby=settings.flag("TAVOLA_CHAT_LOBBY", env),
            per_minute=settings.integer("TAVOLA_CHAT_PER_MINUTE", env),
            burst=settings.integer("TAVOLA_CHAT_BURST", env),
            max_characters=settings.integer("TAVOLA_CHAT_MAX_CHARACTERS", env),
            history=settings.integer("TAVOLA_CHAT_HISTORY", env),
            words=read_words(words_file) if words_file else frozenset(),
            filter=load_filter(settings.text("TAVOLA_CHAT_FILTER", env)),
        )

    def table_chat(self, game_id: str, rated: bool) -> str:
        """ON, SPECTATORS or OFF for a table of ``game_id``: the last rule that matches."""
        kind = "rated" if rated else "unrated"
        decided = ON
        for game, rule_kind, what in self.table_rules:
            if game in ("*", game_id) and rule_kind in ("*", kind):
                decided = what
        return decided

    def clean(self, raw: str) -> str:
        """The text kept for ``raw``, or INVALID_ARGUMENT (BAD_CHAT_TEXT) saying why."""
        text = unicodedata.normalize("NFKC", raw).strip()
        if not text:
            raise invalid("BAD_CHAT_TEXT", "a chat message needs some text")
        # Length first: a megabyte of text is refused without a walk over its characters.
        if len(text) > self.max_characters:
            raise invalid(
                "BAD_CHAT_TEXT",
                f"a chat message has at most {self.max_characters} characters (this one {len(text)})",
                limit=self.max_characters,
            )
        check_characters(text, what="a chat message", reason="BAD_CHAT_TEXT")
        return text

    async def filtered(self, text: str, context: ChatContext) -> str:
        """The text as the word list and the operator's filter keep it, or CHAT_FILTERED."""
        if self.words:
            for word in re.findall(r"\w+", text.casefold()):
                if word in self.words:
                    raise invalid("CHAT_FILTERED", "this message was refused by the operator's word list")
        if self.filter is None:
            return text
        kept = self.filter(text, context)
        if inspect.isawaitable(kept):
            kept = await kept
        if kept is None:
            raise invalid("CHAT_FILTERED", "this message was refused by the operator's filter")
        return self.clean(str(kept))  # a rewrite obeys the same policy

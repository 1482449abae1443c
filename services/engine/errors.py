"""Typed engine errors. The rules server maps each to one gRPC status code, in one place."""


class EngineError(Exception):
    """Base of every error an engine raises on purpose.

    ``reason`` is a machine-readable UPPER_SNAKE code that clients may branch on.
    Messages must never reveal hidden information (another seat's dice, role, hand...).
    """

    reason = "ENGINE_ERROR"

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        if reason is not None:
            self.reason = reason


class InvalidConfig(EngineError):
    """Player count or table options that the game does not accept (INVALID_ARGUMENT)."""

    reason = "INVALID_CONFIG"


class MalformedAction(EngineError):
    """An action that is not well formed for this game at all (INVALID_ARGUMENT)."""

    reason = "MALFORMED_ACTION"


class NotYourDecision(EngineError):
    """The seat is not among those who must decide now (FAILED_PRECONDITION)."""

    reason = "NOT_YOUR_DECISION"


class IllegalAction(EngineError):
    """A well-formed action that the rules do not allow now (FAILED_PRECONDITION)."""

    reason = "ILLEGAL_ACTION"

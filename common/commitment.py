"""The published commitment to a table's seed: the gateway makes it as a table starts,
``services.verify`` checks it, and a rating update carries it (``bots/worker/rating_tasks.py``)."""

import hashlib


def commitment(seed: int, salt: bytes) -> bytes:
    """The published commitment to a table's seed."""
    return hashlib.sha256(salt + seed.to_bytes(8, "big")).digest()

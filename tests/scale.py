"""How many random games a property test plays: a sample in make test, the full count in
make test-long (pytest --long, which sets LONG in every worker process)."""

LONG = False


def games(sample: int, full: int) -> int:
    return full if LONG else sample

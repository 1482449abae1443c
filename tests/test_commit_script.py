"""The commit script's keys and arguments are named once (gateway/commit_script.py): the
script reads each by its name, never by a position of its own, and the lists handed to
Redis follow the same table."""

import re
from dataclasses import fields

import pytest

from gateway.commit_script import SCRIPT, CommitArgs, CommitKeys, script_args


def _declared(table: str) -> list[str]:
    return re.findall(rf"^local (\w+) = {table}\[(\d+)\]$", SCRIPT, re.M)


def test_the_script_names_its_keys_and_arguments_in_the_tables_order():
    keys = _declared("KEYS")
    args = _declared("ARGV")
    assert keys == [(f"{item.name}_key", str(place)) for place, item in enumerate(fields(CommitKeys), 1)]
    assert args == [(item.name, str(place)) for place, item in enumerate(fields(CommitArgs), 1)]
    body = "\n".join(line for line in SCRIPT.splitlines() if not re.match(r"local \w+ = (KEYS|ARGV)\[\d+\]$", line))
    # Past the declarations only the log entries are read by position, after the named ones.
    assert "KEYS[" not in body
    assert re.findall(r"ARGV\[[^\]]*\]", body) == ["ARGV[i]", "ARGV[i + 1]", "ARGV[i + 1 + k]"]
    assert f"local i = {len(args) + 1}\n" in body
    for name, _ in keys + args:
        assert re.search(rf"\b{name}\b", body), f"{name} is declared but the script never reads it"


def _args(**changes) -> CommitArgs:
    values: dict = {item.name: "" for item in fields(CommitArgs)}
    return CommitArgs(**(values | changes))


def test_the_arguments_go_in_their_places_and_the_entries_after_them():
    args = _args(expected_version=3, record=b"r", version=4, last_seq=7, table_id="t1")
    listed = script_args(args, [["e", b"one"], ["e", b"two"]], first_seq=6)
    count = len(fields(CommitArgs))
    assert listed[0] == 3 and listed[1] == b"r" and listed[2] == 4 and listed[3] == 7
    assert listed[[item.name for item in fields(CommitArgs)].index("table_id")] == "t1"
    assert listed[count:] == ["6-0", 1, "e", b"one", "7-0", 1, "e", b"two"]


def test_keys_across_tables_are_given_in_order_or_not_at_all():
    assert CommitKeys("t", "l", "r", "a").values() == ["t", "l", "r", "a"]
    assert CommitKeys("t", "l", "r", "a", due="d", jobs="d", pending="d").values() == [*"tlra", "d", "d", "d"]
    assert CommitKeys("t", "l", "r", "a", "d", "j", "p", "o").values() == [*"tlra", "d", "j", "p", "o"]
    with pytest.raises(ValueError):
        CommitKeys("t", "l", "r", "a", outbox="o").values()

"""A struck table.opened whose gaming day is no calendar date holds what follows it in no
gaming day, in both pure folds alike (audit.record.corrections.holds_day): the rules
engine's replay folds none of those rounds and the ledger's books count none of them in
the day before (a no_gaming_day finding there names them); a proper opening after them
starts its own day again. No database: the folds over a dealt stream."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from audit.record.corrections import holds_day, is_gaming_day
from ledger.books.fold import fold
from tables.engine.presets import PRESETS
from tables.engine.replay import replay
from tables.engine.simulate import deal_table
from tests.back_office.helpers import START


def _renamed(value: Any, prefix: str) -> Any:
    """``value`` with every bet id (a ``bet`` or ``parent``) prefixed: a stream's bet ids
    are its own across days (a bet placed twice counts once)."""
    if isinstance(value, dict):
        return {
            k: (
                f"{prefix}{v}"
                if k in ("bet", "parent") and isinstance(v, str)
                else _renamed(v, prefix)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_renamed(v, prefix) for v in value]
    return value


def _day(seed: str, rounds: int, day: str) -> list[dict[str, Any]]:
    events = copy.deepcopy(
        deal_table(PRESETS["hoyle"], seed=seed, rounds=rounds, table="T1", start=START).events
    )
    events = [{**e, "payload": _renamed(e["payload"], f"{seed}-")} for e in events]
    events[0]["payload"]["gaming_day"] = day
    return events


def _stream() -> tuple[
    list[dict[str, Any]], dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]
]:
    """A day of 3 rounds; an opening of 2026-02-30 and 4 rounds; a correction striking
    it; a proper opening of 2026-12-01 and 2 rounds. Versioned in order."""
    first = _day("a", 3, "2026-11-29")
    poisoned = _day("b", 4, "2026-02-30")
    strike = {
        "id": str(uuid.uuid4()),
        "type": "correction.recorded",
        "schema_version": 1,
        "stream": "T1",
        "occurred_at": poisoned[-1]["occurred_at"],
        "actor": "user:pb",
        "source": "back-office",
        "payload": {
            "round": None,
            "corrects": poisoned[0]["id"],
            "settlements": [],
            "reason": "no such day",
            "authorised_by": "pb",
        },
    }
    later = _day("c", 2, "2026-12-01")
    events = [*first, *poisoned, strike, *later]
    for version, event in enumerate(events, 1):
        event["version"] = version
        event["stream"] = "T1"
    return events, poisoned[0], first, later


def _won(events: list[dict[str, Any]]) -> int:
    return -sum(
        s["net"]
        for e in events
        if e["type"] == "round.settled"
        for s in e["payload"]["settlements"]
    )


def test_the_rule_reads_a_struck_opening_of_no_date_only() -> None:
    assert (
        is_gaming_day("2028-02-29") and not is_gaming_day("2026-02-30") and not is_gaming_day(None)
    )
    assert holds_day({"type": "table.opened", "payload": {"gaming_day": "2026-02-30"}})
    assert not holds_day({"type": "table.opened", "payload": {"gaming_day": "2026-11-30"}})
    assert not holds_day({"type": "drop.counted", "payload": {"gaming_day": "2026-02-30"}})


def test_the_engine_folds_none_of_the_held_rounds() -> None:
    events, _, first, later = _stream()
    result = replay(events)
    # the first day's three rounds and the proper day's two, none of the held four
    assert [r.number for r in result.rounds] == [1, 2, 3, 1, 2]
    recorded = -sum(net for r in result.rounds for _, net in (r.recorded or {}).values())
    assert recorded == _won(first) + _won(later)
    assert result.clean, result.findings


def test_the_books_count_them_in_no_day_and_say_so() -> None:
    events, opening, first, later = _stream()
    books = fold(events, final=False)
    assert books.days() == ["2026-11-29", "2026-12-01"]
    assert (books.day("2026-11-29").rounds, books.day("2026-11-29").settled_win) == (3, _won(first))
    assert (books.day("2026-12-01").rounds, books.day("2026-12-01").settled_win) == (2, _won(later))
    [held] = [f for f in books.findings if f.kind == "no_gaming_day"]
    assert held.gaming_day == "2026-11-29" and held.event == opening["id"]
    assert (
        f"from version {opening['version']}" in held.message and "not in 2026-11-29" in held.message
    )

"""A long table's audit keeps little of what it read (issue 12): the event ids behind a
Bloom filter of a fixed size, on the shelf 16,384 at a time, the rounds on the shelf. What a late event says about an
early one must still count exactly as when everything was kept: a repeated id, a
correction or a void of an early round, an event a correction strikes."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import pytest

from audit.record import ids as id_sets
from audit.record.ids import IdSet
from auditor.reports import StreamAudit, StreamReports
from ledger.books.fold import Fold
from tables.engine.presets import PRESETS
from tables.engine.replay import Replay
from tables.engine.simulate import deal_table
from tests.engine.helpers import START


def test_the_id_set_holds_each_id_exactly() -> None:
    ids = IdSet()
    canonical = [str(uuid.uuid5(uuid.NAMESPACE_URL, str(n))) for n in range(20_000)]
    for event_id in canonical[::2]:
        ids.add(event_id)
    assert all(event_id in ids for event_id in canonical[::2])
    assert not any(event_id in ids for event_id in canonical[1::2])
    # the upper-case text of a held UUID, a space for a digit, a short text: other ids
    held = canonical[0]
    for other in (held.upper(), held[:-1] + " ", held.replace("-", ""), "e1", held + "0"):
        assert other not in ids
        ids.add(other)
        assert other in ids
    assert len(ids) == 10_000 + 5
    ids.add(held)
    assert not ids.add_new(held.upper())
    assert len(ids) == 10_000 + 5
    assert sorted(ids) == sorted(
        canonical[::2] + [held.upper(), held[:-1] + " ", held.replace("-", ""), "e1", held + "0"]
    )


def test_a_match_across_two_held_ids_is_not_one_of_them() -> None:
    ids = IdSet()
    a, b = "00000000-0000-0000-0000-00000000abcd", "ef000000-0000-0000-0000-000000000000"
    ids.add(a)
    ids.add(b)  # another bucket; put both in one by their first 12 bits
    first = "00000000-0000-0000-0000-0000000000ab"
    ids.add(first)
    straddling = (
        "0000abcd-0000-0000-0000-000000000000"  # the last bytes of one and the first of the next
    )
    assert straddling not in ids


def _uuids(count: int, salt: str = "") -> list[str]:
    return [str(uuid.uuid5(uuid.NAMESPACE_URL, f"{salt}{n}")) for n in range(count)]


@pytest.fixture
def small_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ids settled 8 at a time and shelved 32 at a time: a few thousand ids make many runs."""
    monkeypatch.setattr(id_sets, "FRESH", 8)
    monkeypatch.setattr(id_sets, "SETTLED", 32)


@pytest.mark.usefixtures("small_runs")
def test_an_id_shelved_long_before_is_found_again_exactly() -> None:
    held, never = _uuids(3_000), _uuids(3_000, "other")
    ids = IdSet()
    assert all(ids.add_new(event_id) for event_id in held)
    assert len(ids._runs) > 80  # nearly all on the shelf, in runs of 32
    assert all(event_id in ids for event_id in held)
    assert not any(event_id in ids for event_id in never)
    # the first id again, 3,000 ids and 90 runs later; the last, still a text
    assert not ids.add_new(held[0])
    assert not ids.add_new(held[-1])
    assert len(ids) == 3_000
    assert sorted(ids) == sorted(held)


@pytest.mark.usefixtures("small_runs")
def test_a_false_alarm_of_the_filter_is_no_repeat() -> None:
    """A filter of one byte sounds for nearly every id once it fills: each alarm is looked
    up on the shelf, and none makes an id that was never added a repeat."""
    held, never = _uuids(2_000), _uuids(2_000, "other")
    ids = IdSet(size=1)
    assert all(ids.add_new(event_id) for event_id in held)
    assert ids.alarms > 1_900
    assert not any(event_id in ids for event_id in never)
    assert all(event_id in ids for event_id in held)
    assert [ids.add_new(event_id) for event_id in (held[1], never[0], never[0])] == [
        False,
        True,
        False,
    ]
    assert len(ids) == 2_001


@pytest.mark.usefixtures("small_runs")
def test_texts_that_are_not_canonical_uuids_stay_texts_among_the_uuids() -> None:
    held = _uuids(200)
    first = held[0]
    others = [
        first.upper(),
        first[:-1] + " ",
        first[:-1],
        first + "0",
        first.replace("-", ""),
        "e1",
        first[:8] + "-" + first[9:] + "-",
        first[:-1] + "\n",
        "",
        first.replace("-", "_"),
    ]
    ids = IdSet(size=1)
    for n, event_id in enumerate(held):  # the others in among the UUIDs, one a batch
        assert ids.add_new(event_id)
        if n % 10 == 0 and n // 10 < len(others):
            assert ids.add_new(others[n // 10])
    assert all(event_id in ids for event_id in held + others)
    assert first[:-1] + "x" not in ids and first.upper()[:-1] + "X" not in ids
    assert not any(event_id in ids for event_id in _uuids(200, "other"))
    assert sorted(ids) == sorted(held + others)
    assert not any(ids.add_new(event_id) for event_id in others)


@pytest.mark.parametrize(
    "texts",
    [
        ["00000000-0000-0000-0000-000000000000"] * 3,  # digits alone: canonical all the same
        [
            "0" * 8 + "-0000-0000-0000-" + "0" * 11,
            "0" * 8 + "-0000-0000-0000-" + "0" * 13,
        ],  # 35 and 37 characters
        ["A" * 8 + "-0000-0000-0000-" + "0" * 12],
        ["0" * 8 + "-0000-0000-0000-" + "0" * 11 + " "],
        ["0" * 9 + "0000-0000-0000-" + "0" * 12],
        ["0" * 8 + "-0000-0000-0000-" + "0" * 5 + "\n" + "0" * 6],
        ["0" * 8 + "-0000-0000-0000-" + "0" * 11 + "g"],
        ["0" * 8 + "-0000-0000-0000-" + "0" * 11 + "\u0660"],  # an Arabic-Indic zero
    ],
)
def test_the_batch_check_takes_only_canonical_uuids(texts: list[str]) -> None:
    keys = id_sets._canonical(texts)
    one_by_one = [bool(id_sets._ONE.fullmatch(text)) and len(text) == 36 for text in texts]
    assert (keys is not None) == all(one_by_one)
    if keys is not None:
        assert keys == b"".join(uuid.UUID(text).bytes for text in texts)


def _table(rounds: int = 160) -> list[dict[str, Any]]:
    return copy.deepcopy(
        deal_table(PRESETS["hoyle"], seed="long-stream", rounds=rounds, start=START).events
    )


def _event(
    after: dict[str, Any], kind: str, payload: dict[str, Any], version: int
) -> dict[str, Any]:
    event = copy.deepcopy(after)
    event.update(
        type=kind,
        payload=payload,
        version=version,
        id=str(uuid.uuid5(uuid.NAMESPACE_OID, f"{kind}{version}")),
    )
    return event


def _late_changes(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], set[str]]:
    """Late in the day: an early event read again, a correction of an early round's
    settlement, a void of another early round, a correction striking an early bet, a
    correction naming an event that is not in the record."""
    settled = [e for e in events if e["type"] == "round.settled" and e["payload"]["settlements"]]
    early, voided = settled[2], settled[5]
    placed = [
        e
        for e in events
        if e["type"] == "bet.placed" and e["payload"]["round"] == settled[8]["payload"]["round"]
    ]
    last = events[-1]
    version = last["version"]
    bet = early["payload"]["settlements"][0]
    # an early event read twice more, far from it, and a late one again just after itself
    late: list[dict[str, Any]] = [
        copy.deepcopy(events[12]),
        copy.deepcopy(events[-4]),
        copy.deepcopy(events[12]),
    ]
    for kind, payload in (
        (
            "correction.recorded",
            {
                "round": early["payload"]["round"],
                "corrects": early["id"],
                "reason": "short pay",
                "authorised_by": "pitboss",
                "settlements": [{**bet, "net": bet["net"] + 5}],
            },
        ),
        ("round.voided", {"round": voided["payload"]["round"], "reason": "misdeal"}),
        (
            "correction.recorded",
            {
                "round": None,
                "corrects": placed[0]["id"],
                "reason": "struck",
                "authorised_by": "pitboss",
                "settlements": [],
            },
        ),
        (
            "correction.recorded",
            {
                "round": None,
                "corrects": str(uuid.uuid4()),
                "reason": "nothing",
                "authorised_by": "pitboss",
                "settlements": [],
            },
        ),
    ):
        version += 1
        late.append(_event(last, kind, payload, version))
    return events[:-3] + late[:3] + events[-3:] + late[3:], {placed[0]["id"]} | {
        late[-1]["payload"]["corrects"]
    }


class _Texts(set[str]):
    """The reference for the ids: a set of the texts."""

    def add_new(self, event_id: str) -> bool:
        if event_id in self:
            return False
        self.add(event_id)
        return True


def _audit(events: list[dict[str, Any]], struck: set[str], *, kept: bool) -> StreamReports:
    audit = StreamAudit("T1", first_version=1, struck=struck)
    if kept:  # the reference: the ids, the engine's and the ledger's folds as they keep everything
        audit.ids = _Texts()
        audit.replay = Replay(struck=audit.struck)
        audit.replay.skip_to(1)
        audit.fold = Fold(struck=audit.struck, entries=False)
    for event in events:
        audit.add(event)
    if not kept:  # the rounds before the last are held pickled, bar the one the late void thawed
        audit.replay.run(audit.pending)
        audit.pending = []
        values = list(audit.replay.rounds.values())
        assert sum(isinstance(value, bytes) for value in values) == len(values) - 2
    return audit.finish()


@pytest.mark.parametrize("rounds", [40, 160])
def test_late_events_about_early_rounds_count_as_when_everything_is_kept(rounds: int) -> None:
    events, struck = _late_changes(_table(rounds))
    lean = _audit(events, struck, kept=False)
    assert lean == _audit(events, struck, kept=True)
    kinds = [(row["owner"], row["kind"]) for row in lean.checks]
    assert (
        kinds.count(("engine", "duplicate_event")) == 3
    )  # the repeats, the first 150 rounds after its event
    assert ("engine", "invalid_correction") in kinds  # the correction of an event never recorded
    assert [row["status"] for row in lean.rounds].count("voided") >= 1
    assert any(row["recorded"] != row["recomputed"] for row in lean.rounds)  # the corrected round


@pytest.mark.usefixtures("small_runs")
def test_a_repeat_far_apart_is_found_with_a_filter_that_sounds_for_every_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ids on the shelf in runs of 32, behind a filter of one byte: the same reports,
    the same repeats, named where they come, as a set of the texts gives."""
    monkeypatch.setattr(id_sets, "BYTES", 1)
    table = _table(40)
    events, struck = _late_changes(table)
    lean = _audit(events, struck, kept=False)
    assert lean == _audit(events, struck, kept=True)
    repeats = [row for row in lean.checks if row["kind"] == "duplicate_event"]
    # the 13th event again about 1,000 events later, and the 4th from the end just after itself
    assert [(row["table"], row["event"]) for row in repeats] == [
        ("T1", table[12]["id"]),
        ("T1", table[-4]["id"]),
        ("T1", table[12]["id"]),
    ]
    assert all(
        row["message"] == f"Event {row['event']} appears twice in the record." for row in repeats
    )


def test_the_filter_is_larger_only_for_a_stream_longer_than_it_is_made_for() -> None:
    def size(ids: IdSet) -> int:
        return len(ids._bits)

    assert size(IdSet()) == size(IdSet(expected=260_000)) == id_sets.BYTES == 1 << 20
    assert size(IdSet(expected=1_000_000)) == 4 << 20
    assert size(IdSet(expected=10**12)) == 16 << 20  # a manifest's count, whatever it says
    assert size(IdSet(size=64, expected=10**6)) == 64

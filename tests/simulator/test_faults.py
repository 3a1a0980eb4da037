"""Each planted fault is found by the audit exactly where the manifest says, and nothing
else is reported: replay for the game, reconciliation for chips, the chain for
tampering."""

from __future__ import annotations

from collections import Counter

import pytest

from tables.simulator.config import SimConfig
from tables.simulator.faults import KINDS, parse_at

from .helpers import audit, events_of, expected, run

# table per fault kind: 01 is it-live (no chips), 07 the single deck; custody faults of one
# moment (a fill, a day's drop) on different tables
_TABLE = {
    "short_pay": 2,
    "overpay": 3,
    "natural_even_money": 5,
    "dealer_draws_17": 4,
    "dealer_stands_16": 6,
    "card_out_of_sequence": 3,
    "impossible_card": 7,
    "missing_event": 1,
    "duplicate_event": 1,
    "fill_twice": 4,
    "fill_without_request": 2,
    "fill_short": 3,
    "fill_unfinished": 5,
    "void_without_reason": 6,
    "void_after_receipt": 7,
    "opener_mismatch": 2,
    "chip_variance": 3,
    "drop_not_counted": 4,
    "drop_not_posted": 5,
    "closer_missing": 7,
    "drop_mismatch": 6,
    "tamper": 5,
    "wrong_face": 2,
    "missing_stake": 6,
    "insurance_without_decision": 3,
}


@pytest.fixture(scope="module")
def placed() -> tuple[bytes, dict]:
    """Every kind once, on two gaming days (an opener differs from the closer before it)."""
    at = tuple(
        parse_at(f"{kind}@BJ-{_TABLE[kind]:02d}:{min(3 + 4 * i, 44)}")
        for i, kind in enumerate(KINDS)
    )
    return run(SimConfig(tables=7, rounds=45, days=2, seed="placed", live_bets=40, at=at))


@pytest.fixture(scope="module")
def found(placed: tuple[bytes, dict]) -> Counter:
    return audit(placed[0])


def test_every_kind_was_planted_once(placed: tuple[bytes, dict]) -> None:
    _, manifest = placed
    assert manifest["not_planted"] == []
    assert Counter(f["kind"] for f in manifest["faults"]) == Counter(list(KINDS))
    for fault in manifest["faults"]:
        assert fault["table"] == f"BJ-{_TABLE[fault['kind']]:02d}"
        assert fault["event"]["id"] and fault["event"]["version"] >= 1
        if fault["round"] is not None:
            assert fault["round"] >= fault["requested_round"]


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_planted_fault_is_found_where_the_manifest_says(
    placed: tuple[bytes, dict], found: Counter, kind: str
) -> None:
    _, manifest = placed
    fault = next(f for f in manifest["faults"] if f["kind"] == kind)
    one = expected({"faults": [fault]})
    assert sum(found[k] for k in one) == 1 and all(found[k] == 1 for k in one), (found, one)
    assert KINDS[kind].finding in {k[2] for k in one}


def test_the_manifest_names_the_event_by_version_and_id(placed: tuple[bytes, dict]) -> None:
    data, manifest = placed
    by_place = {(e["stream"], e["version"]): e for e in events_of(data)}
    for fault in manifest["faults"]:
        event = by_place[(fault["table"], fault["event"]["version"])]
        assert (event["id"], event["type"]) == (fault["event"]["id"], fault["event"]["type"])


def test_nothing_else_is_reported(placed: tuple[bytes, dict], found: Counter) -> None:
    assert found == expected(placed[1])


def test_faults_at_a_rate_are_each_found_and_nothing_else() -> None:
    rates = {kind: 0.03 for kind in KINDS}
    rates["chip_variance"] = 0.5
    data, manifest = run(
        SimConfig(tables=7, rounds=50, days=2, seed="rates", live_bets=30, rates=rates)
    )
    planted = Counter(f["kind"] for f in manifest["faults"])
    assert len(planted) >= 15, planted
    found = audit(data)
    want = expected(manifest)  # a stream's first tampering only: the chain check stops there
    assert found == want


def test_faults_on_the_live_table_leave_its_cash_out_offers_right() -> None:
    """Replay values every cash-out offer from the shoe as it counts it; a card the
    shoe cannot hold (which replay cannot take out) or a dealer's wrong play must not
    make the offers after it look wrong."""
    at = tuple(
        parse_at(f"{kind}@BJ-01:{n}")
        for kind, n in (
            ("card_out_of_sequence", 2),
            ("dealer_stands_16", 4),
            ("dealer_draws_17", 6),
            ("impossible_card", 30),
            ("duplicate_event", 8),
            ("missing_event", 9),
            ("short_pay", 10),
            ("tamper", 12),
        )
    )
    data, manifest = run(SimConfig(tables=1, rounds=120, seed="live", live_bets=40, at=at))
    assert manifest["not_planted"] == [] and len(manifest["faults"]) == len(at)
    assert audit(data) == expected(manifest)


def test_a_pushed_stake_placed_again_is_not_the_one_duplicated() -> None:
    """On it-sabot a pushed stake comes back as a bet naming the carried one; recorded
    twice it would be an illegal carry, not a repeat - so the repeat is a fresh bet."""
    rates = {"duplicate_event": 0.5}
    data, manifest = run(
        SimConfig(tables=1, presets=("it-sabot",), rounds=80, seed="sabot", rates=rates)
    )
    assert len(manifest["faults"]) > 20
    assert audit(data) == expected(manifest)


def test_offers_after_an_impossible_card_are_valued_as_replay_counts_the_shoe() -> None:
    """After an impossible card the shoe is recorded as hand-shuffled and replay counts
    the card it could not take out as still in the shoe; the dealer's cash-out offers
    later in that shoe are valued from the same count, so none is a wrong offer."""
    data, manifest = run(
        SimConfig(tables=1, rounds=60, seed="li1", live_bets=20, rates={"impossible_card": 0.5})
    )
    events = events_of(data)
    impossible = {
        f["event"]["version"] for f in manifest["faults"] if f["kind"] == "impossible_card"
    }
    assert impossible
    offers_after = 0
    shoe_of_fault: int | None = None
    for e in events:
        if e["type"] == "shoe.shuffled":
            shoe_of_fault = None
        elif e["version"] in impossible:
            shoe_of_fault = e["version"]
        elif e["type"] == "cashout.offered" and shoe_of_fault is not None:
            offers_after += 1
    assert offers_after > 10
    assert audit(data) == expected(manifest)


def test_every_round_fault_has_one_planter_and_each_check_is_its_findings_owner() -> None:
    """The planters are a registry by kind: each fault planted in a round has exactly one,
    the faults of other moments none. A fault's check is the owner its finding kind has
    in the findings vocabulary (tamper: ``altered``, the chain's)."""
    from audit.record.findings import KINDS as FINDINGS
    from tables.simulator.faults import ROUND_KINDS
    from tables.simulator.planting import PLANTERS

    assert set(PLANTERS) == ROUND_KINDS == {k for k, f in KINDS.items() if f.moment == "round"}
    assert all(PLANTERS[k].kind == k for k in PLANTERS)
    for kind in KINDS.values():
        assert kind.check == FINDINGS[kind.finding].owner
    assert (KINDS["tamper"].finding, KINDS["tamper"].check) == ("altered", "integrity")
    assert {k.check for k in KINDS.values()} == {"engine", "ledger", "integrity"}

"""Format stability: a package made by each format version (kept under fixtures/) must
verify with every later version of the auditor, and recall its rounds. Version 1 has no
theoretical win; version 2's is recomputed and checked; version 3's engine messages give
amounts in the table's currency, where an older package's give minor units (its messages
are not compared: ``package-v2-findings.zip``, made by the version 2 exporter with two
wrong payouts planted); version 5's theoretical win is of the initial stakes, where 2 to
4 took the handle (their theoretical columns are not compared); version 6's streams say
who recorded each correction and void (an older package has no such list: the auditor
applies its corrections as its exporter did); version 7's manifest states the days'
exchange rates and which rule sets have a drop box, and its reconciliation each day's
state (an older package's folds book no foreign amount and check no count: as made).
Versions 1-3 were signed over leaves of format 1 (no seal);
version 4's leaves commit to each event's seal, and its streams give their last seal.

Make only the fixture of a new format version, the first time (never to make this test
pass): ``PACKAGE_FIXTURE=1 pytest tests/package/test_format_fixture.py`` writes
``package-v<this version>.zip``."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from auditor import layout
from tests.package.conftest import DAY, audit, export

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE = FIXTURES / "package-v1.zip"
FIXTURE_V2 = FIXTURES / "package-v2.zip"
FIXTURE_V2_FINDINGS = FIXTURES / "package-v2-findings.zip"
FIXTURE_V3 = FIXTURES / "package-v3.zip"


@pytest.mark.skipif(
    not os.environ.get("PACKAGE_FIXTURE"), reason="writes the fixture: PACKAGE_FIXTURE=1"
)
def test_make_the_fixture(db, settings, tmp_path) -> None:
    from audit.integrity import digests
    from tables.simulator.config import SimConfig
    from tables.simulator.faults import FaultAt
    from tables.simulator.run import simulate
    from tables.simulator.store import StoreSink

    settings.PROJECT_ON_APPEND = False
    # two wrong payouts: the checks report carries the engine's messages with amounts
    config = SimConfig(
        tables=2,
        rounds=4,
        days=1,
        seed="package-fixture",
        seats=2,
        live_bets=3,
        at=(FaultAt("short_pay", "BJ-01", 1), FaultAt("overpay", "BJ-02", 1)),
    )
    simulate(config, StoreSink(config))
    digests.digest_sign()
    out = tmp_path / "package.zip"
    assert export("--day", DAY, "--out", str(out))[0] == 0
    target = FIXTURES / f"package-v{layout.FORMAT_VERSION}.zip"
    assert not target.exists(), (
        f"{target} is kept as it was made: a new format version makes a new fixture"
    )
    shutil.copyfile(out, target)


def test_the_version_1_fixture_verifies() -> None:
    assert FIXTURE.exists()
    package = layout.Package(FIXTURE)
    assert package.manifest()["format_version"] == 1
    package.close()
    code, said = audit("verify", str(FIXTURE), blocked=True)
    assert code == 0, said
    assert "tables: 2" in said


def test_a_round_of_the_fixture_is_recalled() -> None:
    """Cards, bets, settlements recorded and recomputed, chain and inclusion."""
    code, said = audit("round", str(FIXTURE), "BJ-02", DAY, "2", blocked=True)
    assert code == 0, said
    for part in (
        "Round 2 - table BJ-02",
        "card.dealt",
        "bet.placed",
        "round.settled",
        "recomputed",
        "recorded",
        "chain from the period's start to here: intact",
        "is in the signed head",
    ):
        assert part in said, part
    code, said = audit("round", str(FIXTURE), "BJ-02", "2026-01-01", "2")
    assert code == 2 and "not 2026-01-01" in said, said
    for day in ("2026-13-29", "20261129", "yesterday"):
        code, said = audit("round", str(FIXTURE), "BJ-02", day, "2")
        assert code == 2 and f"argument day: {day!r} is not a date (YYYY-MM-DD)" in said, said


def test_the_version_2_fixture_verifies_with_its_theoretical_win() -> None:
    assert FIXTURE_V2.exists()
    with zipfile.ZipFile(FIXTURE_V2) as package:
        manifest = json.loads(package.read("manifest.json"))
        rows = json.loads(package.read("reports/reconciliation.json"))["rows"]
    assert manifest["format_version"] == 2
    assert all(
        entry["house_edge"] and entry["variance"] for entry in manifest["rule_sets"].values()
    )
    assert rows and all(
        isinstance(r["theoretical_win"], int) and r["theoretical_sd"] > 0 for r in rows
    ), rows
    code, said = audit("verify", str(FIXTURE_V2), blocked=True)
    assert code == 0, said
    assert "format 2" in said and "tables: 2" in said


def test_a_version_1_reconciliation_given_a_theoretical_column_disagrees(tmp_path) -> None:
    """A version 1 package is checked as version 1 was made: a column it did not have,
    added later, is a disagreement (the manifest re-hashed and signed anew by a forger is
    caught first, but the reports are still compared)."""
    folder = tmp_path / "v1"
    with zipfile.ZipFile(FIXTURE) as package:
        package.extractall(folder)
    csv = folder / "reports" / "reconciliation.csv"
    lines = csv.read_text().splitlines()
    csv.write_text(
        "\n".join([lines[0] + ",theoretical_win"] + [line + ",0" for line in lines[1:]]) + "\n"
    )
    code, said = audit("verify", str(folder))
    assert code == 1 and "reports/reconciliation.csv:1" in said, said


def _checks(fixture: Path) -> list[dict]:
    with zipfile.ZipFile(fixture) as package:
        return json.loads(package.read("reports/checks.json"))["rows"]


def test_a_version_2_package_with_findings_verifies_though_its_messages_give_minor_units() -> None:
    rows = _checks(FIXTURE_V2_FINDINGS)
    assert sorted(r["kind"] for r in rows) == ["wrong_payout", "wrong_payout"]
    assert any("(main, 200 on box 2) should be win +200" in r["message"] for r in rows), rows
    code, said = audit("verify", str(FIXTURE_V2_FINDINGS), blocked=True)
    assert code == 0, said
    assert "format 2" in said and "all agree" in said


def _v2_with_checks(tmp_path: Path, change) -> Path:
    folder = tmp_path / "v2"
    with zipfile.ZipFile(FIXTURE_V2_FINDINGS) as package:
        package.extractall(folder)
    report = folder / "reports" / "checks.json"
    data = json.loads(report.read_text())
    change(data["rows"][0])
    report.write_bytes(layout.json_bytes(data))
    return folder


def test_an_older_package_s_checks_are_still_compared_but_for_the_message(tmp_path) -> None:
    """A version 2 package's checks are recomputed and compared without the message
    column: a changed recorded amount is a disagreement at its line, a reworded message
    only the file's changed hash."""
    folder = _v2_with_checks(tmp_path, lambda row: row.update(recorded="win +160"))
    code, said = audit("verify", str(folder))
    assert (
        code == 1 and "[reports] reports/checks.json:" in said and "message not compared" in said
    ), said
    assert '"recorded": "win +160"' in said, said
    # the line of the package's file
    changed = next(
        n
        for n, line in enumerate((folder / "reports" / "checks.json").read_text().splitlines(), 1)
        if "win +160" in line
    )
    assert f"[reports] reports/checks.json:{changed}:" in said, said

    folder = _v2_with_checks(
        tmp_path / "again",
        lambda row: row.update(message=row["message"].replace("200", "EUR 2.00")),
    )
    code, said = audit("verify", str(folder))
    assert code == 1 and "reports/checks.json" in said, said
    assert "[files] reports/checks.json" in said and "[reports]" not in said, said


def test_the_version_3_fixture_verifies_with_its_messages_in_the_table_s_currency() -> None:
    assert FIXTURE_V3.exists()
    with zipfile.ZipFile(FIXTURE_V3) as package:
        assert json.loads(package.read("manifest.json"))["format_version"] == 3
    rows = _checks(FIXTURE_V3)
    assert sorted(r["kind"] for r in rows) == ["wrong_payout", "wrong_payout"], rows
    assert all("EUR " in r["message"] for r in rows), rows
    code, said = audit("verify", str(FIXTURE_V3), blocked=True)
    assert code == 0, said
    assert "format 3" in said and "all agree" in said


FIXTURE_V4 = FIXTURES / "package-v4.zip"


def test_the_version_4_fixture_verifies_with_leaves_that_commit_to_the_seals() -> None:
    """Its heads' leaves are of format 2, and each stream gives its last event's seal,
    which the inclusion proof's leaf commits to: a seal changed in the manifest no longer
    leads to the head's root."""
    with zipfile.ZipFile(FIXTURE_V4) as package:
        manifest = json.loads(package.read("manifest.json"))
    assert manifest["format_version"] == 4
    assert [head["leaf_format"] for head in manifest["signed_heads"]] == [2]
    assert all(len(meta["last_seal"]) == 64 for meta in manifest["streams"].values())
    code, said = audit("verify", str(FIXTURE_V4), blocked=True)
    assert code == 0, said
    assert "format 4" in said and "all agree" in said
    code, said = audit("round", str(FIXTURE_V4), "BJ-02", DAY, "2", blocked=True)
    assert code == 0 and "is in the signed head" in said, said


def test_a_seal_changed_in_the_manifest_breaks_the_inclusion_proof(tmp_path) -> None:
    folder = tmp_path / "v4"
    with zipfile.ZipFile(FIXTURE_V4) as package:
        package.extractall(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["streams"]["BJ-01"]["last_seal"] = "0" * 64
    (folder / "manifest.json").write_bytes(layout.json_bytes(manifest))
    code, said = audit("verify", str(folder))
    assert code == 1
    assert "[inclusion]" in said and "the stream's last event is not in the signed head" in said, (
        said
    )


def test_heads_of_two_leaf_formats_in_one_package_are_a_disagreement(tmp_path) -> None:
    """No consistency proof joins a tree of format 1 and one of format 2: a package that
    lists both says so (the exporter lists only the latest format's heads)."""
    folder = tmp_path / "mixed"
    with zipfile.ZipFile(FIXTURE_V4) as package:
        package.extractall(folder)
    with zipfile.ZipFile(FIXTURE_V3) as older:
        old_head = json.loads(older.read("manifest.json"))["signed_heads"][-1]
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["signed_heads"].insert(0, old_head)
    (folder / "manifest.json").write_bytes(layout.json_bytes(manifest))
    code, said = audit("verify", str(folder))
    assert code == 1
    assert (
        "has leaves of format 2, the one of" in said
        and "before it format 1: no consistency proof" in said
    ), said


def test_a_previous_package_of_the_first_leaf_format_is_named(tmp_path) -> None:
    """--previous with a package whose head's leaves are of format 1: the auditor says
    that no proof joins the two formats, rather than that a proof failed."""
    code, said = audit("verify", str(FIXTURE_V4), "--previous", str(FIXTURE_V3))
    assert code == 1
    assert (
        "[previous] manifest.json: the previous package's head has leaves of format 1, this package's format 2: no "
        "consistency proof joins trees of two leaf formats"
    ) in said, said


FIXTURE_V5 = FIXTURES / "package-v5.zip"


def test_the_version_5_fixture_verifies_with_its_theoretical_win_on_the_initial_stakes() -> None:
    """From version 5 the theoretical win is the initial stakes (main and behind bets of
    rounds not voided) x the stated edge, insurance by its own; versions 2 to 4 took the
    handle, so their theoretical columns are not compared (their other columns are)."""
    from fractions import Fraction

    from tables.engine.math.insurance import insurance_figures
    from tables.engine.presets import PRESETS

    with zipfile.ZipFile(FIXTURE_V5) as package:
        manifest = json.loads(package.read("manifest.json"))
        rows = json.loads(package.read("reports/reconciliation.json"))["rows"]
        events = {
            table: [
                json.loads(line)
                for line in gzip.decompress(package.read(layout.events_file(table))).splitlines()
                if line
            ]
            for table in manifest["streams"]
        }
    assert manifest["format_version"] == 5
    stated = {entry["ruleset"]: entry for entry in manifest["rule_sets"].values()}
    checked = 0
    for row in rows:
        opened = [e["payload"] for e in events[row["table"]] if e["type"] == "table.opened"]
        voided = {
            e["payload"]["round"] for e in events[row["table"]] if e["type"] == "round.voided"
        }
        bets = [
            e["payload"]
            for e in events[row["table"]]
            if e["type"] == "bet.placed" and e["payload"]["round"] not in voided
        ]
        initial = sum(b["amount"] for b in bets if b["kind"] in ("main", "behind"))
        insurance = sum(b["amount"] for b in bets if b["kind"] == "insurance")
        ruleset = opened[0]["ruleset"]
        insurance_edge = (insurance_figures(PRESETS[ruleset]) or (Fraction(0),))[0]
        assert row["theoretical_win"] == round(
            initial * Fraction(stated[ruleset]["house_edge"]) + insurance * insurance_edge
        ), row
        assert initial < row["handle"] or not bets
        checked += 1
    assert checked == 2
    code, said = audit("verify", str(FIXTURE_V5), blocked=True)
    assert code == 0, said
    assert "format 5" in said and "all agree" in said


def test_the_version_6_fixture_verifies_with_its_authority() -> None:
    """Every stream states who recorded its money-changing events (here none: a simulated
    day records no correction or void), and the package verifies."""
    fixture = FIXTURES / "package-v6.zip"
    with zipfile.ZipFile(fixture) as package:
        manifest = json.loads(package.read("manifest.json"))
    assert manifest["format_version"] == 6
    assert all(stream["authority"] == {} for stream in manifest["streams"].values())
    code, said = audit("verify", str(fixture), blocked=True)
    assert code == 0, said
    assert "format 6" in said and "all agree" in said


def test_the_version_7_fixture_verifies_with_its_states_rates_and_drop_boxes() -> None:
    """The manifest states the days' exchange rates (here none: the simulated tables take
    only their own currency) and which rule sets have a drop box (the live game not); the
    reconciliation gives each table-day's state and what it lacks."""
    fixture = FIXTURES / "package-v7.zip"
    with zipfile.ZipFile(fixture) as package:
        manifest = json.loads(package.read("manifest.json"))
        rows = json.loads(package.read("reports/reconciliation.json"))["rows"]
    assert manifest["format_version"] == 7 and manifest["fx_rates"] == []
    assert {entry["ruleset"]: entry["drop_box"] for entry in manifest["rule_sets"].values()} == {
        "it-live": False,
        "it-classic": True,
    }
    assert [(r["table"], r["state"], r["missing"]) for r in rows] == [
        ("BJ-01", "no_drop_box", None),
        ("BJ-02", "reconciled", None),
    ]
    code, said = audit("verify", str(fixture), blocked=True)
    assert code == 0, said
    assert "format 7" in said and "all agree" in said

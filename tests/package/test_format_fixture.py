"""Format stability: a package made by each format version (kept under fixtures/) must
verify with every later version of the auditor, and recall its rounds. Version 1 has no
theoretical win; version 2's is recomputed and checked.

Make only the fixture of a new format version, the first time (never to make this test
pass): ``PACKAGE_FIXTURE=1 pytest tests/package/test_format_fixture.py`` writes
``package-v<this version>.zip``."""
from __future__ import annotations

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


@pytest.mark.skipif(not os.environ.get("PACKAGE_FIXTURE"), reason="writes the fixture: PACKAGE_FIXTURE=1")
def test_make_the_fixture(db, settings, tmp_path) -> None:
    from audit import digests
    from tables.simulator.config import SimConfig
    from tables.simulator.run import simulate
    from tables.simulator.store import StoreSink

    settings.PROJECT_ON_APPEND = False
    config = SimConfig(tables=2, rounds=3, days=1, seed="package-fixture", seats=2, live_bets=3)
    simulate(config, StoreSink(config))
    digests.digest_sign()
    out = tmp_path / "package.zip"
    assert export("--day", DAY, "--out", str(out))[0] == 0
    target = FIXTURES / f"package-v{layout.FORMAT_VERSION}.zip"
    assert not target.exists(), f"{target} is kept as it was made: a new format version makes a new fixture"
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
    for part in ("Round 2 - table BJ-02", "card.dealt", "bet.placed", "round.settled", "recomputed", "recorded",
                 "chain from the period's start to here: intact", "is in the signed head"):
        assert part in said, part
    code, said = audit("round", str(FIXTURE), "BJ-02", "2026-01-01", "2")
    assert code == 2 and "not 2026-01-01" in said, said


def test_the_version_2_fixture_verifies_with_its_theoretical_win() -> None:
    assert FIXTURE_V2.exists()
    with zipfile.ZipFile(FIXTURE_V2) as package:
        manifest = json.loads(package.read("manifest.json"))
        rows = json.loads(package.read("reports/reconciliation.json"))["rows"]
    assert manifest["format_version"] == 2
    assert all(entry["house_edge"] and entry["variance"] for entry in manifest["rule_sets"].values())
    assert rows and all(isinstance(r["theoretical_win"], int) and r["theoretical_sd"] > 0 for r in rows), rows
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
    csv.write_text("\n".join([lines[0] + ",theoretical_win"] + [line + ",0" for line in lines[1:]]) + "\n")
    code, said = audit("verify", str(folder))
    assert code == 1 and "reports/reconciliation.csv:1" in said, said

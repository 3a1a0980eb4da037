"""Format stability: a package made by format version 1 (kept under fixtures/) must
verify with every later version of the auditor, and recall its rounds.

Regenerate only when adding a fixture of a new format version (never to make this test
pass): ``PACKAGE_FIXTURE=1 pytest tests/package/test_format_fixture.py``."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from auditor import layout
from tests.package.conftest import DAY, audit, export

FIXTURE = Path(__file__).parent / "fixtures" / "package-v1.zip"


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
    shutil.copyfile(out, FIXTURE)


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

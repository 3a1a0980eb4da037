"""--previous: a package proves that its record grew from an earlier package's head."""
from __future__ import annotations

from audit import digests
from tables.simulator.config import SimConfig
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink
from tests.package.conftest import DAY, NEXT_DAY, audit, export


def test_a_later_package_proves_it_grew_from_the_earlier_one(record, tmp_path) -> None:
    first = tmp_path / "first.zip"
    assert export("--day", DAY, "--out", str(first))[0] == 0
    more = SimConfig(tables=1, rounds=2, days=1, seed="more", seats=1, prefix="BX-", gaming_day=None)
    simulate(more, StoreSink(more))
    digests.digest_sign()
    second = tmp_path / "second.zip"
    code, said = export("--day", NEXT_DAY, "--out", str(second), "--previous", str(first))
    assert code == 0, said
    code, said = audit("verify", str(second), "--previous", str(first))
    assert code == 0, said
    assert "the previous package's" in said  # its keys are the ones trusted
    # a package made without --previous proves nothing about the earlier one
    third = tmp_path / "third.zip"
    assert export("--day", NEXT_DAY, "--out", str(third))[0] == 0
    code, said = audit("verify", str(third), "--previous", str(first))
    assert code == 1 and "[previous]" in said, said

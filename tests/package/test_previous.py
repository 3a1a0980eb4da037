"""--previous: a package proves that its record grew from an earlier package's head."""

from __future__ import annotations

from audit.integrity import digests
from tables.simulator.config import SimConfig
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink
from tests.package.conftest import DAY, NEXT_DAY, audit, export


def test_a_later_package_proves_it_grew_from_the_earlier_one(record, tmp_path) -> None:
    first = tmp_path / "first.zip"
    assert export("--day", DAY, "--out", str(first))[0] == 0
    more = SimConfig(
        tables=1, rounds=2, days=1, seed="more", seats=1, prefix="BX-", gaming_day=None
    )
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


def test_a_previous_package_of_the_first_leaf_format_is_refused_at_export(record, tmp_path) -> None:
    """--previous with a package signed over leaves of format 1 (before the leaf held the
    seal): no consistency proof joins the two trees, so the exporter refuses it, saying so."""
    from tests.package.test_format_fixture import FIXTURE_V3

    code, said = export(
        "--day", DAY, "--out", str(tmp_path / "p.zip"), "--previous", str(FIXTURE_V3)
    )
    assert code == 2
    assert "its head's tree has leaves of format 1, this record's now format 2" in said, said
    assert not (tmp_path / "p.zip").exists()


def test_a_package_after_a_head_of_the_first_leaf_format_signs_one_of_the_new(
    record, tmp_path
) -> None:
    """The latest stored head of the old format covers the period, but its tree is not the
    one proofs are made from: a head of the new format is signed, and the package lists only
    heads of that format; it verifies."""
    from audit.models import Event
    from tests.audit.test_leaf_formats import _format_one_head

    old = _format_one_head()
    assert digests.latest_signed() == old
    out = tmp_path / "after.zip"
    code, said = export("--day", DAY, "--out", str(out))
    assert code == 0, said
    assert digests.latest_signed().leaf_format == 2
    assert Event.objects.filter(stream=digests.DIGEST_STREAM).count() == 3
    code, said = audit("verify", str(out))
    assert code == 0 and "all agree" in said, said
    import json
    import zipfile

    with zipfile.ZipFile(out) as package:
        heads = json.loads(package.read("manifest.json"))["signed_heads"]
    assert {head.get("leaf_format") for head in heads} == {2}

"""A package exported from the store verifies offline, exit 0, with Django blocked too;
two exports of the same record are byte-identical."""

from __future__ import annotations

import json

from auditor import layout
from tests.package.conftest import DAY, audit, export


def test_an_exported_package_verifies(exported) -> None:
    """Export, then ``blackjack-audit verify``: exit 0 and every table, event and round
    accounted for in the summary."""
    out = exported()
    manifest = json.loads((out / "manifest.json").read_text())
    code, said = audit("verify", str(out))
    assert code == 0, said
    assert "all agree" in said
    assert f"events: {manifest['events']:,}" in said
    assert sorted(manifest["streams"]) == ["BJ-01", "BJ-02", "BJ-03"]
    for stream in manifest["streams"].values():
        assert stream["gaming_days"] == [DAY]
        assert stream["first_version"] == 1


def test_it_verifies_where_django_cannot_be_imported(exported) -> None:
    """The auditor needs no Django: the same package verifies with Django blocked."""
    code, said = audit("verify", str(exported("zipped.zip")), blocked=True)
    assert code == 0, said


def test_two_exports_are_byte_identical(exported, tmp_path) -> None:
    """The same record and period give the same bytes, folder and zip alike."""
    first, second = exported("a.zip"), exported("b.zip")
    assert first.read_bytes() == second.read_bytes()
    folder_a, folder_b = exported("a"), exported("b")
    names = layout.Package(folder_a).names()
    assert names == layout.Package(folder_b).names()
    for name in names:
        assert (folder_a / name).read_bytes() == (folder_b / name).read_bytes(), name


def test_the_second_day_starts_mid_stream(record, tmp_path) -> None:
    """A later day's package starts after the day before: its chain starts from the hash
    the manifest names and it verifies."""
    out = tmp_path / "day2"
    code, said = export("--day", "2026-11-30", "--out", str(out))
    assert code == 0, said
    manifest = json.loads((out / "manifest.json").read_text())
    assert all(s["first_version"] > 1 for s in manifest["streams"].values())
    code, said = audit("verify", str(out))
    assert code == 0, said

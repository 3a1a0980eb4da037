"""Bad input to export_package is exit 2 with one line saying what, and writes nothing
(no package, no half-written temporary folder)."""
from __future__ import annotations

import pytest

from tests.package.conftest import DAY, audit, export


def _listing(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.mark.parametrize(("args", "says"), [
    (["--table", "NO-SUCH"], "--table NO-SUCH: the store has no table with that code"),
    (["--table", "audit.digests"], "--table audit.digests: the store has no table with that code"),
    (["--day", "2026-12-25"], "no table was open in gaming day 2026-12-25"),
    (["--day", DAY, "--to", "2026-11-01"], "--to 2026-11-01 is before --day 2026-11-29"),
])
def test_bad_input_writes_nothing(record, tmp_path, args, says) -> None:
    out = tmp_path / "package.zip"
    full = ["--day", DAY, *args] if "--day" not in args else args
    code, said = export(*full, "--out", str(out))
    assert code == 2 and says in said, said
    assert _listing(tmp_path) == []


def test_an_existing_out_needs_force(record, tmp_path) -> None:
    out = tmp_path / "package"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    code, said = export("--day", DAY, "--out", str(out))
    assert code == 2 and "exists already (add --force to replace it)" in said
    assert _listing(tmp_path) == ["package", "package/mine.txt"]
    code, said = export("--day", DAY, "--out", str(out), "--force")
    assert code == 0, said
    assert not (out / "mine.txt").exists() and (out / "manifest.json").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["package"]


def test_an_out_in_a_missing_folder_is_refused(record, tmp_path) -> None:
    code, said = export("--day", DAY, "--out", str(tmp_path / "nowhere" / "p.zip"))
    assert code == 2 and "does not exist" in said
    assert _listing(tmp_path) == []


def test_the_auditor_says_exit_2_for_what_is_not_a_package(tmp_path) -> None:
    """Not there, not a zip, a folder without a manifest: exit 2, one line."""
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    (tmp_path / "empty").mkdir()
    for target, says in ((tmp_path / "missing", "no such file or folder"), (tmp_path / "junk.zip", "neither a package"),
                         (tmp_path / "empty", "no manifest.json")):
        code, said = audit("verify", str(target))
        assert code == 2 and says in said, said
        assert "Traceback" not in said


def test_a_malformed_manifest_is_exit_2_without_a_traceback(exported) -> None:
    """A manifest whose table entry lost a member cannot be followed: exit 2, one line."""
    from tests.package.tampering import manifest, write_manifest

    package = exported()
    data = manifest(package)
    del data["streams"]["BJ-02"]["file"]
    write_manifest(package, data)
    code, said = audit("verify", str(package))
    assert code == 2 and "manifest.json is malformed (KeyError: 'file')" in said, said
    assert "Traceback" not in said

"""Bad input to export_package is exit 2 with one line saying what, and writes nothing
(no package, no half-written temporary folder)."""

from __future__ import annotations

import pytest

from tests.package.conftest import DAY, audit, export


def _listing(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--table", "NO-SUCH"], "--table NO-SUCH: the store has no table with that code"),
        (
            ["--table", "audit.digests"],
            "--table audit.digests: the store has no table with that code",
        ),
        (["--day", "2026-12-25"], "no table was open in gaming day 2026-12-25"),
        (["--day", DAY, "--to", "2026-11-01"], "--to 2026-11-01 is before --day 2026-11-29"),
    ],
)
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
    for target, says in (
        (tmp_path / "missing", "no such file or folder"),
        (tmp_path / "junk.zip", "neither a package"),
        (tmp_path / "empty", "no manifest.json"),
    ):
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
    assert (
        code == 2
        and 'manifest.json is malformed: Object missing required field `file` - at `streams["BJ-02"]`'
        in said
    ), said
    assert "Traceback" not in said


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: m.pop("files"), "Object missing required field `files` - at `manifest`"),
        (
            lambda m: m.update(signed_heads={}),
            "Expected `array`, got `object` - at `manifest.signed_heads`",
        ),
        (
            lambda m: m["streams"]["BJ-01"].update(first_version="1"),
            'Expected `int`, got `str` - at `streams["BJ-01"].first_version`',
        ),
        (
            lambda m: m["files"][next(iter(m["files"]))].pop("sha256"),
            "Object missing required field `sha256`",
        ),
        (
            lambda m: next(iter(m["rule_sets"].values())).update(ruleset=7),
            "Expected `str`, got `int`",
        ),
    ],
)
def test_a_manifest_member_of_the_wrong_shape_is_named_and_exit_2(exported, change, says) -> None:
    """Each member the auditor reads is checked when the manifest is read: the one that
    is missing or of another shape is named, whichever it is, in one line."""
    from tests.package.tampering import manifest, write_manifest

    package = exported()
    data = manifest(package)
    change(data)
    write_manifest(package, data)
    code, said = audit("verify", str(package))
    assert code == 2 and "manifest.json is malformed: " in said and says in said, said
    assert "Traceback" not in said and len(said.strip().splitlines()) == 1


def test_the_auditor_failing_itself_is_exit_3_and_not_blamed_on_the_package(
    monkeypatch, capsys, tmp_path
) -> None:
    """A fault of the auditor (here, one raised where it checks) is neither a finding (1)
    nor the package's fault (2): exit 3, one line naming the error and where it was."""
    from auditor import cli

    def broken(*args, **kwargs):
        raise KeyError("a member the code expected")

    monkeypatch.setattr(cli, "verify_package", broken)
    code = cli.main(["verify", str(tmp_path / "p.zip")])
    said = capsys.readouterr().err
    assert code == cli.INTERNAL_ERROR == 3
    assert (
        "internal error while checking" in said and "KeyError: 'a member the code expected'" in said
    )
    assert (
        "test_bad_input.py:" in said
        and "not a finding about the package" in said
        and "malformed" not in said
    )

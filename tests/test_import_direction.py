"""Imports point one way: casino -> regulator -> the offline auditor -> tables, ledger (side
by side, neither importing the other) -> audit -> audit.record; the pure cores import no
Django.
The contracts are import-linter's, in pyproject.toml ([tool.importlinter]), over every
import the code makes - relative ones and those inside a function too - and CI runs them
(``lint-imports``). Here they run as CI runs them, and on a small package of our own, to
show that an upward import made inside a function, relatively, is caught."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
LINT_IMPORTS = pathlib.Path(sys.executable).with_name("lint-imports")


def lint(folder: pathlib.Path, *config: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-logo", "--no-cache", *config],
        check=False,
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_projects_contracts_are_kept() -> None:
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout
    # the contracts the docs name are the ones checked
    for contract in ("Imports point one way", "The pure cores import no Django"):
        assert contract in done.stdout


def test_an_upward_import_inside_a_function_is_caught(tmp_path: pathlib.Path) -> None:
    """``house.audit`` sits below ``house.casino``: a relative import of casino made inside
    one of audit's functions breaks the contract, and lint-imports names the line."""
    for package in ("house", "house/casino", "house/audit"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "house/casino/app.py").write_text("from ..audit import store\n")
    (tmp_path / "house/audit/store.py").write_text(
        "def late():\n    from ..casino import app\n    return app\n"
    )
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_package = house\n\n[importlinter:contract:layers]\nname = layers\n"
        "type = layers\ncontainers = house\nlayers =\n    casino\n    audit\n"
    )
    done = lint(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "house.audit.store -> house.casino.app (l.2)" in done.stdout

"""Imports point one way: casino -> tables, ledger -> audit -> audit.record. No module of
audit imports tables, ledger or casino; no module of tables imports casino or ledger; no
module of ledger imports tables or casino (what it needs of the game comes through the
provider the project registers: ledger/game.py). Checked on the source, as
tests/test_pure.py does for the pure packages."""
from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# each app, and the apps of this project it must never import
# (the offline auditor, ``auditor``, stands above the engine and the books: only casino uses it)
FORBIDDEN = {"audit": ("tables", "ledger", "casino", "auditor"), "tables": ("casino", "ledger", "auditor"),
             "ledger": ("tables", "casino", "auditor")}


def imported(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line, module) of every import statement in a file, at any depth (a function's
    import counts as much as the module's)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("app", sorted(FORBIDDEN))
def test_an_app_imports_nothing_above_it(app: str) -> None:
    """Every module of the app (migrations aside: they name other apps' models by
    label, and are history) imports only itself, the apps below it and libraries."""
    wrong = []
    for path in sorted((ROOT / app).rglob("*.py")):
        if "migrations" in path.relative_to(ROOT).parts:
            continue
        for line, module in imported(path):
            if module.split(".")[0] in FORBIDDEN[app]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_an_upward_import(tmp_path: pathlib.Path) -> None:
    """A function-level ``from casino.celery import app`` is found like a top-level one."""
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from casino.celery import app\n    import tables.models\n")
    assert imported(module) == [(2, "casino.celery"), (3, "tables.models")]

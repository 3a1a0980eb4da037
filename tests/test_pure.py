"""The pure packages - the record core (``audit.record``), the rules engine
(``tables.engine``), the analytics (``tables.analytics``), the ledger's books
(``ledger.books``) and the regulator's offline auditor (``auditor``) - import nothing
from Django. The analytics' Django shell (its reports, charts, views and API) lives in
the same package beside the pure modules, which never import it."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
# the Django modules a pure package holds beside its pure ones (its shell), which no pure
# module of it imports
SHELL = {"tables.analytics": ("api", "charts", "reports", "views")}
# each pure package, and the packages its modules may import from this project
PURE = {
    "tables.engine": ("tables.engine", "audit.record"),
    "tables.analytics": ("tables.analytics", "tables.engine", "audit.record"),
    "audit.record": ("audit.record",),
    "ledger.books": ("ledger.books", "audit.record"),
    # the regulator's offline auditor: above the three pure packages, pure itself
    "auditor": ("auditor", "tables.engine", "ledger.books", "audit.record"),
}


@pytest.mark.parametrize("package", sorted(PURE))
def test_imports_without_django(package: str) -> None:
    """Every module of the package (its Django shell aside) imports in a fresh interpreter
    where Django cannot be imported."""
    shell = sorted(f"{package}.{name}" for name in SHELL.get(package, ()))
    code = (
        "import sys, pkgutil, importlib\n"
        "sys.modules['django'] = None\n"  # any 'import django...' now raises ImportError
        "sys.modules['rest_framework'] = None\n"
        f"import {package} as p\n"
        f"for m in pkgutil.walk_packages(p.__path__, '{package}.'):\n"
        f"    if m.name not in {shell!r}:\n"
        "        importlib.import_module(m.name)\n"
        "assert not any(n == 'django' or n.startswith('django.') for n in sys.modules if sys.modules[n] is not None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("package", sorted(PURE))
def test_imports_point_down_only(package: str) -> None:
    """No module of the package (its Django shell aside) has an import statement naming
    django, rest_framework, a part of this project above it (the engine may import the
    record core; the record core only itself) or a module of the package's shell."""
    allowed = PURE[package]
    folder = ROOT.joinpath(*package.split("."))
    shell = SHELL.get(package, ())
    shell_modules = tuple(f"{package}.{name}" for name in shell)
    for path in folder.rglob("*.py"):
        if path.parent == folder and path.stem in shell:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if isinstance(node, ast.ImportFrom) and node.level == 1 and path.parent == folder:
                # from . import reports, from .reports import ...: the package's own modules
                here = [node.module] if node.module else [alias.name for alias in node.names]
                names += [f"{package}.{name}" for name in here]
            for name in names:
                if any(name == s or name.startswith(f"{s}.") for s in shell_modules):
                    raise AssertionError(f"{path} imports {name}, of the package's Django shell")
                top = name.split(".")[0]
                if top in {"django", "rest_framework"}:
                    raise AssertionError(f"{path} imports {name}")
                if top in {"casino", "regulator", "tables", "ledger", "audit"}:
                    assert name.startswith(allowed), f"{path} imports {name}"

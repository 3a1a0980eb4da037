"""The engine's docstring examples run (pokerkit keeps its doctests in CI, so do we)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

MODULES = ["cards", "hands", "money", "rules", "shoes"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    """Every example in the module's docstrings gives the output it shows."""
    module = _with_docstrings(importlib.import_module(f"tables.engine.{name}"))
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0


def _with_docstrings(module: ModuleType) -> ModuleType:
    """The module, or where it is compiled (tables/engine/compiled.py), its source loaded
    beside it: a compiled function keeps no docstring for doctest to find."""
    if str(module.__file__).endswith(".py"):
        return module
    # beside the package's own __init__ (never compiled): mypyc names a compiled module's
    # __file__ from its shared library's folder (docs/engine.md, The compiled build)
    package = importlib.import_module(module.__name__.rsplit(".", 1)[0])
    source = Path(str(package.__file__)).parent / f"{module.__name__.rsplit('.', 1)[1]}.py"
    spec = importlib.util.spec_from_file_location(f"{module.__name__}_source", source)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # dataclasses look their module up there
    try:
        spec.loader.exec_module(loaded)
    finally:
        del sys.modules[spec.name]
    return loaded

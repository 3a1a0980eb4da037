"""The engine's docstring examples run (pokerkit keeps its doctests in CI, so do we)."""
from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["cards", "hands", "money", "rules", "shoes"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    """Every example in the module's docstrings gives the output it shows."""
    module = importlib.import_module(f"tables.engine.{name}")
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0

"""The mathematics' docstring examples run."""

import doctest
import importlib

import pytest

MODULES = ["composition", "dealer", "deals", "strategy", "cashout", "overrides", "hands"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    """Every example in the module's docstrings gives the output it shows."""
    module = importlib.import_module(f"tables.engine.math.{name}")
    failed, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failed == 0

"""The map is true: every file or folder docs/architecture.md and the README's "What is
where" name (``path/`` or ``path/module.py``) exists, and every module the map names
(``audit.store.streams``) imports."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAPS = (ROOT / "docs" / "architecture.md", ROOT / "README.md")
PACKAGES = ("audit", "auditor", "tables", "ledger", "regulator", "casino")
# a path in backquotes, with at least one folder: `audit/store/`, `tables/engine/replay.py`
PATH = re.compile(r"`((?:[\w.-]+/)+(?:[\w.-]+\.py)?)`")
# a module in backquotes: `audit.store.streams`, `audit.feed.readmodels.ReadModel`
MODULE = re.compile(r"`((?:" + "|".join(PACKAGES) + r")(?:\.\w+)+)`")


def _named(pattern: re.Pattern[str], *, first_cells: bool = True) -> list[tuple[str, str]]:
    named = []
    for path in MAPS:
        for line in path.read_text().splitlines():
            if not first_cells and line.startswith("| `"):
                # a table's first cell names a thing (a subscriber, a stream), not a place
                line = line.split("|", 2)[2]
            named += [(path.name, name) for name in pattern.findall(line)]
    return named


@pytest.mark.parametrize(("doc", "path"), _named(PATH))
def test_every_path_the_map_names_exists(doc: str, path: str) -> None:
    assert (ROOT / path).exists(), f"{doc} names {path}, which is not in the repository"


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


@pytest.mark.parametrize(("doc", "module"), _named(MODULE, first_cells=False))
def test_every_module_the_map_names_imports(doc: str, module: str) -> None:
    assert _resolves(module), f"{doc} names {module}, which does not import"

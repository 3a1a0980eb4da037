"""Which of the engine's two builds runs: its pure-Python sources, or the compiled build
of the replay's hot modules (mypyc) made beside them.

The engine's sources are the reference and always installed. Where a C compiler is
present, installing the project (``pip install -e .`` or ``pip install .``: the project's
``setup.py``) also compiles :data:`MODULES` (``mypy --strict`` clean, so they compile
unchanged) into extension modules next to their sources, which Python then imports in
their place (about 1.3-1.5x the replay's rounds/s: docs/engine.md, Benchmark). Without a
compiler, or where mypyc fails, the install goes on and the engine runs its sources; by
hand, :mod:`.compiled` builds, checks and cleans.

An extension module shadows its source, so a build left behind after a source changed
would run old code: each build records its sources' SHA-256 (:data:`STAMP`), and when the
package is imported (:func:`guard`) a build whose any source no longer matches is not
run at all - every module of it loads from its source, with a warning saying so (the
modules of one build call each other's compiled code directly, so a build is run whole
or not at all). ``BLACKJACK_ENGINE=pure`` in the environment asks for the sources too,
without a warning (a test run of the reference, or a suspicion to rule out).
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

# the modules the replay spends its time in (and those they call per event)
MODULES = ("table_round", "replay", "cards", "money", "shoes", "findings")
PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent.parent  # the checkout, where a build by hand (.compiled) runs setup.py
STAMP = "compiled.json"
# the environment variable that chooses the build ("pure": the sources, wherever a build is)
ENV = "BLACKJACK_ENGINE"
# mypyc's shared library of the build, inside the package (tables/engine/native__mypyc.*.so):
# the compiled modules import it by this name, so it must be importable wherever the
# engine is - not only from the checkout's top level, where mypyc's own command puts it
# (a console script such as blackjack-audit or celery has no checkout on its path). mypyc
# names a compiled module's __file__ from its shared library's folder as if that were the
# checkout's top level (tables/engine/tables/engine/cards...so for a module the build's
# code imported first): read a source through the package's folder, not a module's __file__
GROUP = f"{__package__}.native"
SHARED = "__mypyc"
# longest first: ".cpython-311-x86_64-linux-gnu.so" before ".so"
SUFFIXES = tuple(sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extensions(package: Path = PACKAGE) -> dict[str, Path]:
    """The compiled modules present in ``package``, by module name."""
    found: dict[str, Path] = {}
    for path in package.iterdir():
        for suffix in SUFFIXES:
            if path.name.endswith(suffix):
                name = path.name[: -len(suffix)]
                if not name.endswith(SHARED):  # the build's shared library: no module of its own
                    found[name] = path
                break
    return found


def stale(package: Path = PACKAGE) -> list[str]:
    """The compiled modules in ``package`` whose source changed since the build (or
    that no build recorded): each would shadow its source with old code. Where there is
    a build, a module of :data:`MODULES` it lacks is named too (a build is run whole)."""
    stamp = package / STAMP
    recorded: dict[str, str] = json.loads(stamp.read_text()) if stamp.exists() else {}
    built = extensions(package)
    out = []
    for name in sorted({*built, *MODULES}) if built else ():
        source = package / f"{name}.py"
        if name not in built or not source.exists() or recorded.get(name) != _digest(source):
            out.append(name)
    return out


def stamp(package: Path, sources: Path = PACKAGE) -> None:
    """Record, in ``package``, the SHA-256 of each compiled module's source as built."""
    (package / STAMP).write_text(json.dumps({name: _digest(sources / f"{name}.py") for name in MODULES}, indent=1) + "\n")


class _Sources(importlib.abc.MetaPathFinder):
    """Finds :data:`MODULES` at their sources, ahead of the extension modules beside them."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != __package__ or name not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, PACKAGE / f"{name}.py")


def guard() -> None:
    """At the package's import: where a build is present but may not run (stale, or
    ``BLACKJACK_ENGINE=pure``), every one of its modules loads from its source."""
    if not extensions():
        return
    if os.environ.get(ENV) == "pure":
        sys.meta_path.insert(0, _Sources())
        return
    names = stale()
    if names:
        sys.meta_path.insert(0, _Sources())
        warnings.warn(f"the engine runs its pure-Python sources: its compiled build is stale ({', '.join(names)} "
                      f"changed since it was built): rebuild with python -m {__package__}.compiled build, or clean",
                      RuntimeWarning, stacklevel=3)


def active() -> bool:
    """Does the replay run compiled code (is its module the extension)?"""
    module = importlib.import_module(f"{__package__}.replay")
    return str(getattr(module, "__file__", "")).endswith(SUFFIXES)




def described() -> str:
    """Which build runs, for a benchmark's figures: "compiled (mypyc)" or "pure Python"."""
    return "compiled (mypyc)" if active() else "pure Python"

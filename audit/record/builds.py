"""Which build of a pure package runs: its Python sources, or the compiled build of its
hot modules (mypyc) made beside them.

The sources are the reference and always installed. Where a C compiler is present,
installing the project (``pip install -e .`` or ``pip install .``: the project's
``setup.py``) also compiles the modules :data:`COMPILED` names (``mypy --strict`` clean,
so they compile unchanged) into extension modules next to their sources, which Python
then imports in their place: the engine's replay, and what a regulator's auditor runs
per event besides it - the record core's chain verifier, id set and shelf, the ledger's
fold and journal, the auditor's reports (about a tenth less CPU for a verification:
docs/performance.md). Without a compiler, or where mypyc fails, the install goes on and
every package runs its sources; by hand, :mod:`tables.engine.compiled` builds, checks
and cleans.

Each package's build is compiled on its own (its own mypyc shared library,
``<package>/native__mypyc``): the modules of one build call each other's compiled code
directly, so a build is run whole or not at all; one package's build calls another's
as Python code does, so each can fall back to its sources alone.

An extension module shadows its source, so a build left behind after a source changed
would run old code: each build records its sources' SHA-256 (:data:`STAMP`, in the
package), and when the package is imported (:func:`guard`) a build whose any source no
longer matches - or that lacks a module its record names - is not run at all: every
module of it loads from its source, with a warning saying so. ``BLACKJACK_ENGINE=pure``
in the environment asks for the sources of every build, without a warning (a test run of
the reference, or a suspicion to rule out).

The list of builds is here, at the bottom of the imports, because the project's
``setup.py`` reads it (as does the build by hand) without importing the packages above:
it names them, it imports none of them. Standard library only.
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
from collections.abc import Iterable, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

# each package's compiled modules: the replay's hot modules (and those they call per
# event), and the auditor's per-event work beside the replay
COMPILED: dict[str, tuple[str, ...]] = {
    "tables.engine": ("table_round", "replay", "cards", "money", "shoes", "findings"),
    "audit.record": ("verify", "ids", "shelf"),
    "ledger.books": ("fold", "journal"),
    "auditor": ("reports",),
}
# the folder that holds the packages: the checkout, or site-packages for a wheel
ROOT = Path(__file__).resolve().parents[2]
STAMP = "compiled.json"
# the environment variable that chooses the build ("pure": the sources, wherever a build is)
ENV = "BLACKJACK_ENGINE"
# mypyc's shared library of a build, inside its package (<package>/native__mypyc.*.so):
# the compiled modules import it by this name, so it must be importable wherever the
# package is - not only from the checkout's top level, where mypyc's own command puts it
# (a console script such as blackjack-audit or celery has no checkout on its path). mypyc
# names a compiled module's __file__ from its shared library's folder as if that were the
# checkout's top level (tables/engine/tables/engine/cards...so for a module the build's
# code imported first): read a source through the package's folder, not a module's __file__
SHARED = "__mypyc"
# longest first: ".cpython-311-x86_64-linux-gnu.so" before ".so"
SUFFIXES = tuple(sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True))


def folder(package: str) -> Path:
    """Where ``package``'s sources (and its build) are."""
    return ROOT.joinpath(*package.split("."))


def group(package: str) -> str:
    """The name of ``package``'s build (mypyc's group: its shared library's module)."""
    return f"{package}.native"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extensions(where: Path) -> dict[str, Path]:
    """The compiled modules present in the package folder ``where``, by module name."""
    found: dict[str, Path] = {}
    for path in where.iterdir():
        for suffix in SUFFIXES:
            if path.name.endswith(suffix):
                name = path.name[: -len(suffix)]
                if not name.endswith(SHARED):  # the build's shared library: no module of its own
                    found[name] = path
                break
    return found


def _recorded(where: Path) -> dict[str, str]:
    stamp = where / STAMP
    return json.loads(stamp.read_text()) if stamp.exists() else {}


def stale(where: Path, modules: Iterable[str] = ()) -> list[str]:
    """The compiled modules in the package folder ``where`` whose source changed since the
    build (or that no build recorded): each would shadow its source with old code. Where
    there is a build, a module it lacks - of those its record names, or of ``modules`` -
    is named too (a build is run whole)."""
    recorded = _recorded(where)
    built = extensions(where)
    out = []
    for name in sorted({*built, *recorded, *modules}) if built else ():
        source = where / f"{name}.py"
        if name not in built or not source.exists() or recorded.get(name) != _digest(source):
            out.append(name)
    return out


def stamp(where: Path, modules: Sequence[str], sources: Path | None = None) -> None:
    """Record, in ``where``, the SHA-256 of each compiled module's source (in ``sources``,
    by default ``where`` itself) as built."""
    sources = where if sources is None else sources
    (where / STAMP).write_text(json.dumps({name: _digest(sources / f"{name}.py") for name in modules}, indent=1) + "\n")


class _Sources(importlib.abc.MetaPathFinder):
    """Finds a build's modules at their sources, ahead of the extension modules beside them."""

    def __init__(self, package: str, where: Path, names: Iterable[str]) -> None:
        self.package = package
        self.where = where
        self.names = frozenset(names)

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        package, _, name = fullname.rpartition(".")
        if package != self.package or name not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, self.where / f"{name}.py")


def guard(package: str, where: Path) -> None:
    """At ``package``'s import: where a build is present but may not run (stale, or
    ``BLACKJACK_ENGINE=pure``), every one of its modules loads from its source.
    ``where``: the package's own folder, from its ``__file__`` (not :func:`folder`: a
    copy of the package elsewhere on the path guards its own build)."""
    built = extensions(where)
    if not built:
        return
    names = {*built, *_recorded(where)}
    if os.environ.get(ENV) == "pure":
        sys.meta_path.insert(0, _Sources(package, where, names))
        return
    changed = stale(where, COMPILED.get(package, ()))
    if changed:
        sys.meta_path.insert(0, _Sources(package, where, names))
        warnings.warn(f"{package} runs its pure-Python sources: its compiled build is stale ({', '.join(changed)} "
                      "changed since it was built): rebuild with python -m tables.engine.compiled build, or clean",
                      RuntimeWarning, stacklevel=3)


def active(module: str) -> bool:
    """Does ``module`` (a full name) run compiled code (is it the extension)?"""
    return str(getattr(importlib.import_module(module), "__file__", "")).endswith(SUFFIXES)


def described() -> str:
    """Which builds run, for a benchmark's figures: "compiled (mypyc)" where every
    package's build runs, "pure Python" where none does, else the compiled packages."""
    running = [package for package, modules in COMPILED.items() if active(f"{package}.{modules[0]}")]
    if len(running) == len(COMPILED):
        return "compiled (mypyc)"
    return f"compiled (mypyc): {', '.join(running)}" if running else "pure Python"

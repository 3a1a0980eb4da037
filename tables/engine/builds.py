"""Which of the engine's two builds runs: its pure-Python sources, or the compiled build
of the replay's hot modules (mypyc) made beside them. The engine's side of the project's
compiled builds (:mod:`audit.record.builds`, where every package's build is listed and
guarded the same way: the record core's, the ledger's and the auditor's too).

Where a C compiler is present, installing the project compiles :data:`MODULES` (about
1.3-1.5x the replay's rounds/s: docs/engine.md, Benchmark); a build whose any source
changed since is not run (:func:`guard`); ``BLACKJACK_ENGINE=pure`` asks for the sources.
By hand, :mod:`.compiled` builds, checks and cleans.
"""
from __future__ import annotations

from pathlib import Path

from audit.record import builds as _builds
from audit.record.builds import ENV, SHARED, STAMP, SUFFIXES

# the modules the replay spends its time in (and those they call per event)
MODULES = _builds.COMPILED[__package__]
PACKAGE = Path(__file__).resolve().parent
ROOT = PACKAGE.parent.parent  # the checkout, where a build by hand (.compiled) runs setup.py


def extensions(package: Path = PACKAGE) -> dict[str, Path]:
    """The compiled modules present in ``package``, by module name."""
    return _builds.extensions(package)


def stale(package: Path = PACKAGE) -> list[str]:
    """The compiled modules in ``package`` whose source changed since the build (or
    that no build recorded); where there is a build, a module of :data:`MODULES` it lacks
    is named too (a build is run whole)."""
    return _builds.stale(package, MODULES)


def stamp(package: Path, sources: Path = PACKAGE) -> None:
    """Record, in ``package``, the SHA-256 of each compiled module's source as built."""
    _builds.stamp(package, MODULES, sources)


def guard() -> None:
    """At the package's import: where a build is present but may not run (stale, or
    ``BLACKJACK_ENGINE=pure``), every one of its modules loads from its source."""
    _builds.guard(__package__, PACKAGE)


def active() -> bool:
    """Does the replay run compiled code (is its module the extension)?"""
    return _builds.active(f"{__package__}.replay")


def described() -> str:
    """Which builds run, for a benchmark's figures (:func:`audit.record.builds.described`)."""
    return _builds.described()


__all__ = ["ENV", "MODULES", "PACKAGE", "ROOT", "SHARED", "STAMP", "SUFFIXES", "active", "described",
           "extensions", "guard", "stale", "stamp"]

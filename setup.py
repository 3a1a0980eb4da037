"""The project's build: pyproject.toml says what it is; this file adds the compiled
builds. Where a C compiler is present, the hot modules of the pure packages
(audit/record/builds.py, COMPILED: the engine's replay, the record core's verifier, id
set and shelf, the ledger's fold and journal, the auditor's reports) are compiled with
mypyc, each package's on its own, into extension modules that Python imports in their
sources' place - beside the sources in an editable install (``pip install -e .``), in
the wheel otherwise - with a record of the sources they were built from (a package
imports its build only while its sources match it). Without a compiler, or where mypyc
fails, the install goes on with pure Python and says why.

``BLACKJACK_ENGINE=compiled`` makes a failed build fail the install (``python -m
tables.engine.compiled build`` runs it so); ``BLACKJACK_ENGINE=pure`` chooses the sources
when the engine is imported, not at install (CI installs once and runs both).
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from audit.record import builds  # the checkout's, found through HERE
from tables.engine import compiled

# what the metadata steps run: they ready build_ext too (to list its files), never run it
_METADATA = frozenset(("egg_info", "dist_info", "sdist"))


class BuildEngine(build_ext):
    """build_ext of the packages' mypyc extension modules, made when the command is
    readied for a build (mypyc type-checks and writes C: not for the metadata steps)."""

    def finalize_options(self) -> None:
        self.built: list[str] = []  # the packages mypyc made a build of (engine())
        # mypyc's C, until the compiler has read it: inside the build folder, so that its
        # files are named by paths relative to here (a wheel's build refuses an absolute
        # one) and the compiler's objects stay under its build folder too
        (HERE / "build").mkdir(exist_ok=True)
        self.folder = tempfile.TemporaryDirectory(dir=HERE / "build", prefix="mypyc-")
        building = not set(self.distribution.commands) <= _METADATA
        self.distribution.ext_modules = self.engine() if building else []
        super().finalize_options()
        if self.parallel is None:  # the C files compiled side by side (mypyc writes one a module)
            self.parallel = os.cpu_count() or 1

    def engine(self) -> list[Extension]:
        """The packages' extension modules, or none, saying why. One mypyc build per
        package: a build's modules call each other natively, so each package's must be
        able to run, or fall back to its sources, without the others - and a package
        mypyc cannot build stays pure Python alone."""
        self.wanted = os.environ.get(builds.ENV)
        if compiled.compiler() is None:
            print("no C compiler found: every package stays pure Python")
            return []
        try:
            from mypyc.build import mypycify
        except ImportError as error:  # no mypyc
            return self.failed(error)
        os.chdir(HERE)  # mypyc names the modules by their paths from here
        made: list[Extension] = []
        for package, modules in builds.COMPILED.items():
            path = package.replace(".", "/")
            try:
                made += mypycify([f"{path}/{name}.py" for name in modules], opt_level="3",
                                 group_name=builds.group(package),
                                 target_dir=os.path.relpath(os.path.join(self.folder.name, path), HERE))
            except SystemExit as error:  # mypyc exits on a type error (mypy's messages above it)
                self.failed(error, package)
                continue
            self.built.append(package)
        return made

    def failed(self, error: BaseException, package: str | None = None) -> list[Extension]:
        if self.wanted == "compiled":
            raise error
        if package is None:
            print(f"every package stays pure Python: the compiled build failed ({error!r})", file=sys.stderr)
        else:
            print(f"{package} stays pure Python: its compiled build failed ({error!r})", file=sys.stderr)
        return []

    def run(self) -> None:
        if self.inplace:
            compiled.clean()  # an earlier build in the checkout, whatever this one makes
        if not self.extensions:
            return
        try:
            super().run()
        except (BaseError, CCompilerError) as error:  # the compiler's failure
            self.extensions = self.failed(error)
            if self.inplace:
                compiled.clean()
            return
        finally:
            self.folder.cleanup()
        for package in self.built:
            modules = builds.COMPILED[package]
            built = Path(self.build_lib).joinpath(*package.split("."))
            built.mkdir(parents=True, exist_ok=True)
            builds.stamp(built, modules, builds.folder(package))
            if self.inplace:
                builds.stamp(builds.folder(package), modules)
            print(f"compiled: {', '.join(f'{package}.{name}' for name in modules)}")


setup(
    # a placeholder, so that setuptools runs build_ext (which makes the real ones) and
    # tags the wheel for this platform
    ext_modules=[Extension(f"{builds.group('tables.engine')}__placeholder", sources=[])],
    cmdclass={"build_ext": BuildEngine},
)

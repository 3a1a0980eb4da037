"""The project's build: pyproject.toml says what it is; this file adds the rules engine's
compiled build. Where a C compiler is present, the engine's hot modules
(tables/engine/builds.py, MODULES) are compiled with mypyc into extension modules that
Python imports in their sources' place - beside the sources in an editable install
(``pip install -e .``), in the wheel otherwise - with a record of the sources they were
built from (the package imports a build only while its sources match it). Without a
compiler, or where mypyc fails, the install goes on with pure Python and says why.

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

from tables.engine import builds, compiled  # the checkout's, found through HERE

# what the metadata steps run: they ready build_ext too (to list its files), never run it
_METADATA = frozenset(("egg_info", "dist_info", "sdist"))


class BuildEngine(build_ext):
    """build_ext of the engine's mypyc extension modules, made when the command is
    readied for a build (mypyc type-checks and writes C: not for the metadata steps)."""

    def finalize_options(self) -> None:
        self.folder = tempfile.TemporaryDirectory()  # mypyc's C, until the compiler has read it
        building = not set(self.distribution.commands) <= _METADATA
        self.distribution.ext_modules = self.engine() if building else []
        super().finalize_options()
        if self.parallel is None:  # the C files compiled side by side (mypyc writes one a module)
            self.parallel = os.cpu_count() or 1

    def engine(self) -> list[Extension]:
        """The engine's extension modules, or none, saying why."""
        self.wanted = os.environ.get(builds.ENV)
        if compiled.compiler() is None:
            print("no C compiler found: the engine stays pure Python")
            return []
        try:
            from mypyc.build import mypycify

            os.chdir(HERE)  # mypyc names the modules by their paths from here
            return list(mypycify([f"tables/engine/{name}.py" for name in builds.MODULES], opt_level="3",
                                 group_name=builds.GROUP, target_dir=self.folder.name))
        except (ImportError, SystemExit) as error:  # no mypyc, or it exits on a type error
            return self.failed(error)

    def failed(self, error: BaseException) -> list[Extension]:
        if self.wanted == "compiled":
            raise error
        print(f"the engine stays pure Python: its compiled build failed ({error!r})", file=sys.stderr)
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
        package = Path(self.build_lib) / "tables" / "engine"
        package.mkdir(parents=True, exist_ok=True)
        builds.stamp(package, HERE / "tables" / "engine")
        if self.inplace:
            builds.stamp(builds.PACKAGE)
        print(f"compiled: {', '.join(builds.MODULES)}")


setup(
    # a placeholder, so that setuptools runs build_ext (which makes the real ones) and
    # tags the wheel for this platform
    ext_modules=[Extension(f"{builds.GROUP}__placeholder", sources=[])],
    cmdclass={"build_ext": BuildEngine},
)

"""The rules engine's compiled build (tables/engine/compiled.py makes it; the guard in
tables/engine/__init__.py runs it; pyproject.toml lists its modules): made by hand, run
only while it is current, whole or not at all."""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tables.engine import compiled

ROOT = Path(__file__).resolve().parents[1]
SUFFIX = compiled.SUFFIXES[0]  # this Python's own: ".cpython-311-x86_64-linux-gnu.so"
current = bool(compiled.extensions(compiled.BUILD)) and not compiled.stale()
built = pytest.mark.skipif(
    not current,
    reason="no current compiled build in this checkout "
    "(python -m tables.engine.compiled build makes one)",
)


def _env(**extra: str) -> dict[str, str]:
    """A child's environment without this run's choice of build."""
    return {
        **{key: value for key, value in os.environ.items() if key != "BLACKJACK_ENGINE"},
        **extra,
    }


def _engine(cwd: Path, env: dict[str, str]) -> tuple[bool, str, str]:
    """Import the engine in a child: whether it runs compiled, its replay's file, stderr."""
    program = (
        "from tables.engine import cards, compiled, replay; "
        "assert cards.VALUE['TS'] == 10; print(compiled.active(), replay.__file__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    active, path = done.stdout.split()
    return active == "True", path, done.stderr


def test_the_engine_runs_compiled_exactly_where_a_current_build_is_and_pure_is_not_asked() -> None:
    expected = current and os.environ.get("BLACKJACK_ENGINE") != "pure"
    assert compiled.active() == expected
    for name in compiled.listed():
        module = importlib.import_module(f"tables.engine.{name}")
        assert str(module.__file__).endswith(SUFFIX) == expected, module.__file__


def test_stale_names_every_reason_a_build_may_not_run(tmp_path: Path) -> None:
    sources, build = tmp_path / "engine", tmp_path / "engine" / "_compiled"
    assert compiled.stale(build, sources) == []  # no build: nothing to refuse
    build.mkdir(parents=True)
    for name in ("a", "b"):
        (sources / f"{name}.py").write_text(f"# {name}\n")
    for name in ("a", "b", "native__mypyc"):
        (build / f"{name}{SUFFIX}").write_bytes(b"")
    (build / "stamp.json").write_text(
        json.dumps(
            {name: hashlib.sha256(f"# {name}\n".encode()).hexdigest() for name in ("a", "b")}
        )
    )
    assert compiled.stale(build, sources) == []
    (sources / "a.py").write_text("# a, edited after the build\n")
    assert compiled.stale(build, sources) == ["a"]
    (build / f"b{SUFFIX}").unlink()  # a module its record names, not built (or not for this Python)
    assert compiled.stale(build, sources) == ["a", "b"]
    (build / f"c{SUFFIX}").write_bytes(b"")  # one it holds but never recorded
    (build / f"native__mypyc{SUFFIX}").unlink()  # its shared library gone
    assert compiled.stale(build, sources) == ["a", "b", "c", "native__mypyc"]
    (build / "stamp.json").unlink()  # a build nobody recorded
    assert compiled.stale(build, sources) == ["a", "c", "native__mypyc"]


def test_the_list_is_pyprojects_and_names_the_engines_modules_only(tmp_path: Path) -> None:
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["blackjack"]["compiled"]
    assert compiled.listed() == [name.removeprefix("tables.engine.") for name in listed]
    assert "replay" in compiled.listed()
    wrong = tmp_path / "pyproject.toml"
    wrong.write_text(
        '[tool.blackjack]\ncompiled = ["tables.engine.replay", "audit.record.verify"]\n'
    )
    with pytest.raises(
        ValueError, match=r"compiled: audit\.record\.verify is not a module of tables\.engine"
    ):
        compiled.listed(wrong)
    wrong.write_text('[tool.blackjack]\ncompiled = "tables.engine.replay"\n')
    with pytest.raises(ValueError, match="must be a list of module names"):
        compiled.listed(wrong)


@built
def test_the_build_is_of_the_listed_modules_with_their_sources_digests() -> None:
    recorded = json.loads((compiled.BUILD / "stamp.json").read_text())
    assert sorted(recorded) == sorted(compiled.listed())
    for name, digest in recorded.items():
        assert digest == hashlib.sha256((compiled.PACKAGE / f"{name}.py").read_bytes()).hexdigest()
    assert sorted(compiled.extensions(compiled.BUILD)) == sorted(
        [*compiled.listed(), compiled.SHARED]
    )
    assert not compiled.extensions(compiled.PACKAGE)  # nothing beside the sources to shadow them


def test_the_engine_imports_where_the_checkout_is_not_on_the_path(tmp_path: Path) -> None:
    """As a console script (blackjack-audit, celery) runs it: the working directory and
    the script's folder elsewhere. The compiled modules import their shared library by
    name, so it must lie in the package's path, not at the checkout's top level."""
    active, path, _ = _engine(tmp_path, _env(PATH="/usr/bin:/bin"))
    assert active == current
    assert path.endswith(SUFFIX) == active


@built
def test_pure_asked_runs_the_sources_without_a_word(tmp_path: Path) -> None:
    active, path, stderr = _engine(tmp_path, _env(BLACKJACK_ENGINE="pure"))
    assert not active and path == str(compiled.PACKAGE / "replay.py")
    assert "stale" not in stderr


@built
def test_a_stale_build_is_never_run_its_sources_are(tmp_path: Path) -> None:
    """A copy of the package with its build, ahead of the checkout on the path: as built,
    it runs compiled; with one source edited after the build, every module loads from its
    source (the build runs whole or not at all), and a warning names the edited one."""
    copy = tmp_path / "tables" / "engine"
    copy.parent.mkdir()
    shutil.copy(ROOT / "tables" / "__init__.py", copy.parent / "__init__.py")
    shutil.copytree(compiled.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    env = _env(PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    active, path, stderr = _engine(tmp_path, env)
    assert active and path.startswith(str(copy / "_compiled")), (path, stderr)
    with (copy / "shoes.py").open("a") as source:
        source.write("\n# edited after the build\n")
    active, path, stderr = _engine(tmp_path, env)
    assert not active and path == str(copy / "replay.py")
    assert "its compiled build is stale (shoes changed or missing since it was built)" in stderr
    done = subprocess.run(
        [sys.executable, "-m", "tables.engine.compiled", "check"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and "the compiled build is stale (shoes changed" in done.stderr


def _unchanged(build: Path) -> dict[str, bytes]:
    return (
        {path.name: path.read_bytes() for path in sorted(build.iterdir())} if build.is_dir() else {}
    )


def test_a_build_without_a_compiler_fails_saying_so_and_changes_nothing(tmp_path: Path) -> None:
    before = _unchanged(compiled.BUILD)
    done = subprocess.run(
        [sys.executable, "-m", "tables.engine.compiled", "build"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env=_env(PATH=str(tmp_path)),
    )
    assert done.returncode == 1
    assert (
        done.stderr.strip().splitlines()[-1] == "no C compiler found: the engine stays pure Python"
    )
    assert _unchanged(compiled.BUILD) == before


def test_a_build_the_compiler_fails_says_so_and_changes_nothing(tmp_path: Path) -> None:
    """mypyc compiles the engine to C and the C compiler fails (CC=false): exit 1 with a
    line saying so, and whatever build was there stays exactly as it was."""
    if compiled.compiler() is None:
        pytest.skip("no C compiler here: the build stops before mypyc (the test above)")
    before = _unchanged(compiled.BUILD)
    done = subprocess.run(
        [sys.executable, "-m", "tables.engine.compiled", "build"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env=_env(CC="false", LDSHARED="false"),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the compiled build failed: the compiler failed" in done.stderr
    assert _unchanged(compiled.BUILD) == before

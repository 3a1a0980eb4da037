"""The optional compiled build (tables/engine/compiled.py): a compiled module left behind
after its source changed would run old code in the source's place."""
import importlib.machinery
import json
from pathlib import Path

from tables.engine import compiled

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def test_no_compiled_module_in_the_checkout_is_stale() -> None:
    """Pure Python (no build) or a build whose every source is as compiled; a stale
    build fails here, naming the modules (rebuild or clean)."""
    assert compiled.stale() == []


def test_a_changed_source_makes_its_compiled_module_stale(tmp_path: Path) -> None:
    for name in ("replay", "cards"):
        (tmp_path / f"{name}.py").write_text(f"# {name}\n")
        (tmp_path / f"{name}{SUFFIX}").write_bytes(b"")
    digest = compiled._digest
    (tmp_path / compiled.STAMP).write_text(json.dumps({"replay": digest(tmp_path / "replay.py"), "cards": digest(tmp_path / "cards.py")}))
    assert compiled.stale(tmp_path) == []
    (tmp_path / "cards.py").write_text("# cards, edited after the build\n")
    assert compiled.stale(tmp_path) == ["cards"]
    (tmp_path / compiled.STAMP).unlink()  # a build nobody recorded
    assert compiled.stale(tmp_path) == ["cards", "replay"]


def test_pure_python_is_the_default() -> None:
    """The checkout as committed holds no compiled module (a build is made, never kept)."""
    tracked = compiled.extensions()
    assert compiled.active() == bool(tracked)


def test_the_engine_imports_where_the_checkout_is_not_on_the_path(tmp_path: Path) -> None:
    """As a console script (blackjack-audit, celery) runs it: the working directory and
    the script's folder elsewhere. A build's compiled modules import its shared library
    by name, so it must lie in the package, not at the checkout's top level (where
    mypyc's own command puts it: every such script failed to import the engine)."""
    import subprocess
    import sys

    program = ("from tables.engine import cards, compiled, replay; "
               "assert cards.VALUE['TS'] == 10; print(compiled.active(), replay.__file__)")
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True, check=False,
                          env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    active, path = done.stdout.split()
    assert active == str(compiled.active())
    assert path.endswith(SUFFIX) == compiled.active()

"""The blackjack rules engine: pure Python, no Django.

Cards, shoes, hands and rule sets; a dealer that produces the legal events of a round;
a replay that folds a table's events, checks every one against the rule set and
recomputes every settlement. See docs/engine.md.

The compiled build's guard is here, run before any of the package's modules is found:
:mod:`.compiled` makes the build (the replay's hot modules, mypyc) into its own folder,
``_compiled``, and this puts that folder ahead of the sources on the package's path only
while the build is current - every source as recorded when it was built, every recorded
module there for this Python, nothing unrecorded - and ``BLACKJACK_ENGINE`` is not
``pure``. A build left behind after a source changed is never on the path, so it never
runs old code (a warning says why it is off).
"""

import hashlib
import json
import os
import warnings
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

_SOURCES = Path(__file__).resolve().parent
_BUILD = _SOURCES / "_compiled"
# mypyc's shared library of the build: the compiled modules import it by this name
_SHARED = "native__mypyc"


def _extensions(folder: Path) -> dict[str, Path]:
    """The extension modules in ``folder`` this Python can import, by module name."""
    suffixes = sorted(
        EXTENSION_SUFFIXES, key=len, reverse=True
    )  # ".cpython-311-...so" before ".so"
    found: dict[str, Path] = {}
    for path in folder.iterdir() if folder.is_dir() else ():
        suffix = next((suffix for suffix in suffixes if path.name.endswith(suffix)), None)
        if suffix is not None:
            found[path.name[: -len(suffix)]] = path
    return found


def _stale(build: Path = _BUILD, sources: Path = _SOURCES) -> list[str]:
    """Why the build in ``build`` may not run: the modules whose source (in ``sources``)
    changed since or is gone, that its record (``stamp.json``) names but it lacks (its
    shared library included), or that it holds unrecorded. Empty where the build is
    current, or where there is none."""
    if not build.is_dir():
        return []
    stamp = build / "stamp.json"
    recorded: dict[str, str] = json.loads(stamp.read_text()) if stamp.exists() else {}
    built = _extensions(build)
    out = [
        name
        for name, digest in recorded.items()
        if name not in built
        or not (sources / f"{name}.py").exists()
        or hashlib.sha256((sources / f"{name}.py").read_bytes()).hexdigest() != digest
    ]
    out += [name for name in built if name not in recorded and name != _SHARED]
    return sorted(out if _SHARED in built else [*out, _SHARED])


if os.environ.get("BLACKJACK_ENGINE") != "pure" and _BUILD.is_dir():
    if _changed := _stale():
        warnings.warn(
            f"tables.engine runs its pure-Python sources: its compiled build is stale ({', '.join(_changed)} "
            "changed or missing since it was built): python -m tables.engine.compiled build, or clean",
            RuntimeWarning,
        )
    else:
        __path__.insert(0, str(_BUILD))

"""The regulator's package: its files, and how they are written and read.

A package is a folder or a ``.zip`` holding::

    manifest.json                     what the package holds, hashes, signed heads, proofs
    manifest.sig                      the casino's signature of manifest.json
    events/<table>.jsonl.gz           each table's events of the period (JSON Lines, gzip)
    reports/rounds.csv|json           each round: recorded and recomputed house result
    reports/reconciliation.csv|json   each table-day: chip-count, recorded, replayed win, hold
    reports/checks.csv|json           what the engine and the books find in the events
    reports/findings.csv|json         the back-office's findings, with their workflow trail
    reports/access.csv|json           the access log of the period

Everything is deterministic, so that the same record gives a byte-identical package:
gzip members carry no file name and mtime 0; zip members a fixed timestamp, a fixed
order and fixed permissions; JSON has sorted keys; CSV ends lines with ``\\n``.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import IO, Any, cast

import msgspec

_reader: ModuleType
try:
    # ISA-L's gzip reader (python-isal, a dependency where it has wheels): the same checks
    # of the CRC and length, the same errors (but its own for a broken deflate stream),
    # at over twice zlib's speed - decompressing was a tenth of the auditor's time. The
    # files are written by gzip itself: ISA-L compresses to other bytes
    from isal import igzip as _reader
    from isal import isal_zlib

    _BROKEN: tuple[type[Exception], ...] = (
        OSError,
        EOFError,
        zlib.error,
        cast(type[Exception], isal_zlib.error),
    )
except ImportError:  # a platform without its wheels: the standard library
    _reader = gzip
    _BROKEN = (OSError, EOFError, zlib.error)

FORMAT = "blackjack-regulator-package"
# bumped when a reader of an older version could not read the new one; every version
# this reader knows must still verify (tests/package/fixtures/ keeps one of each)
# 2: the reconciliation's theoretical win and SD, the rule sets' edge and variance;
# 3: the engine's messages (the checks report) give amounts in the table's currency;
# 4: the Merkle leaf commits to the event's seal (leaf format 2, which each head states),
#    so each stream says its last event's seal (last_seal) for its inclusion proof;
# 5: the reconciliation's theoretical win and SD are of the initial stakes (and insurance
#    by its own edge), where 2 to 4 took the handle;
# 6: each stream says who recorded its money-changing events (authority: id -> principal
#    and whether its server seal held), and the folds apply none no one with the authority
#    recorded (a reader of 5 would apply them, and its reports would differ)
# 7: the manifest states the exchange rates of the days (fx_rates) and which rule sets have
#    a drop box; the folds book foreign amounts at the rates, the checks report names a
#    missing opener, closer or drop, and the reconciliation gives each day's state and what
#    it lacks (a reader of 6 would find foreign amounts unbooked and those findings extra)
FORMAT_VERSION = 7
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"  # the casino's Ed25519 signature of manifest.json's bytes
EVENTS_DIR = "events"
REPORTS = ("rounds", "reconciliation", "checks", "findings", "access")
# what the auditor recomputes from the events (the others are the back-office's word)
RECOMPUTED = ("rounds", "reconciliation", "checks")
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: no build time leaks in
GZIP_LEVEL = 6
_BLOCK = 1 << 16  # decompressed bytes read at a time


class _File(msgspec.Struct):
    sha256: str
    bytes: int


class _Stream(msgspec.Struct):
    file: str
    first_version: int
    last_version: int
    first_prev_hash: str
    last_hash: str
    last_position: int
    events: int | None = None
    counts: dict[str, int] | None = None
    struck: list[str] = []
    # 6: who recorded each money-changing event (id -> principal, sealed)
    authority: dict[str, dict[str, Any]] = {}
    inclusion: dict[str, Any] | None = None


class _RuleSet(msgspec.Struct):
    ruleset: str
    overrides: dict[str, Any] = {}
    hash: str | None = None
    drop_box: bool | None = None  # 7: the game has a chip tray and a drop box


class _Manifest(msgspec.Struct):
    """The members of a manifest the auditor reads, and their shapes (other members are
    the manifest's own): a manifest without one, or with one of another shape, is
    refused when it is read, naming the member, rather than found wanting midway.
    Each entry of ``files``, ``streams`` and ``rule_sets`` has the shape
    :data:`_ENTRIES` gives."""

    files: dict[str, dict[str, Any]]
    streams: dict[str, dict[str, Any]]
    signed_heads: list[dict[str, Any]]
    public_keys: dict[str, str]
    rule_sets: dict[str, dict[str, Any]] = {}
    # 7: the exchange rates of the days (gaming_day, currency, house, rate "n/d")
    fx_rates: list[dict[str, str]] = []
    period: dict[str, str | None] = {}
    software: dict[str, str | None] = {}
    previous: dict[str, Any] | None = None


_ENTRIES: dict[str, type[msgspec.Struct]] = {
    "files": _File,
    "streams": _Stream,
    "rule_sets": _RuleSet,
}


def _check_shape(path: object, data: dict[str, Any]) -> None:
    """:class:`Unreadable`, naming the member, unless ``data`` has a manifest's shape."""

    def refused(error: msgspec.ValidationError, where: str) -> Unreadable:
        # msgspec says where as "- at `$...`" within what it was given, and nothing of a
        # member missing from that itself: said from the manifest
        said = str(error)
        said = said.replace("`$", f"`{where}") if " - at `$" in said else f"{said} - at `{where}`"
        return Unreadable(f"{path}: {MANIFEST} is malformed: {said}")

    try:
        msgspec.convert(data, _Manifest)
    except msgspec.ValidationError as error:
        raise refused(error, "manifest") from None
    for member, shape in _ENTRIES.items():
        for key, entry in data.get(member, {}).items():
            try:
                msgspec.convert(entry, shape)
            except msgspec.ValidationError as error:
                raise refused(error, f"{member}[{json.dumps(key)}]") from None


class Unreadable(Exception):
    """The package cannot be read at all (exit 2): the message says what and where."""


class BadRequest(Unreadable):
    """What was asked cannot be answered, and not for the package's fault (exit 2 too): a
    table, day or round it does not hold (the message says what it holds), a --key file
    that cannot be used."""


class CorruptFile(Unreadable):
    """A gzip member that cannot be decompressed: cut short, or its bytes changed (its
    CRC, its length or its deflate stream). ``reason``: what the decompressor said."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def events_file(table: str) -> str:
    return f"{EVENTS_DIR}/{table}.jsonl.gz"


def report_file(name: str, kind: str) -> str:
    return f"reports/{name}.{kind}"


def json_bytes(value: Any) -> bytes:
    """JSON as the package writes it: sorted keys, indented, UTF-8, a final newline."""
    return (json_text(value) + "\n").encode("utf-8")


def json_text(value: Any) -> str:
    """:func:`json_bytes`' JSON as text, without the final newline: the standard
    library's ``json.dumps(sort_keys=True, indent=1, ensure_ascii=False)``. A flat row -
    a dict of text keys to text, 64-bit integers, booleans and nulls, as every row of the
    round report is - is encoded by msgspec, because the standard library's encoder
    takes its Python path whenever it indents and a package writes a row a round (a test
    holds the two equal, row by row); any other value by the standard library."""
    if (
        type(value) is dict
        and all(type(key) is str for key in value)
        and all(
            (kind := type(item)) is str
            or kind is bool
            or item is None
            or (kind is int and _INT64[0] <= item <= _INT64[1])
            for item in value.values()
        )
    ):
        try:
            return _format(_sorted_json(value), indent=1).decode("utf-8")
        except (
            msgspec.EncodeError,
            UnicodeEncodeError,
        ):  # a lone surrogate: named as json names it
            pass
    return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False)


_INT64 = (-(1 << 63), (1 << 63) - 1)
_sorted_json = msgspec.json.Encoder(order="sorted").encode
_format = msgspec.json.format


def csv_bytes(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> bytes:
    """CSV with a header; ``None`` as an empty cell, lists and dicts as JSON."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(
            [
                ""
                if (v := row.get(c)) is None
                else json.dumps(v, sort_keys=True, ensure_ascii=False)
                if isinstance(v, list | dict)
                else v
                for c in columns
            ]
        )
    return out.getvalue().encode("utf-8")


class GzipLines:
    """A deterministic gzip member written line by line: no file name, mtime 0."""

    def __init__(self, target: IO[bytes]) -> None:
        self._gzip = gzip.GzipFile(
            filename="", fileobj=target, mode="wb", compresslevel=GZIP_LEVEL, mtime=0
        )

    def write(self, line: bytes) -> None:
        self._gzip.write(line)

    def close(self) -> None:
        self._gzip.close()


def sha256_of(stream: IO[bytes]) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    while chunk := stream.read(1 << 20):
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


def zip_folder(folder: Path, target: Path) -> None:
    """The files of ``folder`` as a zip: sorted names, fixed time and permissions, stored
    (the event files are gzip already; the reports are small)."""
    with zipfile.ZipFile(
        target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=GZIP_LEVEL
    ) as archive:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            name = path.relative_to(folder).as_posix()
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.create_system = 3
            info.compress_type = (
                zipfile.ZIP_STORED if name.endswith(".gz") else zipfile.ZIP_DEFLATED
            )
            with path.open("rb") as source, archive.open(info, "w") as out:
                while chunk := source.read(1 << 20):
                    out.write(chunk)


class Package:
    """A package to read: a folder or a ``.zip``."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._zip: zipfile.ZipFile | None = None
        if self.path.is_dir():
            return
        if not self.path.exists():
            raise Unreadable(f"{self.path}: no such file or folder")
        try:
            self._zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError) as error:
            raise Unreadable(f"{self.path}: neither a package folder nor a zip ({error})") from None

    def names(self) -> list[str]:
        """Every file the package holds, sorted."""
        if self._zip is not None:
            return sorted(i.filename for i in self._zip.infolist() if not i.is_dir())
        return sorted(
            p.relative_to(self.path).as_posix() for p in self.path.rglob("*") if p.is_file()
        )

    def open(self, name: str) -> IO[bytes]:
        try:
            if self._zip is not None:
                return self._zip.open(name)
            return (self.path / name).open("rb")
        except (KeyError, OSError) as error:
            raise Unreadable(f"{self.path}: {name}: cannot be read ({error})") from None

    def read(self, name: str) -> bytes:
        with self.open(name) as stream:
            return stream.read()

    def lines(self, name: str) -> Iterator[bytes]:
        """The lines of a gzip member, each without its newline, decompressed as they are
        read (a block at a time: gzip's line reader costs more than the rest of reading;
        its checks of the CRC and length are the same). :class:`CorruptFile` where the
        member cannot be decompressed (after the lines before the damage)."""
        try:
            with self.open(name) as raw, _reader.GzipFile(fileobj=raw, mode="rb") as source:
                rest = b""
                while block := source.read(_BLOCK):
                    lines = (rest + block).split(b"\n")
                    rest = lines.pop()
                    yield from lines
                if rest:
                    yield rest
        except _BROKEN as error:
            raise CorruptFile(
                f"{self.path}: {name}: cannot be decompressed ({error})", str(error)
            ) from None

    def manifest(self) -> dict[str, Any]:
        """The manifest, as JSON's values; :class:`Unreadable` unless it is a manifest
        of a format version this reader knows whose members the auditor reads have
        their shapes (:class:`_Manifest`)."""
        try:
            data = json.loads(self.read(MANIFEST))
        except Unreadable:
            raise Unreadable(f"{self.path}: no {MANIFEST}: not a regulator's package") from None
        except ValueError as error:
            raise Unreadable(f"{self.path}: {MANIFEST} is not JSON ({error})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise Unreadable(f"{self.path}: {MANIFEST} is not a {FORMAT} manifest")
        version = data.get("format_version")
        if not isinstance(version, int) or not 1 <= version <= FORMAT_VERSION:
            raise Unreadable(
                f"{self.path}: format version {version!r}; this auditor reads 1 to {FORMAT_VERSION} "
                "(install a newer blackjack-audit)"
            )
        _check_shape(self.path, data)
        return data

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()

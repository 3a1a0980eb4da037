"""Changing a package as someone between the casino and the regulator would."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from auditor import layout

DIGITS = b"0123456789"
HEX = re.compile(rb"[0-9a-f]{64,}")


def change_one_byte(path: Path) -> int:
    """Change one byte of the file, near its middle: in a gzip file any byte; in the
    manifest and its signature a hex digit of a hash, key or signature; elsewhere a digit
    (so the file still parses and only a value changes). Returns the byte's offset."""
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    if path.name.endswith(".gz"):
        data[middle] ^= 0x01
        offset = middle
    elif path.name.startswith("manifest"):
        run = min(HEX.finditer(data), key=lambda m: abs(m.start() - middle))
        offset = run.start() + 10
        data[offset] = ord("0") if data[offset] != ord("0") else ord("1")
    else:
        offsets = sorted(range(len(data)), key=lambda i: abs(i - middle))
        offset = next(i for i in offsets if data[i] in DIGITS)
        data[offset] = DIGITS[(DIGITS.index(data[offset]) + 1) % 10]
    path.write_bytes(bytes(data))
    return offset


def event_lines(path: Path) -> list[bytes]:
    return gzip.decompress(path.read_bytes()).splitlines(keepends=True)


def write_events(path: Path, lines: list[bytes]) -> None:
    with path.open("wb") as raw:
        target = layout.GzipLines(raw)
        for line in lines:
            target.write(line)
        target.close()


def manifest(package: Path) -> dict:
    return json.loads((package / layout.MANIFEST).read_text())


def write_manifest(package: Path, data: dict) -> None:
    (package / layout.MANIFEST).write_bytes(layout.json_bytes(data))

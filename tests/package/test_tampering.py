"""Any change to a package, or to the store before it was exported, makes the offline
auditor exit 1 and name what and where."""

from __future__ import annotations

import hashlib
import shutil

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from audit.integrity import digests
from audit.models import Event
from audit.record import signing
from auditor import layout
from tests.audit.tampering import rehash, tamper_payload
from tests.package.conftest import DAY, NEXT_DAY, audit, export
from tests.package.tampering import (
    change_one_byte,
    event_lines,
    manifest,
    write_events,
    write_manifest,
)

FILES = [
    layout.MANIFEST,
    layout.SIGNATURE,
    "events/BJ-01.jsonl.gz",
    "events/BJ-02.jsonl.gz",
    *(
        layout.report_file(name, kind)
        for name in ("rounds", "reconciliation")
        for kind in ("csv", "json")
    ),
]


@pytest.fixture
def package(exported):
    return exported()


@pytest.mark.parametrize("name", FILES)
def test_one_changed_byte_in_any_file_is_named(package, name) -> None:
    """A byte changed anywhere: exit 1, the file named."""
    change_one_byte(package / name)
    code, said = audit("verify", str(package))
    assert code == 1, said
    assert name in said


def test_every_file_of_the_package_is_covered(package) -> None:
    """The files above are every kind of file a package holds (the manifest lists the rest
    under the same hash check)."""
    listed = set(manifest(package)["files"])
    assert {n for n in FILES if n not in (layout.MANIFEST, layout.SIGNATURE)} <= listed
    assert all(n.startswith(("events/", "reports/")) for n in listed)


def test_a_removed_line_is_named_by_line_stream_and_version(package) -> None:
    """An event line removed (and the manifest's hash of the file fixed, as a forger
    would): the file, the gap in the chain at that line and version, and the manifest's
    signature."""
    path = package / "events/BJ-02.jsonl.gz"
    lines = event_lines(path)
    del lines[40]
    write_events(path, lines)
    data = manifest(package)
    data["files"]["events/BJ-02.jsonl.gz"]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    data["files"]["events/BJ-02.jsonl.gz"]["bytes"] = path.stat().st_size
    write_manifest(package, data)
    code, said = audit("verify", str(package))
    assert code == 1, said
    assert "[chain] events/BJ-02.jsonl.gz:41 stream BJ-02 version 42: gap" in said
    assert "[signature]" in said


def test_a_removed_report_line_is_named(package) -> None:
    path = package / "reports/rounds.csv"
    lines = path.read_bytes().splitlines(keepends=True)
    del lines[3]
    path.write_bytes(b"".join(lines))
    code, said = audit("verify", str(package))
    assert code == 1, said
    assert "[reports] reports/rounds.csv:4 stream BJ-01" in said


def test_a_file_swapped_with_another_packages_is_named(package, tmp_path) -> None:
    """A table's events of the next day put in place of the day's: the file and the
    chain's start."""
    other = tmp_path / "other"
    assert export("--day", NEXT_DAY, "--out", str(other))[0] == 0
    shutil.copyfile(other / "events/BJ-03.jsonl.gz", package / "events/BJ-03.jsonl.gz")
    code, said = audit("verify", str(package))
    assert code == 1, said
    assert "[files] events/BJ-03.jsonl.gz" in said
    assert "[chain] events/BJ-03.jsonl.gz:1 stream BJ-03" in said


def test_a_forged_head_signature_is_named(package) -> None:
    """The latest head's signature changed: the head and the manifest's signature fail."""
    data = manifest(package)
    head = data["signed_heads"][-1]
    head["signature"] = ("0" if head["signature"][0] != "0" else "1") + head["signature"][1:]
    write_manifest(package, data)
    code, said = audit("verify", str(package))
    assert code == 1, said
    assert (
        f"[heads] manifest.json: the signed head of {head['size']} events: its signature does not hold"
        in said
    )


def test_a_package_re_signed_with_another_key_fails_against_the_pinned_key(
    package, tmp_path, settings
) -> None:
    """A forger re-signs the heads and the manifest with a key of their own and puts its
    public key in the package: with the casino's published key pinned, exit 1."""
    forger = Ed25519PrivateKey.generate()
    data = manifest(package)
    for head in data["signed_heads"]:
        sth = signing.SignedTreeHead.from_dict(head)
        forged = signing.sign_head(
            sth.head, timestamp=sth.timestamp, private_key=forger, streams=sth.streams
        )
        head.update(key_id=forged.key_id, signature=forged.signature.hex())
    data["public_keys"] = {
        signing.key_id(forger.public_key()): signing.public_pem(forger.public_key())
    }
    write_manifest(package, data)
    body = (package / layout.MANIFEST).read_bytes()
    (package / layout.SIGNATURE).write_bytes(layout.json_bytes(signing.sign_document(body, forger)))
    code, said = audit("verify", str(package))
    assert code == 0, said  # the package's own keys prove integrity, not who signed
    casino = tmp_path / "casino.pem"
    casino.write_text(signing.public_pem(digests.signing_key().public_key()))
    code, said = audit("verify", str(package), "--key", str(casino))
    assert code == 1, said
    assert "which is not among the trusted keys" in said and "[heads]" in said


def test_a_package_of_an_altered_store_is_named(record, tmp_path) -> None:
    """A superuser changed a settlement after the head was signed: the package exported
    afterwards fails at that event's line and version."""
    settled = Event.objects.filter(stream="BJ-02", type="round.settled").order_by("version").first()
    payload = dict(settled.payload)
    payload["settlements"] = [{**s, "net": s["net"] + 500} for s in payload["settlements"]]
    tamper_payload(str(settled.event_id), payload)
    out = tmp_path / "altered"
    assert export("--day", DAY, "--out", str(out))[0] == 0
    code, said = audit("verify", str(out))
    assert code == 1, said
    assert (
        f"[chain] events/BJ-02.jsonl.gz:{settled.version} stream BJ-02 version {settled.version}: altered"
        in said
    )


def test_a_package_of_a_re_hashed_store_is_named(record, tmp_path) -> None:
    """The superuser also re-chained the stream with the project's hash function: the
    chain holds, but the signed head's stream head and the inclusion proof do not."""
    settled = Event.objects.filter(stream="BJ-02", type="round.settled").order_by("version").first()
    payload = dict(settled.payload)
    payload["settlements"] = [{**s, "net": s["net"] + 500} for s in payload["settlements"]]
    tamper_payload(str(settled.event_id), payload)
    rehash("BJ-02", settled.version)
    out = tmp_path / "rehashed"
    assert export("--day", DAY, "--to", NEXT_DAY, "--out", str(out))[0] == 0
    code, said = audit("verify", str(out))
    assert code == 1, said
    assert "[chain] events/BJ-02.jsonl.gz" in said and "head_mismatch" in said
    assert "[inclusion] events/BJ-02.jsonl.gz" in said

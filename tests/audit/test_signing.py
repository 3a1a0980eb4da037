"""Signed tree heads: Ed25519 over the head's canonical form; any change is refused."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from audit.record import signing
from audit.record.merkle import TreeHead

T = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def key():
    return signing.load_private_key(signing.new_private_key_pem())


def test_a_signed_head_verifies_with_its_public_key(key) -> None:
    """The head verifies with the published key, found by its id."""
    sth = signing.sign_head(TreeHead(12, b"\x07" * 32), timestamp=T, private_key=key)
    public = key.public_key()
    assert sth.key_id == signing.key_id(public) and len(sth.key_id) == 16
    assert signing.verify_head(sth, {sth.key_id: public}) is None


@pytest.mark.parametrize(
    "change",
    [
        {"size": 13},
        {"root": b"\x08" * 32},
        {"timestamp": T.replace(second=1)},
        {"signature": bytes(64)},
        {"streams": {"BJ-01": (41, "e" * 64)}},
        {"streams": {}},
        {"leaf_format": 1},
    ],
)
def test_any_change_to_a_signed_head_is_refused(key, change) -> None:
    """A head whose size, root, stream heads, time, signature or leaf format changed does
    not verify (a head of seal-committing leaves cannot be passed off as an older one's)."""
    sth = signing.sign_head(
        TreeHead(12, b"\x07" * 32), timestamp=T, private_key=key, streams={"BJ-01": (40, "e" * 64)}
    )
    forged = dataclasses.replace(sth, **change)
    assert "does not match" in (signing.verify_head(forged, {sth.key_id: key.public_key()}) or "")


def test_a_head_signed_by_another_key_is_refused(key) -> None:
    """A head signed with a key that is not published names the key it claims."""
    other = signing.load_private_key(signing.new_private_key_pem())
    sth = signing.sign_head(TreeHead(3, b"\x01" * 32), timestamp=T, private_key=other)
    why = signing.verify_head(sth, {signing.key_id(key.public_key()): key.public_key()})
    assert why is not None and sth.key_id in why
    # the same key id claimed by a key that is not the one named
    assert "has id" in (
        signing.verify_head(dataclasses.replace(sth, key_id="0" * 16), {"0" * 16: key.public_key()})
        or ""
    )


def test_a_head_round_trips_through_its_dict(key) -> None:
    """as_dict / from_dict give back the same head, which still verifies."""
    sth = signing.sign_head(
        TreeHead(99, b"\xab" * 32),
        timestamp=T,
        private_key=key,
        streams={"BJ-02": (7, "d" * 64), "BJ-01": (9, "f" * 64)},
    )
    again = signing.SignedTreeHead.from_dict(sth.as_dict())
    assert again == sth
    assert (
        signing.verify_head(
            again,
            {sth.key_id: signing.load_public_key(signing.public_pem(key.public_key()).encode())},
        )
        is None
    )


def test_a_head_of_the_first_leaf_format_is_signed_and_read_as_it_always_was(key) -> None:
    """Signed bytes without a leaf_format member, a dict without one: a head published
    before seals entered the leaf still verifies and reads as format 1. The current
    format's head says it in both."""
    old = signing.sign_head(TreeHead(5, b"\x02" * 32), timestamp=T, private_key=key, leaf_format=1)
    assert b"leaf_format" not in old.signed_bytes() and "leaf_format" not in old.as_dict()
    key.public_key().verify(
        old.signature,
        b'{"key_id":"%s","root":"%s","size":5,"streams":{},'
        b'"timestamp":"2026-11-30T06:00:00.000000Z"}' % (old.key_id.encode(), b"02" * 32),
    )
    assert signing.SignedTreeHead.from_dict(old.as_dict()).leaf_format == 1
    new = signing.sign_head(TreeHead(5, b"\x02" * 32), timestamp=T, private_key=key)
    assert new.leaf_format == 2 and new.as_dict()["leaf_format"] == 2
    assert b'"leaf_format":2' in new.signed_bytes()
    assert signing.SignedTreeHead.from_dict(new.as_dict()) == new


@pytest.mark.parametrize(
    ("data", "field"),
    [
        (
            {
                "size": 1,
                "root": "ab" * 32,
                "timestamp": "2026-11-30T06:00:00.000000Z",
                "key_id": "x",
                "signature": "",
                "leaf_format": 3,
            },
            "leaf_format",
        ),
        (
            {
                "root": "ab" * 32,
                "timestamp": "2026-11-30T06:00:00.000000Z",
                "key_id": "x",
                "signature": "",
            },
            "size",
        ),
        (
            {
                "size": 1,
                "root": "ab",
                "timestamp": "2026-11-30T06:00:00.000000Z",
                "key_id": "x",
                "signature": "",
            },
            "root",
        ),
        (
            {
                "size": -1,
                "root": "ab" * 32,
                "timestamp": "2026-11-30T06:00:00.000000Z",
                "key_id": "x",
                "signature": "",
            },
            "size",
        ),
    ],
)
def test_a_malformed_head_names_the_member(data, field) -> None:
    with pytest.raises(ValueError, match=field):
        signing.SignedTreeHead.from_dict(data)


def test_unusable_key_files_say_why() -> None:
    with pytest.raises(signing.UnusableKey, match="PEM"):
        signing.load_private_key(b"not a key")
    with pytest.raises(signing.UnusableKey, match="PEM"):
        signing.load_public_key(b"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")


def test_a_signed_document_verifies_and_any_change_is_refused(key) -> None:
    """A detached signature of a document (the regulator's package's manifest) holds for
    its bytes and key only; it is deterministic, so a package stays byte-identical."""
    data = b'{"format": "blackjack-regulator-package"}\n'
    signed = signing.sign_document(data, key)
    assert signed == signing.sign_document(data, key)
    keys = {signed["key_id"]: key.public_key()}
    assert signing.verify_document(data, signed, keys) is None
    assert "does not match" in signing.verify_document(data.replace(b"f", b"g", 1), signed, keys)
    assert "does not match" in signing.verify_document(
        data, {**signed, "signature": "00" * 64}, keys
    )
    assert "does not match" in signing.verify_document(
        data, {**signed, "signature": "not hex"}, keys
    )
    other = signing.load_private_key(signing.new_private_key_pem())
    assert "not among the trusted keys" in signing.verify_document(
        data, signing.sign_document(data, other), keys
    )

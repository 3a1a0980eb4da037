"""Signed tree heads: the record's Merkle root, its size and a time, signed with Ed25519.

A signed tree head (STH) says "the first ``size`` events of the record have Merkle root
``root`` (:mod:`.merkle`), and each stream's last event among them is version ``v`` with
hash ``h`` (``streams``), as of ``timestamp``", signed by the casino's key ``key_id``.
The stream heads let a verifier name the stream a cut tail, a deleted stream or a
re-hashed chain belongs to (the root alone says only that something differs).
Published outside the database (a file, the regulator's package), it lets anyone holding
the public key prove later that the record only grew from it - a cut tail, a deleted
stream, a re-hashed history or a forged event at the head no longer pass.

What is signed is the canonical JSON (:mod:`.chain`) of ``{"key_id", "leaf_format", "root",
"size", "streams", "timestamp"}`` (root as 64 hex digits, streams as ``{name: [version,
hash]}``, timestamp as the chain's UTC text; ``leaf_format`` the layout of the tree's leaves,
:mod:`.merkle` - a head of format 1, signed before the leaf held the seal, has no such
member, and is signed and read as it was). ``key_id`` is
the first 16 hex digits of SHA-256 of the raw 32-byte public key, so a verifier can pick
the right key from several (rotation: a new key gets a new id; old heads keep verifying
with the old public key, which stays published).

Signatures use pyca ``cryptography`` (Ed25519, RFC 8032); keys are PEM (PKCS#8 private,
SubjectPublicKeyInfo public) files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .chain import canonical_json, format_timestamp, parse_timestamp
from .merkle import LEAF_FORMAT, LEAF_FORMATS, TreeHead


class UnusableKey(ValueError):
    """A key file that cannot be used; the message says why."""


def public_bytes(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(key: Ed25519PublicKey) -> str:
    return hashlib.sha256(public_bytes(key)).hexdigest()[:16]


def public_pem(key: Ed25519PublicKey) -> str:
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ).decode("ascii")


def load_private_key(pem: bytes) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError) as error:
        raise UnusableKey(f"not an unencrypted PEM private key: {error}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise UnusableKey(f"an Ed25519 key is needed, not {type(key).__name__}")
    return key


def load_public_key(pem: bytes) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError) as error:
        raise UnusableKey(f"not a PEM public key: {error}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise UnusableKey(f"an Ed25519 key is needed, not {type(key).__name__}")
    return key


def new_private_key_pem() -> bytes:
    """A fresh Ed25519 private key as unencrypted PKCS#8 PEM (protect the file)."""
    return Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


StreamHeads = Mapping[str, tuple[int, str]]


@dataclass(frozen=True, slots=True)
class SignedTreeHead:
    size: int
    root: bytes
    timestamp: datetime
    key_id: str
    signature: bytes
    streams: StreamHeads = field(default_factory=dict)
    leaf_format: int = 1  # the leaves' layout (merkle.leaf_data); 1 for a head that does not say

    @property
    def head(self) -> TreeHead:
        return TreeHead(self.size, self.root)

    def signed_bytes(self) -> bytes:
        return _signed_bytes(
            self.size, self.root, self.streams, self.timestamp, self.key_id, self.leaf_format
        )

    def as_dict(self) -> dict[str, Any]:
        data = {
            "size": self.size,
            "root": self.root.hex(),
            "streams": {
                name: [version, digest] for name, (version, digest) in sorted(self.streams.items())
            },
            "timestamp": format_timestamp(self.timestamp),
            "key_id": self.key_id,
            "signature": self.signature.hex(),
        }
        if self.leaf_format != 1:  # a format 1 head is written as it always was
            data["leaf_format"] = self.leaf_format
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SignedTreeHead:
        """Read a head as :meth:`as_dict` wrote it; ValueError naming the member that is wrong."""
        try:
            size = data["size"]
            if isinstance(size, bool) or not isinstance(size, int) or size < 0:
                raise ValueError("size: expected a whole number >= 0")
            root = bytes.fromhex(str(data["root"]))
            if len(root) != 32:
                raise ValueError("root: expected 64 hex digits")
            signature = bytes.fromhex(str(data["signature"]))
            streams = {}
            for name, head in dict(data.get("streams") or {}).items():
                version, digest = head
                if (
                    isinstance(version, bool)
                    or not isinstance(version, int)
                    or not isinstance(digest, str)
                ):
                    raise ValueError(f"streams.{name}: expected [version, hash]")  # noqa: TRY004 - a malformed head is a ValueError to every caller
                streams[str(name)] = (version, digest)
            leaf_format = data.get("leaf_format", 1)
            if leaf_format not in LEAF_FORMATS or isinstance(leaf_format, bool):
                raise ValueError(
                    f"leaf_format: expected one of {', '.join(map(str, LEAF_FORMATS))}"
                )
            return cls(
                size,
                root,
                parse_timestamp(str(data["timestamp"])),
                str(data["key_id"]),
                signature,
                streams,
                leaf_format,
            )
        except KeyError as missing:
            raise ValueError(f"{missing.args[0]}: missing") from None


def _signed_bytes(
    size: int, root: bytes, streams: StreamHeads, timestamp: datetime, key: str, leaf_format: int
) -> bytes:
    signed: dict[str, Any] = {
        "key_id": key,
        "root": root.hex(),
        "size": size,
        "streams": {name: [version, digest] for name, (version, digest) in streams.items()},
        "timestamp": format_timestamp(timestamp),
    }
    if leaf_format != 1:
        signed["leaf_format"] = leaf_format
    return canonical_json(signed)


def sign_head(
    head: TreeHead,
    *,
    timestamp: datetime,
    private_key: Ed25519PrivateKey,
    streams: StreamHeads | None = None,
    leaf_format: int = LEAF_FORMAT,
) -> SignedTreeHead:
    """Sign ``head``, a tree of ``leaf_format`` leaves (the current format unless told)."""
    kid = key_id(private_key.public_key())
    heads = dict(streams or {})
    signature = private_key.sign(
        _signed_bytes(head.size, head.root, heads, timestamp, kid, leaf_format)
    )
    return SignedTreeHead(head.size, head.root, timestamp, kid, signature, heads, leaf_format)


def verify_head(sth: SignedTreeHead, public_keys: Mapping[str, Ed25519PublicKey]) -> str | None:
    """Why the head's signature does not hold (None: it holds). ``public_keys`` by key id."""
    key = public_keys.get(sth.key_id)
    if key is None:
        return (
            f"signed by key {sth.key_id}, which is not among the published keys "
            f"({', '.join(sorted(public_keys)) or 'none'})"
        )
    if key_id(key) != sth.key_id:
        return f"the key published as {sth.key_id} has id {key_id(key)}"
    try:
        key.verify(sth.signature, sth.signed_bytes())
    except InvalidSignature:
        return "the signature does not match the head (size, root, time or key id changed, or a forged signature)"
    return None


def sign_document(data: bytes, private_key: Ed25519PrivateKey) -> dict[str, str]:
    """A detached signature of a whole document (the regulator's package's manifest):
    ``{"key_id", "signature"}`` (Ed25519 is deterministic: the same bytes and key give
    the same signature, so a package stays byte-identical)."""
    return {"key_id": key_id(private_key.public_key()), "signature": private_key.sign(data).hex()}


def verify_document(
    data: bytes, signed: Mapping[str, Any], public_keys: Mapping[str, Ed25519PublicKey]
) -> str | None:
    """Why a :func:`sign_document` signature does not hold for ``data`` (None: it holds)."""
    kid = str(signed.get("key_id", ""))
    key = public_keys.get(kid)
    if key is None:
        return (
            f"signed by key {kid or '(none)'}, which is not among the trusted keys "
            f"({', '.join(sorted(public_keys)) or 'none'})"
        )
    try:
        key.verify(bytes.fromhex(str(signed.get("signature", ""))), data)
    except (InvalidSignature, ValueError):
        return "the signature does not match the document (a byte changed, or a forged signature)"
    return None

"""``manage.py digest``: sign a tree head of the record, make a signing key, or prove an
event's inclusion (audit.digests)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError

from audit.commands import BackOfficeCommand
from audit.digests import DigestError, digest_sign, inclusion_proof_of, tree_advance, write_new_key
from audit.event_ids import with_ids
from audit.models import Event
from audit.record import signing


class Command(BackOfficeCommand):
    help = (
        "Sign a tree head of the whole record (the RFC 9162 Merkle root of every event, each "
        "stream's head, the time) with DIGEST_SIGNING_KEY, append it to audit.digests and write it "
        "to DIGEST_PUBLISH_DIR; or --new-key PATH: make a signing key; or --proof EVENT_ID: print an "
        "event's inclusion proof against the latest signed head."
    )

    exit_codes = {0: "done (a head signed, a key made, a proof printed)", 2: "bad input or nothing to sign: no key, an unusable key, an unknown event, an empty record"}

    def add_arguments(self, parser: Any) -> None:
        action = parser.add_mutually_exclusive_group()
        action.add_argument("--new-key", metavar="PATH", help="write a new Ed25519 private key there (never overwrites)")
        action.add_argument("--proof", metavar="EVENT_ID", help="the inclusion proof of this event, as JSON")
        action.add_argument("--advance", action="store_true", help="only bring the tree up to the record (no signing)")

    def handle(self, *args: Any, new_key: str | None, proof: str | None, advance: bool, **options: Any) -> None:
        try:
            if new_key:
                try:
                    key = write_new_key(Path(new_key))
                except FileExistsError:
                    raise CommandError(f"digest: {new_key} exists; a key is never overwritten", returncode=2) from None
                except OSError as error:
                    raise CommandError(f"digest: {new_key}: {error.strerror}", returncode=2) from None
                public = key.public_key()
                self.stdout.write(f"key {signing.key_id(public)} written to {new_key} (keep it secret); its public key:")
                self.stdout.write(signing.public_pem(public))
                return
            if proof:
                event = Event.objects.filter(with_ids([proof])).first()  # text that is no id: none
                if event is None:
                    raise CommandError(f"digest: --proof {proof!r}: no such event", returncode=2)
                self.stdout.write(json.dumps(inclusion_proof_of([event]), indent=2))
                return
            if advance:
                state = tree_advance()
                self.stdout.write(f"the tree holds {state.size:,} events (up to position {state.position})")
                return
            sth, stored = digest_sign()
        except DigestError as error:
            raise CommandError(f"digest: {error}", returncode=2) from None
        self.stdout.write(
            f"signed head: {sth.size:,} events, root {sth.root.hex()}, {len(sth.streams)} streams, key {sth.key_id}; "
            f"stored as {stored.stream} v{stored.version}"
        )

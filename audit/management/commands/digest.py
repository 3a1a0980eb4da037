"""``manage.py digest``: sign a tree head of the record, make a signing key, or prove an
event's inclusion (audit.integrity.digests)."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from audit.integrity.digests import (
    DigestError,
    Unpublished,
    digest_sign,
    digest_sign_if_needed,
    inclusion_proof_of,
    sign_following,
    signing_key,
    tree_advance,
    write_new_key,
)
from audit.models import Event
from audit.presenting.commands import BackOfficeCommand
from audit.record import signing
from audit.record.money import format_number
from audit.store.event_ids import with_ids


class Command(BackOfficeCommand):
    help = gettext_lazy(
        "Sign a tree head of the whole record (the RFC 9162 Merkle root of every event, each "
        "stream's head, the time) with DIGEST_SIGNING_KEY, append it to audit.digests and hand it "
        "to each of DIGEST_PUBLISHERS; or --new-key PATH: make a signing key; or --proof EVENT_ID: print an "
        "event's inclusion proof against the latest signed head."
    )

    exit_codes = {
        0: gettext_lazy("done (a head signed, a key made, a proof printed)"),
        1: gettext_lazy("a head signed and stored, but a publisher did not keep it (named)"),
        2: gettext_lazy(
            "bad input or nothing to sign: no key, an unusable key, an unknown event, an empty record"
        ),
    }

    def add_arguments(self, parser: Any) -> None:
        action = parser.add_mutually_exclusive_group()
        action.add_argument(
            "--new-key",
            metavar="PATH",
            help=_("write a new Ed25519 private key there (never overwrites)"),
        )
        action.add_argument(
            "--proof", metavar="EVENT_ID", help=_("the inclusion proof of this event, as JSON")
        )
        action.add_argument(
            "--advance",
            action="store_true",
            help=_("only bring the tree up to the record (no signing)"),
        )
        action.add_argument(
            "--if-needed",
            action="store_true",
            help=_("sign only if events other than heads came after the latest head"),
        )
        action.add_argument(
            "--follow",
            action="store_true",
            help=_(
                "the signer: sign a head whenever the record grew, at most every "
                "DIGEST_INTERVAL_MS, until stopped (SIGTERM, Ctrl-C); a deployment runs it as a "
                "process of its own"
            ),
        )

    def handle(
        self,
        *args: Any,
        new_key: str | None,
        proof: str | None,
        advance: bool,
        if_needed: bool = False,
        follow: bool = False,
        **options: Any,
    ) -> None:
        try:
            if new_key:
                try:
                    key = write_new_key(Path(new_key))
                except FileExistsError:
                    raise CommandError(
                        _("digest: %(path)s exists; a key is never overwritten")
                        % {"path": new_key},
                        returncode=2,
                    ) from None
                except OSError as error:
                    raise CommandError(
                        f"digest: {new_key}: {error.strerror}", returncode=2
                    ) from None
                public = key.public_key()
                self.stdout.write(
                    _("key %(key)s written to %(path)s (keep it secret); its public key:")
                    % {"key": signing.key_id(public), "path": new_key}
                )
                self.stdout.write(signing.public_pem(public))
                return
            if proof:
                event = Event.objects.filter(with_ids([proof])).first()  # text that is no id: none
                if event is None:
                    raise CommandError(
                        _("digest: --proof %(event)s: no such event") % {"event": repr(proof)},
                        returncode=2,
                    )
                self.stdout.write(json.dumps(inclusion_proof_of([event]), indent=2))
                return
            if advance:
                state = tree_advance()
                self.stdout.write(
                    ngettext(
                        "the tree holds %(size)s events (up to position %(position)s)",
                        "the tree holds %(size)s events (up to position %(position)s)",
                        state.size,
                    )
                    % {"size": format_number(state.size), "position": state.position}
                )
                return
            if follow:
                self._follow()
                return
            if if_needed:
                done = digest_sign_if_needed(strict=True)
                if done is None:
                    self.stdout.write(
                        _("the latest signed head covers every event but heads: nothing to sign")
                    )
                    return
                sth, stored = done
            else:
                sth, stored = digest_sign(strict=True)
        except DigestError as error:
            raise CommandError(f"digest: {error}", returncode=2) from None
        except Unpublished as missing:
            self._signed(missing.sth, missing.stored)
            raise CommandError(
                _("digest: signed and stored, but not published to: %(publishers)s")
                % {"publishers": missing},
                returncode=1,
            ) from None
        self._signed(sth, stored)

    def _follow(self) -> None:
        signing_key()  # no key: exit 2 now, not a log line a second
        stopping = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stopping.set())
        interval = settings.DIGEST_INTERVAL_MS / 1000
        self.stdout.write(
            _(
                "signer: a head at most every %(interval)s s while the record grows; stop with SIGTERM"
            )
            % {"interval": f"{interval:g}"}
        )
        try:
            count = sign_following(interval=interval, stop=stopping.is_set)
        except KeyboardInterrupt:
            return
        self.stdout.write(
            ngettext(
                "signer: stopped after %(count)s heads",
                "signer: stopped after %(count)s heads",
                count,
            )
            % {"count": format_number(count)}
        )

    def _signed(self, sth: signing.SignedTreeHead, stored: Event | None) -> None:
        said = {
            "size": format_number(sth.size),
            "root": sth.root.hex(),
            "streams": len(sth.streams),
            "key": sth.key_id,
        }
        if stored is None:
            self.stdout.write(
                _("signed head: %(size)s events, root %(root)s, %(streams)d streams, key %(key)s")
                % said
            )
            return
        self.stdout.write(
            _(
                "signed head: %(size)s events, root %(root)s, %(streams)d streams, key %(key)s; "
                "stored as %(stream)s v%(version)s"
            )
            % {**said, "stream": stored.stream, "version": stored.version}
        )

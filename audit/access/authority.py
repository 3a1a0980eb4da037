"""Who may change money, where the record is written and where it is read.

The catalogue names the types that change money after the fact and the permission each
needs (``audit.record.events.AUTHORITY``: a round's correction or void needs
``audit.correct_round``, a fill or credit slip's void ``audit.void_slip``; the pit boss's
group holds both). They are recorded only under a person's principal holding it:

- **the API** (:func:`check_append_authority`): a person's token or login with the
  permission (a superuser holds every one); never a table device, whatever its payload's
  ``authorised_by`` says (403 naming the event);
- **ingest** (:func:`ingest_authority`): a file's money-changing lines are stored only
  when the command runs for a person holding the permission (``ingest --as USERNAME``);
  otherwise each is a bad line;
- **the folds** (:func:`refused_events`): whatever is stored - an event from before these
  checks, or a row a database administrator slipped in - the engine's replay and the
  ledger's books apply a money-changing event only when its stored principal is a
  person's or the server's and its server seal holds (the pure rule:
  :mod:`audit.record.authority`); otherwise they report it and leave the money as it was.

What happens away from the table - the count room's count of a drop box, the cage's
steps (a fill issued, a credit received, a marker redeemed), accounting's posting of a
drop (``audit.record.events.OFF_TABLE``) - is never a table device's to record: a device
speaks for its own table. Through the API a person records it holding the type's
permission (the groups ``count_team``, ``cage``, ``accounting``); the store refuses one
under a device's principal from any caller; ingest, an operator's load of a file
recorded elsewhere, stores it under the ingest's own principal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from audit.models import Event
from audit.record.authority import person_of, refused
from audit.record.corrections import struck_events
from audit.record.events import AUTHORITY, OFF_TABLE, PLACES
from audit.store.errors import StoreError
from audit.store.seals import seal_holds

from .authority_seal import KIND as AUTHORITY_UNSEALED
from .authority_seal import authority_problem, authority_refusal

APPEND = "audit.append_event"


class NotAllowed(StoreError):
    """An action on money or a finding - signing a day off, setting a rate, recording a
    slip book, working a finding - by a device, or by a person without the permission
    (HTTP 403)."""

    http_status = 403
    code = "permission_denied"


def require_person(user: Any, permission: str, doing: str) -> None:
    """Refuse (NotAllowed) unless ``user`` is a person - not a table device - holding
    ``permission``, whose authority holds its seal (else AuthorityUnsealed). The services
    call it themselves, so that no path (a command, a task, a screen written tomorrow)
    reaches them on the API's or the admin's check alone."""
    from .devices import device_of  # devices reads the store; this module is read by it

    # what has_perm reads is only the person's if it holds its seal (audit.access.authority_seal)
    refusal = authority_refusal(user)
    if refusal is not None:
        raise AuthorityUnsealed(refusal)
    holds = getattr(user, "has_perm", None)
    if device_of(user) is not None or holds is None or not holds(permission):
        name = getattr(user, "get_username", lambda: str(user))()
        raise NotAllowed(f"{name} may not {doing}: that needs a person holding {permission}.")


class AuthorityUnsealed(NotAllowed):
    """A person whose authority does not hold its seal (audit.access.authority_seal), HTTP 403."""

    code = AUTHORITY_UNSEALED


class NotAuthorised(StoreError):
    """An event the appending principal may not record (HTTP 403), named by its place."""

    http_status = 403
    code = "not_authorised"

    def __init__(self, index: int, message: str) -> None:
        super().__init__(f"events[{index}].type: {message}")
        self.index = index

    def as_dict(self) -> dict[str, object]:
        return {**super().as_dict(), "errors": {f"events[{self.index}].type": [str(self)]}}


# type -> the permission a person needs to record it as such: the money-changing types'
# and the types recorded away from the table
_OWN_PERMISSION: dict[str, str] = {**AUTHORITY, **OFF_TABLE}


def may_append_something(user: Any) -> bool:
    """Whether a person may append anything at all: the append permission, or one of the
    money-changing types' (a pit boss records corrections and voids, nothing else), or of
    the types recorded away from the table (the count team its counts, the cage its
    steps, accounting its postings)."""
    return bool(
        user.has_perm(APPEND) or any(user.has_perm(p) for p in set(_OWN_PERMISSION.values()))
    )


def check_append_authority(user: Any, types: Iterable[object], *, device: bool) -> None:
    """Refuse (NotAuthorised) the first event of a batch - given by its ``type``, as sent:
    checked before the batch is, so that who may not append learns nothing more - that its
    appender may not record: a money-changing type, or one recorded away from the table,
    from a table device or from a person without its permission; any other type from a
    person without ``audit.append_event``."""
    for index, type_name in enumerate(types):
        needed = AUTHORITY.get(type_name) if isinstance(type_name, str) else None
        place = OFF_TABLE.get(type_name) if isinstance(type_name, str) else None
        if needed is not None:
            if device:
                raise NotAuthorised(
                    index,
                    f"{type_name} changes money after the fact: a table device never "
                    f"records it (a name in its payload authorises nothing); a person "
                    f"holding the permission {needed} does",
                )
            if not user.has_perm(needed):
                raise NotAuthorised(
                    index,
                    f"{type_name} changes money after the fact: recording it needs the "
                    f"permission {needed}",
                )
        elif place is not None:
            if device:
                raise NotAuthorised(
                    index,
                    f"{type_name} is recorded by {PLACES[place]}, not at a table: a table "
                    f"device never records it; a person holding the permission {place} does",
                )
            if not user.has_perm(place):
                raise NotAuthorised(
                    index,
                    f"{type_name} is recorded by {PLACES[place]}: recording it needs the "
                    f"permission {place}",
                )
        elif not device and not user.has_perm(APPEND):
            may = ", ".join(sorted(t for t, p in _OWN_PERMISSION.items() if user.has_perm(p)))
            raise NotAuthorised(
                index,
                f"recording {type_name if isinstance(type_name, str) else 'this event'} "
                f"needs the permission {APPEND} (this account may record only {may})",
            )


def person_for_ingest(username: str) -> Any:
    """The active person ``username`` an ingest runs for (``--as``); LookupError saying
    why not (no such user, inactive, a table device, an authority that does not hold its
    seal)."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise LookupError(f"--as {username}: no such user")
    if not user.is_active:
        raise LookupError(f"--as {username}: the user is not active")
    if getattr(user, "device_account", None) is not None:
        raise LookupError(f"--as {username}: a table device, not a person")
    refusal = authority_refusal(user)
    if refusal is not None:
        raise LookupError(f"--as {username}: {refusal}")
    return user


def ingest_authority(principal: str) -> frozenset[str]:
    """The money-changing types an ingest under ``principal`` may store: those whose
    permission the person it runs for holds now (none for an ingest for no one, or for a
    person whose authority does not hold its seal)."""
    name = person_of(principal)
    if name is None:
        return frozenset()
    user = get_user_model().objects.filter(username=name, is_active=True).first()
    if user is None or authority_problem(user) is not None:
        return frozenset()
    return frozenset(t for t, permission in AUTHORITY.items() if user.has_perm(permission))


def refused_events(stream: str, low: int, high: int) -> dict[str, str]:
    """The money-changing events of ``stream``'s versions ``low``..``high`` that no fold
    may apply (id -> why): the pure rule (:func:`audit.record.authority.refused`) over their
    stored principals, each seal checked. A few rows a day, found by their type."""
    rows = Event.objects.filter(
        Q(stream=stream, version__gte=low, version__lte=high, type__in=list(AUTHORITY))
    )
    return refused(
        (str(event_id), type_name, principal, seal_holds(digest, principal, seal))
        for event_id, type_name, principal, seal, digest in rows.values_list(
            "event_id", "type", "principal", "seal", "hash"
        ).iterator()
    )


def struck_and_refused(stream: str, low: int, high: int) -> tuple[set[str], dict[str, str]]:
    """The ids of the events that the corrections in ``stream``'s versions ``low``..``high``
    strike (``corrects`` and no settlements: every fold skips them), and the money-changing
    events there no fold may apply (id -> why; :func:`refused_events`): a refused
    correction strikes nothing."""
    refused = refused_events(stream, low, high)
    rows = Event.objects.filter(
        stream=stream, type="correction.recorded", version__gte=low, version__lte=high
    ).values_list("event_id", "payload")
    struck = struck_events(
        {"type": "correction.recorded", "payload": p} for i, p in rows if str(i) not in refused
    )
    return struck, refused


def unreadable_opening_struck(stream: str, version: int) -> bool:
    """Whether the ``table.opened`` at ``version`` of ``stream`` - one whose gaming day no
    reader can take, stored past the catalogue's check - is struck by a correction after
    it: the day readers then leave it out (as every fold skips a struck event), so that
    the strike takes a table set aside for it back. Asked only of such an opening."""
    found = (
        Event.objects.filter(stream=stream, version=version)
        .values_list("event_id", flat=True)
        .first()
    )
    if found is None:
        return False
    head = (
        Event.objects.filter(stream=stream)
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
        or 0
    )
    return str(found) in struck_and_refused(stream, version + 1, head)[0]

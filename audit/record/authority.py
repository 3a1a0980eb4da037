"""Who may change money: the rule every fold of the record applies to the catalogue's
money-changing types (``AUTHORITY``: corrections, voids), as the door applies it when
they are appended; and the rule the store applies to what happens away from the table
(``OFF_TABLE``: the count room's, the cage's, accounting's types), which no table
device's principal records (:func:`place_problem`).

The store records with each row the **principal** it authenticated (``device:<user>``,
``user:<user>``, ``server:<service>``, ``ingest:<who ran it>``, ``ingest:<who> as
user:<person>`` for a file ingested for a person) and seals it (``audit.store.seals``). The door
lets a money-changing event in only under a person's principal holding the type's
permission (the API's token or login, ``ingest --as``) or the server's own; so a
money-changing event whose stored principal is a device's, an ingest's for no one, or none
at all (stored before principals were kept), or whose seal does not hold (a row slipped in
past the store), was never authorised: a fold does not apply it and reports it instead
(``unauthorised_change`` of a round, ``unauthorised_void`` of a slip). A name in the
payload (``authorised_by``) authorises nothing.

Pure: the Django shell checks the seals (the key is the application's) and hands the folds
the ids this rule refuses (:func:`refused`), as it hands them the ids corrections strike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .events import AUTHORITY, OFF_TABLE, PLACES

PERSON = "user:"
SERVER = "server:"
DEVICE = "device:"
INGEST = "ingest:"
# an ingest run for a person: ``ingest:<who ran it> as user:<person>``
_AS = " as " + PERSON


def ingest_principal(runner: str, person: str | None) -> str:
    """The principal of an ingest run by ``runner`` (the operating system's user), for
    ``person`` (``ingest --as``) or for no one."""
    return f"{INGEST}{runner}" if person is None else f"{INGEST}{runner}{_AS}{person}"


def person_of(principal: str | None) -> str | None:
    """The user name of the person ``principal`` speaks for: ``user:<name>``, or an ingest
    run for them; None for a device, the server, an ingest for no one, or no principal."""
    if principal is None:
        return None
    if principal.startswith(PERSON):
        return principal[len(PERSON) :] or None
    if principal.startswith(INGEST) and _AS in principal:
        return principal.rpartition(_AS)[2] or None
    return None


def authority_problem(type_name: str, principal: str | None) -> str | None:
    """Why an event of ``type_name`` stored under ``principal`` may not change money, or
    None when it may (it is no money-changing type, or a person's or the server's)."""
    if type_name not in AUTHORITY:
        return None
    return principal_problem(principal)


def place_problem(type_name: str, principal: str | None) -> str | None:
    """Why an event of ``type_name`` may not be stored under ``principal`` because it
    happens away from the table (the catalogue's ``OFF_TABLE``: the count room's, the
    cage's, accounting's) and ``principal`` is a table device's, which speaks for its own
    table only; None when it may."""
    permission = OFF_TABLE.get(type_name)
    if permission is None or principal is None or not principal.startswith(DEVICE):
        return None
    return (
        f"{type_name} is recorded by {PLACES[permission]}, not at a table: the table device "
        f"{principal[len(DEVICE) :]} never records it"
    )


def principal_problem(principal: str | None) -> str | None:
    """Why a money-changing event stored under ``principal`` may not change money, or None
    when it may (a person's or the server's)."""
    if principal is None:
        return "it was stored before the store recorded who appended each event"
    if principal.startswith(SERVER) or person_of(principal) is not None:
        return None
    if principal.startswith(DEVICE):
        return f"it was recorded by the table device {principal[len(DEVICE) :]}, not by a person holding the role"
    return f"it was recorded as {principal}, not by a person holding the role"


def refused(rows: Iterable[tuple[str, str, str | None, bool]]) -> dict[str, str]:
    """Of ``rows`` - (event id, type, principal, whether its seal holds) - the ids of the
    money-changing events no fold may apply, each with why."""
    out = {}
    for event_id, type_name, principal, sealed in rows:
        if type_name not in AUTHORITY:
            continue
        why = authority_problem(type_name, principal)
        if why is None and not sealed:
            why = "its server seal does not hold (a row written past the store)"
        if why is not None:
            out[str(event_id)] = why
    return out


def refused_of(authority: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The rule over a package's record of its money-changing events (the manifest's
    ``authority``: id -> its ``principal`` and whether its server seal held when it was
    exported): the ids no fold may apply, each with why."""
    out = {}
    for event_id, said in authority.items():
        why = principal_problem(said.get("principal"))
        if why is None and not said.get("sealed"):
            why = "its server seal does not hold (a row written past the store)"
        if why is not None:
            out[str(event_id)] = why
    return out


def applicable(
    events: Iterable[Mapping[str, Any]], refused_ids: Mapping[str, str]
) -> Iterable[Mapping[str, Any]]:
    """``events`` without the ones refused (what :func:`audit.record.corrections.struck_events`
    may read: a refused correction strikes nothing)."""
    if not refused_ids:
        return events
    return (e for e in events if str(e.get("id")) not in refused_ids)

"""Authority seals: who a person is and what they may do, sealed by the application.

The rows that make a person's authority - the user's name, flags (``is_active``,
``is_staff``, ``is_superuser``) and password hash, their groups and each group's
permissions, their own permissions, their live API tokens (key id, digest, expiry) and
their device account - are writable by the application's database role, as every read
model is. Left at that, the role could make itself any person: a token row of its own
for a pit boss, a password hash it knows, a group membership, ``is_superuser``. So the
application seals what it writes: whenever it changes any of those rows (Django's
``post_save``, ``post_delete`` and ``m2m_changed`` on the users, groups, permissions,
tokens and device accounts, :func:`connect`; a token's revocation, :func:`authority_change`)
it writes a new **generation** of the person's :class:`~audit.models.AuthoritySeal`: the
whole authority as canonical JSON and an HMAC over it under the seal key
(:mod:`audit.store.seals`, principal ``authority:<user id>``), which no database role holds.

Checked where the authority is used: the API's token authentication, every request of a
session (the admin's and the API's), the admin's login form, the services'
``audit.access.authority.require_person`` and ``ingest --as``. A person whose authority differs
from its latest seal, or whose latest seal was not made with the seal key, or who has
none, is refused (403 ``authority_unsealed``, naming what changed) and a critical
``authority_unsealed`` finding is recorded; ``verify`` (and the periodic verification)
names every such person. The check is one query (:func:`_read`), done once per user
object: a request's user is checked once however many checks it passes.

Re-sealing follows what held: the application re-seals a person after a change only if
the seal held before it, so a change it makes (a password changed, a token issued) never
launders one made past it. After a change made on purpose outside the application (a
fix in the database, a migration that changes a group's permissions: :func:`reseal_group_members`),
an operator holding the seal key re-seals with ``manage.py authority_seal``. The seal rows
are append-only (the database refuses an UPDATE; the application's role may not DELETE):
the latest generation counts, so an older seal - of a token since revoked, of a role
since taken away - cannot be put back.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, connection, transaction
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete, pre_save
from django.utils.dateparse import parse_datetime

from audit.models import ApiToken, AuthoritySeal, DeviceAccount
from audit.record.chain import canonical_json, format_timestamp
from audit.store.seals import seal_holds, seal_of

log = logging.getLogger(__name__)

KIND = "authority_unsealed"
COMMAND = "manage.py authority_seal"
# the user fields a save may change without changing the authority (a login's last_login)
_SEALED_FIELDS = frozenset({"username", "password", "is_active", "is_staff", "is_superuser"})


def _principal(user_id: int) -> str:
    """The seal's principal: never one of an event's (device:, user:, server:, ingest:)."""
    return f"authority:{user_id}"


def _sealed_hash(user_id: int, generation: int, text: str) -> str:
    return hashlib.sha256(f"{user_id}|{generation}|{text}".encode()).hexdigest()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Sealed:
    generation: int
    seal: str
    text: str  # the canonical JSON sealed


def _moment(value: object) -> str:
    """A token's expiry as the record writes times (UTC, microseconds), whatever the
    database's driver returns for it in a UNION (SQLite: text)."""
    moment = parse_datetime(value) if isinstance(value, str) else value
    if not isinstance(moment, datetime):
        raise TypeError(f"not a timestamp: {value!r}")
    return format_timestamp(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


def _sql(user_ids: Collection[int] | None) -> tuple[str, list[object]]:
    """One query for the authority of ``user_ids`` (every user with None) and the latest
    seal of each: rows of (user id, kind, a, b, c, expiry). The tokens come first so that
    PostgreSQL gives the expiry column their type (a UNION resolves left to right)."""
    user = get_user_model()
    tables = {
        "user": user._meta.db_table,
        "user_groups": user.groups.through._meta.db_table,
        "group": Group._meta.db_table,
        "group_permissions": Group.permissions.through._meta.db_table,
        "permission": Permission._meta.db_table,
        "content_type": ContentType._meta.db_table,
        "user_permissions": user.user_permissions.through._meta.db_table,
        "token": ApiToken._meta.db_table,
        "device": DeviceAccount._meta.db_table,
        "seal": AuthoritySeal._meta.db_table,
    }
    params: list[object] = []

    def only(column: str) -> str:
        if user_ids is None:
            return "1 = 1"
        params.extend(user_ids)
        return f"{column} IN ({', '.join(['%s'] * len(user_ids))})"

    t = tables
    sql = " UNION ALL ".join(
        [
            (
                f"SELECT k.user_id, 't', k.key_id, k.digest, NULL, k.expires_at FROM {t['token']} k "
                f"WHERE k.revoked_at IS NULL AND {only('k.user_id')}"
            ),
            (
                f"SELECT u.id, 'u', u.username, u.password, "
                "CASE WHEN u.is_active THEN 'a' ELSE '-' END || CASE WHEN u.is_staff THEN 's' ELSE '-' END || "
                f"CASE WHEN u.is_superuser THEN 'S' ELSE '-' END, NULL FROM {t['user']} u WHERE {only('u.id')}"
            ),
            (
                f"SELECT ug.user_id, 'g', g.name, ct.app_label, p.codename, NULL FROM {t['user_groups']} ug "
                f"JOIN {t['group']} g ON g.id = ug.group_id "
                f"LEFT JOIN {t['group_permissions']} gp ON gp.group_id = g.id "
                f"LEFT JOIN {t['permission']} p ON p.id = gp.permission_id "
                f"LEFT JOIN {t['content_type']} ct ON ct.id = p.content_type_id WHERE {only('ug.user_id')}"
            ),
            (
                f"SELECT up.user_id, 'p', ct.app_label, p.codename, NULL, NULL FROM {t['user_permissions']} up "
                f"JOIN {t['permission']} p ON p.id = up.permission_id "
                f"JOIN {t['content_type']} ct ON ct.id = p.content_type_id WHERE {only('up.user_id')}"
            ),
            f"SELECT d.user_id, 'd', d.stream, NULL, NULL, NULL FROM {t['device']} d WHERE {only('d.user_id')}",
            (
                f"SELECT s.user_id, 's', CAST(s.generation AS TEXT), s.seal, s.authority, NULL FROM {t['seal']} s "
                f"WHERE s.generation = (SELECT MAX(l.generation) FROM {t['seal']} l WHERE l.user_id = s.user_id) "
                f"AND {only('s.user_id')}"
            ),
        ]
    )
    return sql, params


def _read(user_ids: Collection[int] | None) -> tuple[dict[int, dict[str, Any]], dict[int, Sealed]]:
    """Each user's authority as it stands (user id -> what a seal covers) and their
    latest seal. Users that do not exist (deleted) have no authority and are left out."""
    sql, params = _sql(user_ids)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    parts: dict[int, dict[str, Any]] = defaultdict(
        lambda: {"groups": defaultdict(list), "permissions": [], "tokens": {}, "device": None}
    )
    sealed: dict[int, Sealed] = {}
    for user_id, kind, a, b, c, expires in rows:
        part = parts[user_id]
        if kind == "u":
            part.update(
                username=a,
                password=_digest(b or ""),
                active="a" in c,
                staff="s" in c,
                superuser="S" in c,
            )
        elif kind == "g":
            permissions = part["groups"][a]
            if c is not None:
                permissions.append(f"{b}.{c}")
        elif kind == "p":
            part["permissions"].append(f"{a}.{b}")
        elif kind == "t":
            part["tokens"][a] = _digest(f"{b}|{_moment(expires)}")
        elif kind == "d":
            part["device"] = a
        elif kind == "s":
            sealed[user_id] = Sealed(generation=int(a), seal=b, text=c)
    authorities = {}
    for user_id, part in parts.items():
        if "username" not in part:
            continue  # a token or a seal of a user no longer there
        authorities[user_id] = {
            "username": part["username"],
            "active": part["active"],
            "staff": part["staff"],
            "superuser": part["superuser"],
            "password": part["password"],
            "groups": {name: sorted(permissions) for name, permissions in part["groups"].items()},
            "permissions": sorted(part["permissions"]),
            "tokens": part["tokens"],
            "device": part["device"],
        }
    return authorities, sealed


def _text(authority: dict[str, Any]) -> str:
    return canonical_json(authority).decode()


def _changes(was: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What differs between the sealed authority and the one that stands, in words."""
    said = []
    if was.get("username") != now.get("username"):
        said.append(f"user name {was.get('username')!r} when sealed, {now.get('username')!r} now")
    for key in ("active", "staff", "superuser"):
        if was.get(key) != now.get(key):
            said.append(
                f"{key}: {'yes' if was.get(key) else 'no'} when sealed, {'yes' if now.get(key) else 'no'} now"
            )
    if was.get("device") != now.get("device"):
        said.append(
            f"device of table {was.get('device') or 'none'} when sealed, {now.get('device') or 'none'} now"
        )
    if was.get("password") != now.get("password"):
        said.append("the password hash")
    groups_was, groups_now = was.get("groups", {}), now.get("groups", {})
    for name in sorted(set(groups_now) - set(groups_was)):
        said.append(f"in group {name!r}, not when sealed")
    for name in sorted(set(groups_was) - set(groups_now)):
        said.append(f"no longer in group {name!r}")
    for name in sorted(set(groups_was) & set(groups_now)):
        added = sorted(set(groups_now[name]) - set(groups_was[name]))
        removed = sorted(set(groups_was[name]) - set(groups_now[name]))
        if added or removed:
            said.append(
                f"group {name!r}'s permissions: "
                + ", ".join([f"+{p}" for p in added] + [f"-{p}" for p in removed])
            )
    own_was, own_now = set(was.get("permissions", [])), set(now.get("permissions", []))
    if own_was != own_now:
        said.append(
            "own permissions: "
            + ", ".join(
                [f"+{p}" for p in sorted(own_now - own_was)]
                + [f"-{p}" for p in sorted(own_was - own_now)]
            )
        )
    tokens_was, tokens_now = was.get("tokens", {}), now.get("tokens", {})
    for key_id in sorted(set(tokens_now) - set(tokens_was)):
        said.append(f"API token {key_id} not sealed")
    for key_id in sorted(set(tokens_was) - set(tokens_now)):
        said.append(f"API token {key_id} revoked or removed")
    for key_id in sorted(set(tokens_was) & set(tokens_now)):
        if tokens_was[key_id] != tokens_now[key_id]:
            said.append(f"API token {key_id}'s digest or expiry")
    return said or ["its sealed form differs"]


def _problem(user_id: int, authority: dict[str, Any], sealed: Sealed | None) -> str | None:
    """Why ``authority`` is not what the application last sealed (None when it is)."""
    if sealed is None:
        return "it has no authority seal (written past the application)"
    if not seal_holds(
        _sealed_hash(user_id, sealed.generation, sealed.text), _principal(user_id), sealed.seal
    ):
        return f"its latest authority seal (generation {sealed.generation}) was not made with the seal key"
    if sealed.text == _text(authority):
        return None
    try:
        was = json.loads(sealed.text)
    except ValueError:
        was = {}
    return f"changed since it was sealed (generation {sealed.generation}): " + "; ".join(
        _changes(was, authority)
    )


def _line(user_id: int, username: str, problem: str) -> str:
    """verify's line, and the finding's message, for one person (the same at use)."""
    return (
        f"authority: user {username!r} (id {user_id}): {problem}; if that was done on purpose, re-seal it: "
        f"{COMMAND} {username}"
    )


# --- the check -------------------------------------------------------------------------------------


def _checked(user: Any) -> tuple[str, str] | None:
    """(verify's line, what is wrong) for ``user`` when their authority does not hold its
    seal, None when it does (and for an anonymous user: no authority to check). Read once
    per user object: a request's user is checked once, whatever checks it passes."""
    user_id = getattr(user, "pk", None)
    if user_id is None:
        return None
    memo = user.__dict__.get("_authority_checked")
    if memo is not None:
        return memo[0]
    authorities, sealed = _read([user_id])
    authority = authorities.get(user_id)
    found: tuple[str, str] | None
    if authority is None:
        found = (_line(user_id, user.get_username(), "no such user"), "no such user")
    else:
        problem = _problem(user_id, authority, sealed.get(user_id))
        found = (
            None if problem is None else (_line(user_id, authority["username"], problem), problem)
        )
    user.__dict__["_authority_checked"] = (found,)
    return found


def authority_problem(user: Any) -> str | None:
    """verify's line for ``user`` when their authority does not hold its seal, None when
    it does."""
    checked = _checked(user)
    return None if checked is None else checked[0]


def authority_changes(user: Any) -> str | None:
    """What is wrong with ``user``'s authority against its seal, None when it holds."""
    checked = _checked(user)
    return None if checked is None else checked[1]


def authority_refusal(user: Any) -> str | None:
    """What to tell ``user`` when their authority does not hold its seal (None when it
    does), having recorded the critical finding compliance works from."""
    checked = _checked(user)
    if checked is None:
        return None
    _record(checked[0])
    return (
        f"The authority of {user.get_username()} does not hold its seal: {checked[1]}. It is refused "
        "until an operator seals it again; compliance has been told (a critical finding)."
    )


def _record(line: str) -> None:
    """The finding ``authority_unsealed`` for ``line``, at most once a minute per process
    and person (the periodic verification records it too, and supersedes it once the
    person is sealed again). Inside a transaction that the refusal then rolls back (a
    service's), the finding goes with it; the periodic verification finds it still."""
    from django.core.cache import cache

    from audit.findings.workflow import IntegrityProblem, findings_record_integrity

    if not cache.add(f"authority-finding:{_digest(line)}", True, 60):
        return
    try:
        findings_record_integrity(
            problems=[
                IntegrityProblem(
                    kind=KIND, stream="", version=None, position=None, event_id="", message=line
                )
            ],
            supersede=False,
        )
    except DatabaseError:
        # the refusal matters more than its finding: never a 5xx for want of one
        log.exception("the finding %s could not be recorded: %s", KIND, line)


def authority_problems() -> list[str]:
    """verify's line for every person whose authority does not hold its seal."""
    authorities, sealed = _read(None)
    lines = []
    for user_id in sorted(authorities):
        problem = _problem(user_id, authorities[user_id], sealed.get(user_id))
        if problem is not None:
            lines.append(_line(user_id, authorities[user_id]["username"], problem))
    return lines


# --- sealing ---------------------------------------------------------------------------------------


def authority_seal(
    user_ids: Iterable[int], *, reason: str, now: datetime | None = None
) -> list[int]:
    """Seal the authority of ``user_ids`` as it stands now: a new generation each (the
    users' rows locked meanwhile, so two sealings of one person take turns). Returns the
    ids sealed (those that exist). What the application calls after it changed a
    person's authority - through :func:`authority_change`, which seals only those whose
    seal held before - and what ``manage.py authority_seal`` calls after a change made on
    purpose outside it."""
    wanted = sorted(set(user_ids))
    if not wanted:
        return []
    now = now or datetime.now(UTC)
    with transaction.atomic():
        locked = list(
            get_user_model()
            .objects.select_for_update()
            .filter(pk__in=wanted)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        authorities, sealed = _read(locked)
        rows = []
        for user_id in locked:
            text, latest = _text(authorities[user_id]), sealed.get(user_id)
            if (
                latest is not None
                and latest.text == text
                and _problem(user_id, authorities[user_id], latest) is None
            ):
                continue  # sealed as it stands already (a save that changed nothing sealed)
            generation = (latest.generation if latest is not None else 0) + 1
            rows.append(
                AuthoritySeal(
                    user_id=user_id,
                    generation=generation,
                    authority=text,
                    sealed_at=now,
                    reason=reason[:120],
                    seal=seal_of(_sealed_hash(user_id, generation, text), _principal(user_id)),
                )
            )
        AuthoritySeal.objects.bulk_create(rows)
    return locked


def _holding(user_ids: Iterable[int]) -> set[int]:
    """Those of ``user_ids`` whose authority holds its seal now."""
    wanted = set(user_ids)
    if not wanted:
        return set()
    authorities, sealed = _read(wanted)
    return {
        user_id
        for user_id, authority in authorities.items()
        if _problem(user_id, authority, sealed.get(user_id)) is None
    }


@contextmanager
def authority_change(user_ids: Iterable[int], *, reason: str) -> Iterator[None]:
    """Around a change of the authority of ``user_ids`` that sends no signal (a
    QuerySet's ``update``): re-seal afterwards those whose seal held before it, and only
    those - a change the application makes never seals one made past it."""
    held = _holding(user_ids)
    yield
    authority_seal(held, reason=reason)


# --- the application's own changes: Django's signals ------------------------------------------------


def _group_members(group_ids: Iterable[int]) -> set[int]:
    through = get_user_model().groups.through
    return set(
        through.objects.filter(group_id__in=list(group_ids)).values_list("user_id", flat=True)
    )


def _permission_holders(permission_ids: Iterable[int]) -> set[int]:
    ids = list(permission_ids)
    user = get_user_model()
    direct = user.user_permissions.through.objects.filter(permission_id__in=ids).values_list(
        "user_id", flat=True
    )
    groups = Group.permissions.through.objects.filter(permission_id__in=ids).values_list(
        "group_id", flat=True
    )
    return set(direct) | _group_members(groups)


def _affected(instance: Any) -> set[int]:
    """The users whose authority a save or delete of ``instance`` changes."""
    if isinstance(instance, Group):
        return _group_members([instance.pk])
    if isinstance(instance, Permission):
        return _permission_holders([instance.pk])
    if isinstance(instance, (ApiToken, DeviceAccount)):
        return {instance.user_id}
    return {instance.pk}


def _stash(instance: Any, key: str, held: set[int]) -> None:
    instance.__dict__.setdefault("_authority_held", {})[key] = held


def _unstash(instance: Any, key: str) -> set[int]:
    return instance.__dict__.get("_authority_held", {}).pop(key, set())


def _before_save(
    sender: type, instance: Any, update_fields: Collection[str] | None = None, **kwargs: Any
) -> None:
    if instance._state.adding or instance.pk is None:
        return
    if (
        sender is get_user_model()
        and update_fields is not None
        and not _SEALED_FIELDS & set(update_fields)
    ):
        return  # a login's last_login: nothing sealed changes
    _stash(instance, "save", _holding(_affected(instance)))


def _after_save(sender: type, instance: Any, created: bool = False, **kwargs: Any) -> None:
    what = f"{sender._meta.verbose_name} {'created' if created else 'changed'}"
    if created and sender is get_user_model():
        authority_seal([instance.pk], reason=what)  # a new person: nothing to have held before
    elif created:
        _seal_new(instance, what)
    else:
        authority_seal(_unstash(instance, "save"), reason=what)


def _seal_new(instance: Any, reason: str) -> None:
    """A new token or device account of a person: sealed when the person's seal held
    just before it (the row is there now, so ask of it without the new row)."""
    if not isinstance(instance, (ApiToken, DeviceAccount)):
        return  # a new group or permission: no one holds it yet
    user_id = instance.user_id
    authorities, sealed = _read([user_id])
    authority = authorities.get(user_id)
    if authority is None:
        return
    before = dict(authority)
    if isinstance(instance, ApiToken):
        before["tokens"] = {k: v for k, v in authority["tokens"].items() if k != instance.key_id}
    else:
        before["device"] = None
    if _problem(user_id, before, sealed.get(user_id)) is None:
        authority_seal([user_id], reason=reason)


def _before_delete(sender: type, instance: Any, **kwargs: Any) -> None:
    _stash(instance, "delete", _holding(_affected(instance)))


def _after_delete(sender: type, instance: Any, **kwargs: Any) -> None:
    authority_seal(_unstash(instance, "delete"), reason=f"{sender._meta.verbose_name} deleted")


def _m2m_affected(sender: type, instance: Any, reverse: bool, pk_set: set[int] | None) -> set[int]:
    user = get_user_model()
    if sender is Group.permissions.through:
        if not reverse:  # a group's permissions
            return _group_members([instance.pk])
        groups = (
            pk_set
            if pk_set is not None
            else set(
                Group.permissions.through.objects.filter(permission_id=instance.pk).values_list(
                    "group_id", flat=True
                )
            )
        )
        return _group_members(groups)
    if not reverse:  # a user's groups or permissions
        return {instance.pk}
    if pk_set is not None:
        return set(pk_set)
    # a group's or a permission's users, cleared
    return (
        _group_members([instance.pk])
        if sender is user.groups.through
        else _permission_holders([instance.pk])
    )


def _m2m(
    sender: type,
    instance: Any,
    action: str,
    reverse: bool,
    pk_set: set[int] | None = None,
    **kwargs: Any,
) -> None:
    stage, _, what = action.partition("_")
    if pk_set is not None and not pk_set:
        return  # nothing added or removed
    key = f"m2m:{sender._meta.db_table}:{what}"
    if stage == "pre":
        _stash(instance, key, _holding(_m2m_affected(sender, instance, reverse, pk_set)))
    else:
        authority_seal(_unstash(instance, key), reason=f"{sender._meta.db_table} {what}")


def reseal_group_members(
    group_names: Iterable[str], change: Callable[[], None], *, reason: str
) -> None:
    """Run ``change`` (a data migration's change of these groups' permissions, made
    through its historical models, which send no signal the application listens to) and
    re-seal the members whose seal held before it."""
    groups = Group.objects.filter(name__in=list(group_names)).values_list("pk", flat=True)
    with authority_change(_group_members(groups), reason=reason):
        change()


_UID = "audit.authority_seal"


def connect() -> None:
    """Seal what the application writes: every save, delete and membership change of
    the rows a person's authority is made of (audit.apps)."""
    user = get_user_model()
    for model in (user, Group, Permission, ApiToken, DeviceAccount):
        label = model._meta.label
        pre_save.connect(_before_save, sender=model, dispatch_uid=f"{_UID}.pre_save.{label}")
        post_save.connect(_after_save, sender=model, dispatch_uid=f"{_UID}.post_save.{label}")
        if model is not user:  # a deleted user has no authority left to seal
            pre_delete.connect(
                _before_delete, sender=model, dispatch_uid=f"{_UID}.pre_delete.{label}"
            )
            post_delete.connect(
                _after_delete, sender=model, dispatch_uid=f"{_UID}.post_delete.{label}"
            )
    for through in (user.groups.through, user.user_permissions.through, Group.permissions.through):
        m2m_changed.connect(_m2m, sender=through, dispatch_uid=f"{_UID}.m2m.{through._meta.label}")


def seal_every_user(apps: Any, schema_editor: Any) -> None:
    """The data migration's step: seal every user's authority as it stands when the
    seals are introduced (what is there is what the operator had; from then on a change
    past the application shows)."""
    ids = list(
        apps.get_model(*get_user_model()._meta.label.split(".")).objects.values_list(
            "pk", flat=True
        )
    )
    for start in range(0, len(ids), 500):
        authority_seal(
            ids[start : start + 500], reason="the authority seals introduced (migration)"
        )

"""The demo - the README's main job: a simulated gaming day with planted faults, ingested,
replayed and summed up, and logins a newcomer can use at once.

Each step is one of the product's own commands (``simulate``, ``ingest``, ``replay_day``,
``verify``, ``export_package`` and the offline auditor's ``verify``), so the demo shows
them working, not a shortcut around them. Running it again is harmless: the same seed
makes the same events, ingest stores a file once and replay changes nothing the second
time; the package is made again, the same bytes.
"""

from __future__ import annotations

import io
import json
import secrets
import socket
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from audit.access.devices import device_ensure
from audit.models import Event, Finding
from audit.record.money import format_money, format_number, format_signed, not_available
from audit.store.roles import adopt_sql, create_roles_sql, grant_sql, privilege_problems
from auditor.check import verify_package
from tables.floor import result_of_handle_text
from tables.simulator.faults import KINDS as FAULT_KINDS

DEMO_USER = "demo"
# the person the demo's file is ingested for: its slips' voids change money, and ingest
# stores them only for a person holding the permission (ingest --as)
DEMO_PIT_BOSS = "demo-pit-boss"
# the demo's device token reads (and may append to) a table the demo day fills
DEMO_TABLE = "BJ-05"
DEMO_SEED = "2026-11-29"
# the day the faults' rounds are chosen for; a shorter day gets them at the same share
# of the day (round 40 of 400 is round 5 of 50)
DEMO_ROUNDS = 400
# bets a round on the live table (it-live, a game many bet on at once): a fifth of the
# simulator's default, so that the first run serves within a minute or so of its start
# while the live table still has some forty times the bets of the others
DEMO_LIVE_BETS = 50
# Two gaming days: the second, short (a tenth of the first, at least one round), is there
# for what only a table's next day shows - an opening count against the closing count
# before it, and the checks of a day's drop made once its table opens again (until then
# the count room may still count and post the box).
DEMO_DAYS = 2
# A fault of every kind the back-office finds in the record, each at its own table and
# round (or the first round after it where it can be planted: a short pay needs a
# winning bet, an insurance stake an ace up; a fill fault the next fill; a closing fault
# the day's close, an opening fault the next day's opening count). Replay finds the
# game's faults, the ledger the custody faults. Not in the demo (the tests plant and
# find it): ``tamper``, an attack the store refuses (``verify`` finds it past the
# triggers).
DEMO_FAULTS = (
    "short_pay@BJ-01:40",
    "overpay@BJ-02:60",
    "impossible_card@BJ-02:150",
    "dealer_stands_16@BJ-03:120",
    "duplicate_event@BJ-03:200",
    "dealer_draws_17@BJ-04:90",
    "natural_even_money@BJ-05:30",
    "card_out_of_sequence@BJ-06:50",
    "missing_event@BJ-07:70",
    "fill_twice@BJ-02:100",
    "fill_without_request@BJ-03:80",
    "fill_short@BJ-04:160",
    "fill_unfinished@BJ-05:220",
    "void_without_reason@BJ-06:240",
    "void_after_receipt@BJ-07:260",
    "chip_variance@BJ-02:300",
    "drop_mismatch@BJ-05:300",
    "wrong_face@BJ-02:180",
    "missing_stake@BJ-06:100",
    "insurance_without_decision@BJ-01:110",
    "drop_not_counted@BJ-03:300",
    "drop_not_posted@BJ-04:300",
    "closer_missing@BJ-07:300",
    # the first opening after round 400: the second day's
    "opener_mismatch@BJ-06:400",
)
# every fault kind the simulator plants but an attack on the chain
FOUND_IN_RECORD = frozenset(name for name, kind in FAULT_KINDS.items() if kind.check != "integrity")


@dataclass(frozen=True)
class DemoLogins:
    username: str
    password: str
    device_token: str
    device_table: str


@transaction.atomic
def demo_logins_ensure() -> DemoLogins:
    """Create (or reset) the demo superuser with a fresh password, and a device account
    for the demo table; return what to print."""
    password = secrets.token_urlsafe(9)
    user, _ = get_user_model().objects.get_or_create(username=DEMO_USER)
    user.is_staff = user.is_superuser = True
    user.set_password(password)
    user.save()
    device = device_ensure(stream=DEMO_TABLE)
    return DemoLogins(DEMO_USER, password, device.token, DEMO_TABLE)


@transaction.atomic
def demo_pit_boss_ensure() -> str:
    """The demo's pit boss (no password: no one logs in as them), in the pit_boss group
    where it exists and holding the group's money-changing permissions in any case (a
    test's flush empties the groups the migrations made); returns the user name."""
    from django.contrib.auth.models import Group, Permission

    from audit.record.events import AUTHORITY

    user, created = get_user_model().objects.get_or_create(username=DEMO_PIT_BOSS)
    if created:
        user.set_unusable_password()
        user.save()
    group = Group.objects.filter(name="pit_boss").first()
    if group is not None:
        user.groups.add(group)
    for permission in set(AUTHORITY.values()):
        app_label, codename = permission.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return DEMO_PIT_BOSS


def port_free(addr: str) -> str | None:
    """None when ``addr`` (``host:port`` or ``port``, as runserver takes it) can be served
    on; else why not (``Address already in use``)."""
    host, _, port = addr.rpartition(":")
    try:
        number = int(port)
    except ValueError:
        return _("%(port)r is not a port number") % {"port": port}
    with socket.socket(socket.AF_INET6 if ":" in (host or "") else socket.AF_INET) as probe:
        try:
            probe.bind((host.strip("[]") or "127.0.0.1", number))
        except OSError as error:
            return error.strerror or str(error)
    return None


def demo_faults(rounds: int) -> list[str]:
    """The demo's faults at the same share of a day of ``rounds`` rounds as of a day of
    :data:`DEMO_ROUNDS` (at least round 1)."""
    faults = []
    for text in DEMO_FAULTS:
        at, _, number = text.rpartition(":")
        faults.append(f"{at}:{max(1, int(number) * rounds // DEMO_ROUNDS)}")
    return faults


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def second_day_rounds(rounds: int) -> int:
    """Rounds per table on the demo's short second day."""
    return max(1, rounds // 10)


def gaming_days(manifest: dict[str, Any]) -> list[date]:
    """The gaming days a simulation's manifest covers (a seeded run's first day is its
    start's date)."""
    first = date.fromisoformat(manifest["start"][:10])
    return [first + timedelta(days=n) for n in range(manifest["days"])]


# the demo's steps, each announced on a line of its own before it runs (its results
# indented under it): a newcomer waiting on the first run sees what it is doing
STEPS = 5


def step_line(number: int, text: str) -> str:
    return f"{number}/{STEPS} {text}"


def _folder(folder: Path | None) -> Path:
    return folder or Path(settings.BASE_DIR) / "var" / "demo"


def _say(out: TextIO | None, line: str) -> None:
    if out is not None:
        out.write(f"{line}\n")
        out.flush()


def _run(name: str, *args: str, **options: Any) -> str:
    """What the product's command ``name`` printed on standard output."""
    said = io.StringIO()
    call_command(name, *args, stdout=said, stderr=io.StringIO(), **options)
    return said.getvalue()


def checkout_publisher_ready(*, now: datetime | None = None) -> str | None:
    """The checkout's own publisher of signed heads (``var/digests``, the default of a
    checkout), made on the first run. Where it holds the heads of an earlier database (the
    demo run again after ``db.sqlite3`` was removed, or on another ``DATABASE_URL``) and
    this database's store is empty, those heads are moved aside, kept, to a folder beside
    it: the new record's first head could never extend them, and the signer refuses to sign
    over a head it does not extend. A line saying so, or None. A deployment's publishers
    (any other) are never touched."""
    folder = Path(settings.BASE_DIR) / "var" / "digests"
    if str(folder) not in settings.DIGEST_PUBLISHERS:
        return None
    said = None
    if (folder / "latest.json").exists() and not Event.objects.exists():
        stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
        aside = folder.with_name(f"digests-before-{stamp}")
        folder.rename(aside)
        said = _(
            "the signed heads of an earlier database, in %(folder)s, moved to %(aside)s: "
            "this database's record starts its own"
        ) % {"folder": folder, "aside": aside.name}
    folder.mkdir(parents=True, exist_ok=True)
    return said


def demo_days_build(
    *, rounds: int, live_bets: int, folder: Path | None = None, out: TextIO | None = None
) -> dict[str, Any]:
    """Steps 2 to 4: simulate two gaming days of every preset with the demo's faults,
    ingest them, replay each and sign the record's head - each one of the product's
    commands, announced on ``out`` before it runs and its last line after; return the
    manifest of what was planted."""
    folder = _folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    events, manifest = folder / "days.jsonl", folder / "manifest.json"

    say = partial(_say, out)
    second = second_day_rounds(rounds)
    say(
        step_line(
            2,
            _(
                "simulating two gaming days: 7 tables, %(rounds)s each and %(second)s the next "
                "day, a fault of each kind planted"
            )
            % {"rounds": rounds_text(rounds), "second": rounds_text(second)},
        )
    )
    simulated = _run(
        "simulate",
        out=str(events),
        manifest=str(manifest),
        seed=DEMO_SEED,
        rounds=rounds,
        days=DEMO_DAYS,
        last_day_rounds=second,
        live_bets=live_bets,
        fault=demo_faults(rounds),
    )
    say(f"    simulate: {_last_line(simulated)}")
    say(step_line(3, _("ingesting them into the event store (the read models follow the appends)")))
    say(f"    ingest: {_last_line(_run('ingest', str(events), as_user=demo_pit_boss_ensure()))}")
    planted = json.loads(manifest.read_text())
    say(step_line(4, _("replaying them through the rules engine; signing the record's head")))
    # the feed's subscriber has projected the ingest already; replay_day checks it again
    # (its findings by kind are the summary's, below)
    for day in gaming_days(planted):
        replayed = _run("replay_day", day=day.isoformat()).splitlines()[:-1]
        say(
            ngettext(
                "    replay_day --day %(day)s: %(n)d tables replayed",
                "    replay_day --day %(day)s: %(n)d tables replayed",
                len(replayed),
            )
            % {"day": day, "n": len(replayed)}
        )
    # the head the signer (manage.py digest --follow) would sign within a second of the ingest
    say(f"    digest: {_last_line(_run('digest', if_needed=True))}")
    return planted


@dataclass(frozen=True)
class DemoPackage:
    """The regulator's package of the demo's days, and what the offline auditor made of it."""

    path: Path
    first: date  # its gaming days
    last: date


def demo_package_of(manifest: dict[str, Any], *, folder: Path | None = None) -> DemoPackage:
    """Where the regulator's package of the demo's days goes, and its days."""
    days = gaming_days(manifest)
    return DemoPackage(_folder(folder) / "package.zip", days[0], days[-1])


def demo_package_build(
    manifest: dict[str, Any], *, folder: Path | None = None, out: TextIO | None = None
) -> DemoPackage:
    """Step 5: ``verify`` the record's chains, then the regulator's package of the demo's
    gaming days (``export_package``: the record's head is signed as it is made, the
    demo's key made first where there is none), verified by the offline auditor
    (``blackjack-audit verify``'s own function): what a compliance officer hands over
    and what the regulator runs on it. The heaviest step (every event read three
    times): the demo runs it while it serves."""
    package = demo_package_of(manifest, folder=folder)

    say = partial(_say, out)
    say(f"    verify: {_last_line(_run('verify'))}")
    said = io.StringIO()  # (its summary is on stderr, beside its progress bar)
    call_command(
        "export_package",
        "--day",
        package.first.isoformat(),
        "--to",
        package.last.isoformat(),
        "--out",
        str(package.path),
        "--force",
        stdout=io.StringIO(),
        stderr=said,
    )
    say(f"    export_package: {_last_line(said.getvalue())}")
    # in this process: no worker forked from a process that holds the database
    outcome = verify_package(package.path, processes=1)
    say(f"    blackjack-audit verify: {outcome.summary[-1]}")
    return package


def ready_lines(
    logins: DemoLogins, package: DemoPackage, *, addr: str, served: bool, auditor: str
) -> list[str]:
    """What a newcomer needs once the demo is set up: the logins, and the floor, the
    findings and the API at ``addr`` where it serves - where it does not (``--no-serve``),
    the command that serves it instead of addresses nothing answers; then the offline
    auditor's commands on the regulator's package (``auditor``: how to run it)."""
    lines = []
    if served:
        base = f"http://{addr}"
        lines += [
            _("  the floor  %(url)s   login: %(username)s  password: %(password)s")
            % {
                "url": f"{base}/admin/",
                "username": logins.username,
                "password": logins.password,
            },
            _("  findings   %(url)s") % {"url": f"{base}/admin/audit/finding/"},
            _("  API docs   %(url)s") % {"url": f"{base}/api/docs/"},
        ]
    else:
        lines += [
            _(
                "  not served (--no-serve): python manage.py runserver serves it (the floor: "
                "the admin's home)"
            ),
            _("  login      %(username)s  password: %(password)s")
            % {"username": logins.username, "password": logins.password},
        ]
    lines.append(
        _("  device     table %(table)s, token %(token)s")
        % {"table": logins.device_table, "token": logins.device_token}
    )
    if served:
        lines.append(
            _("  try        %(command)s")
            % {
                "command": f"curl -H 'Authorization: Token {logins.device_token}' "
                f"'http://{addr}/api/streams/{logins.device_table}/events?limit=3'"
            }
        )
    lines += [
        _("  regulator  %(command)s   (gaming days %(first)s to %(last)s; offline, no Django)")
        % {
            "command": f"{auditor} verify {package.path}",
            "first": package.first,
            "last": package.last,
        },
        _("  recall     %(command)s")
        % {"command": f"{auditor} round {package.path} {logins.device_table} {package.first} 1"},
    ]
    return lines


@dataclass(frozen=True)
class FaultCheck:
    kind: str
    table: str
    where: str  # "round 40" (the engine's) or "gaming day 2026-11-29" (the ledger's)
    finding: str
    found: bool


def planted_faults_found(manifest: dict[str, Any]) -> list[FaultCheck]:
    """Each planted fault and whether an open (current) finding of the right kind stands
    where it must: on its table and round (replay's), or its table and gaming day (the
    ledger's)."""
    checks = []
    for fault in manifest["faults"]:
        want = fault["finding"]
        findings = Finding.objects.filter(
            stream=fault["table"], kind=want["kind"], superseded_by__isnull=True
        )
        if want["check"] == "engine":
            found, where = (
                findings.filter(round=want["round"]).exists(),
                _("round %(number)s") % {"number": want["round"]},
            )
        elif want["check"] == "ledger":
            found, where = (
                findings.filter(gaming_day=fault["gaming_day"]).exists(),
                _("gaming day %(day)s") % {"day": fault["gaming_day"]},
            )
        else:
            continue
        checks.append(FaultCheck(fault["kind"], fault["table"], where, want["kind"], found))
    return checks


def rounds_text(count: int) -> str:
    """``1 round``, ``1,470 rounds`` (the count the locale's way)."""
    return ngettext("%(n)s round", "%(n)s rounds", count) % {"n": format_number(count)}


def bets_text(count: int) -> str:
    return ngettext("%(n)s bet", "%(n)s bets", count) % {"n": format_number(count)}


def tables_text(count: int) -> str:
    return ngettext("%(n)s table", "%(n)s tables", count) % {"n": format_number(count)}


def summary_lines(
    days: list[date], checks: list[FaultCheck], not_planted: list[dict[str, Any]] = ()
) -> list[str]:
    """The demo's summary of its days: per gaming day, per table and in all (per
    currency), the rounds, bets, handle and the house result - recorded (what the
    settlements say; + the house won) beside recomputed (what the rules give) - and the
    recorded house result as a share of the handle (not the hold: the ledger's chip-count
    win over the drop), and the table-day's accounting state (the ledger's: incomplete
    with what it lacks, reconciled, ...); the findings by kind of both days, once; and
    which planted faults were found."""
    from ledger.models import Reconciliation
    from ledger.selectors import state_text
    from tables.selectors import day_summary

    lines: list[str] = []
    kinds: Counter[str] = Counter()
    for day in days:
        summary = day_summary(day)
        kinds.update(summary["findings_by_kind"])
        lines += [
            _("Gaming day %(day)s: %(rounds)s, %(bets)s on %(tables)s")
            % {
                "day": summary["gaming_day"],
                "rounds": rounds_text(summary["rounds"]),
                "bets": bets_text(summary["bets"]),
                "tables": tables_text(len(summary["tables"])),
            },
            "",
        ]
        lines += _header()
        states = {
            r.table.stream: state_text(r)
            for r in Reconciliation.objects.filter(gaming_day=day, shift="").select_related("table")
        }
        totals: dict[str, dict[str, int]] = {}
        for t in summary["tables"]:
            lines.append(
                _row(t["table"], t["ruleset"], t, t["currency"])
                + f"  {states.get(t['table'], not_available())}"
            )
            total = totals.setdefault(
                t["currency"],
                {
                    "rounds": 0,
                    "bets": 0,
                    "handle": 0,
                    "house_result": 0,
                    "house_result_recomputed": 0,
                    "findings": 0,
                },
            )
            for name in total:
                total[name] += t[name]
        for currency, total in sorted(totals.items()):
            lines.append(
                _row(
                    pgettext("demo summary row", "total"),
                    _("day, %(currency)s") % {"currency": currency},
                    total,
                    currency,
                )
            )
        lines.append("")
    lines.append(
        # xgettext:no-python-format
        _(
            "  (house result: + the house won; recorded is what the settlements say, recomputed "
            "what the rules give - they differ by the planted payout faults; % handle: the "
            "recorded house result over the handle, not the hold)"
        )
    )
    lines.append(
        _(
            "  (accounting: the table-day's state in the ledger - reconciled, counted with a "
            "variance not explained, incomplete and what it lacks, open while the table has not "
            "opened a later day, no drop box for the live game)"
        )
    )
    by_kind = ", ".join(
        f"{kind} {format_number(n)}" for kind, n in sorted(kinds.items())
    ) or pgettext("no findings", "none")
    lines += ["", _("  findings by kind, both days: %(kinds)s") % {"kinds": by_kind}]
    found = sum(c.found for c in checks)
    unplanted = sorted(FOUND_IN_RECORD - {c.kind for c in checks})
    if not unplanted:
        lines.append(
            _(
                "  planted faults found: %(found)d of %(planted)d, every one of the %(kinds)d "
                "kinds the back-office finds in a record (tamper, an attack the store refuses, "
                "is verify's)"
            )
            % {"found": found, "planted": len(checks), "kinds": len(FOUND_IN_RECORD)}
        )
    else:
        lines.append(
            _(
                "  planted faults found: %(found)d of %(planted)d, kinds not planted: %(kinds)s "
                "(tamper, an attack the store refuses, is verify's)"
            )
            % {"found": found, "planted": len(checks), "kinds": ", ".join(unplanted)}
        )
    for c in checks:
        mark = (
            pgettext("planted fault", "found") if c.found else pgettext("planted fault", "MISSED")
        )
        lines.append(
            _("    %(mark)s %(kind)s on %(table)s %(where)s -> %(finding)s")
            % {
                "mark": f"{mark:6}",
                "kind": c.kind,
                "table": c.table,
                "where": c.where,
                "finding": c.finding,
            }
        )
    for missed in not_planted:
        # the reason is the simulator's own text (English)
        lines.append(
            _("    (not planted: %(kind)s on %(table)s - %(reason)s)")
            % {"kind": missed["kind"], "table": missed["table"], "reason": missed["reason"]}
        )
    return lines


def _header() -> list[str]:
    """The summary's column names: short words, the widths fixed."""
    table, ruleset, rounds, bets, handle, result, recomputed, share, findings, accounting = (
        pgettext("demo summary column", "table"),
        pgettext("demo summary column", "rule set"),
        pgettext("demo summary column", "rounds"),
        pgettext("demo summary column", "bets"),
        pgettext("demo summary column", "handle"),
        pgettext("demo summary column", "house result"),
        pgettext("demo summary column", "recomputed"),
        # xgettext:no-python-format
        pgettext("demo summary column", "% handle"),
        pgettext("demo summary column", "findings"),
        pgettext("demo summary column", "accounting"),
    )
    recorded = pgettext("demo summary column", "(recorded)")
    return [
        (
            f"  {table:8} {ruleset:22} {rounds:>7} {bets:>8} {handle:>18} "
            f"{result:>16} {recomputed:>16} {share:>8} {findings:>8}  {accounting}"
        ),
        f"  {'':8} {'':22} {'':>7} {'':>8} {'':>18} {recorded:>16} {'':>16} {'':>8} {'':>8}",
    ]


def _row(name: str, ruleset: str, t: dict[str, int], currency: str) -> str:
    return (
        f"  {name:8} {ruleset:22} {format_number(t['rounds']):>7} {format_number(t['bets']):>8} "
        f"{format_money(t['handle'], currency):>18} "
        f"{format_signed(t['house_result'], currency):>16} "
        f"{format_signed(t['house_result_recomputed'], currency):>16} "
        f"{result_of_handle_text(t['house_result'], t['handle']):>8} {t['findings']:>8}"
    )


# --- PostgreSQL: the demo as the least-privilege roles (audit.store.roles) --------------------------

# the credentials DATABASE_URL gave (a superuser's) and the roles the demo went on as, while
# it runs as them: a second run in one process starts from the superuser again
_DEMO_ROLES: dict[str, Any] = {}


def _connect_as(user: str, password: str) -> None:
    """Later queries on this connection (and the server's threads' connections, which read
    the same settings) log in as ``user``."""
    connection.close()
    connection.settings_dict["USER"], connection.settings_dict["PASSWORD"] = user, password


def demo_database_ready() -> str | None:
    """Migrate the database. On PostgreSQL, as a superuser (what DATABASE_URL names in a
    sandbox), first set up the roles of :mod:`audit.store.roles` for this database - named after
    it, ``<db>_owner`` and ``<db>_app``, each with a fresh password - and hand what an
    earlier run migrated to the owner; migrate as the owner, grant the application role,
    and go on as the application role: the demo's steps and its server then hold only
    what the application may do. A line saying so (None on SQLite, where nothing changes)."""
    if connection.vendor != "postgresql":
        call_command("migrate", verbosity=0, interactive=False)
        return None
    user, password = _DEMO_ROLES.setdefault(
        "superuser", (connection.settings_dict["USER"], connection.settings_dict["PASSWORD"])
    )
    _connect_as(user, password)
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        superuser = cursor.fetchone()[0]
    if not superuser:
        call_command("migrate", verbosity=0, interactive=False)
        return _(
            "PostgreSQL as %(user)s, not a superuser: the demo cannot set up the owner and "
            "application roles and runs as it (manage.py db_roles)"
        ) % {"user": user}
    database = str(connection.settings_dict["NAME"])
    owner, app = f"{database}_owner", f"{database}_app"
    try:
        setup = [
            *create_roles_sql(owner=owner, app=app, database=database),
            *adopt_sql(owner=owner),
        ]
    except ValueError as error:
        raise CommandError(
            _("DATABASE_URL: the demo names its roles after the database: %(error)s")
            % {"error": error},
            returncode=2,
        ) from None
    passwords = {owner: secrets.token_hex(16), app: secrets.token_hex(16)}
    with connection.cursor() as cursor:
        for sql in setup:
            cursor.execute(sql)
        for role, secret in passwords.items():
            cursor.execute(f"ALTER ROLE {role} PASSWORD %s", [secret])
    _DEMO_ROLES["roles"] = (owner, app)
    try:
        _connect_as(owner, passwords[owner])
        call_command("migrate", verbosity=0, interactive=False)
        with connection.cursor() as cursor:
            for sql in grant_sql(app=app):
                cursor.execute(sql)
            problems = privilege_problems(cursor, app=app)
        _connect_as(app, passwords[app])
        connection.ensure_connection()
    except DatabaseError as error:
        raise CommandError(
            _(
                "PostgreSQL: the demo's roles %(owner)s/%(app)s: %(error)s (pg_hba.conf must let "
                "them log in with a password)"
            )
            % {"owner": owner, "app": app, "error": str(error).strip()},
            returncode=2,
        ) from None
    if problems:
        raise CommandError(f"PostgreSQL: {'; '.join(problems)}", returncode=1)
    return _(
        "PostgreSQL: migrated as %(owner)s, running as %(app)s (reads and appends; cannot change "
        "or remove an event)"
    ) % {"owner": owner, "app": app}


def demo_database_roles_undo() -> tuple[str, str] | None:
    """Back to DATABASE_URL's own credentials if the demo went on as its roles (a test's
    teardown needs them); the roles it used, or None."""
    if "superuser" in _DEMO_ROLES:
        _connect_as(*_DEMO_ROLES.pop("superuser"))
    roles: tuple[str, str] | None = _DEMO_ROLES.pop("roles", None)
    return roles

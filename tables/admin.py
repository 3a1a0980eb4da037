"""Plain admin registrations of the read models and of replay's runs and findings, so
that replay's progress and the findings are visible now. Read-only: projections are
rebuilt from events, and findings change only through :mod:`audit.findings` (which
appends the change as an event) - the round-review and findings screens for pit bosses
replace these (issue 6, item 4)."""
from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from audit.models import Finding, ReplayRun

from . import models as m


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(m.Table)
class TableAdmin(ReadOnly):
    list_display = ("stream", "ruleset", "currency", "min_bet", "max_bet", "projected_version")


@admin.register(m.TableDay)
class TableDayAdmin(ReadOnly):
    list_display = ("table", "gaming_day", "rounds", "bets", "handle", "recorded_net", "expected_net")
    list_filter = ("gaming_day", "table")


@admin.register(m.Shoe)
class ShoeAdmin(ReadOnly):
    list_display = ("table", "gaming_day", "shoe", "shuffled_version", "decks", "method", "cut_card", "rounds")
    list_filter = ("gaming_day", "table")


class HandInline(admin.TabularInline):
    model = m.Hand
    extra = 0
    fields = ("box", "number", "cards", "actions", "total", "bust", "doubled", "surrendered")
    readonly_fields = fields
    can_delete = False


class BetInline(admin.TabularInline):
    model = m.Bet
    extra = 0
    fields = ("bet", "box", "hand", "kind", "amount", "recorded_outcome", "recorded_net", "expected_outcome",
              "expected_net", "matches")
    readonly_fields = fields
    can_delete = False


@admin.register(m.Round)
class RoundAdmin(ReadOnly):
    list_display = ("table", "gaming_day", "number", "status", "handle", "recorded_net", "expected_net", "corrected")
    list_filter = ("status", "gaming_day", "table")
    inlines = (HandInline, BetInline)


@admin.register(ReplayRun)
class ReplayRunAdmin(ReadOnly):
    list_display = ("id", "stream", "gaming_day", "mode", "trigger", "status", "tables_done", "tables_total",
                    "events", "rounds", "findings", "findings_new", "findings_superseded", "started_at", "finished_at")
    list_filter = ("status", "mode", "trigger", "gaming_day")


@admin.register(Finding)
class FindingAdmin(ReadOnly):
    list_display = ("id", "kind", "severity", "stream", "gaming_day", "round", "bet", "expected", "recorded",
                    "status", "superseded_by")
    list_filter = ("status", "severity", "kind", "gaming_day", "stream")

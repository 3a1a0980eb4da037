"""The admin screen of API tokens (audit.access.tokens): compliance sees who holds a token - key
id, owner, the device's table, created, expires, last used, revoked - and revokes it;
a superuser issues one, whose text the next page shows once. The secret and its digest
appear nowhere: the list, the token's page and the search know the key id only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from audit.models import ApiToken

from .tokens import token_issue, token_revoke


class IssueTokenForm(forms.Form):
    user = forms.ModelChoiceField(
        queryset=get_user_model()
        .objects.filter(is_active=True)
        .select_related("device_account")
        .order_by("username"),
        label=gettext_lazy("owner"),
        help_text=gettext_lazy(
            "a device's user (its table's terminal) or a person; earlier tokens stay valid "
            "until they expire or are revoked (rotation without a gap)"
        ),
    )


_STATUSES = {
    "valid": pgettext_lazy("token status", "valid"),
    "expired": pgettext_lazy("token status", "expired"),
    "revoked": pgettext_lazy("token status", "revoked"),
}


class StatusFilter(admin.SimpleListFilter):
    title = gettext_lazy("status")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(code, str(word)) for code, word in _STATUSES.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> QuerySet[ApiToken]:
        now = timezone.now()
        if self.value() == "valid":
            return queryset.filter(revoked_at__isnull=True, expires_at__gt=now)
        if self.value() == "expired":
            return queryset.filter(revoked_at__isnull=True, expires_at__lte=now)
        if self.value() == "revoked":
            return queryset.filter(revoked_at__isnull=False)
        return queryset


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = (
        "key_id_text",
        "owner",
        "device_table",
        "created_at",
        "expires_at",
        "last_used_at",
        "status",
    )
    list_filter = (StatusFilter, "created_at")
    search_fields = ("key_id", "user__username", "user__device_account__stream")
    fields = (
        "key_id_text",
        "owner",
        "device_table",
        "created_at",
        "expires_at",
        "last_used_at",
        "status",
    )
    readonly_fields = fields
    actions = ("revoke",)
    list_per_page = 100

    def get_queryset(self, request: HttpRequest) -> QuerySet[ApiToken]:
        return super().get_queryset(request).select_related("user", "user__device_account")

    @admin.display(description=gettext_lazy("key id"), ordering="key_id")
    def key_id_text(self, obj: ApiToken) -> str:
        # the first characters of the token, which alone log no one in
        return format_html("<code>{}</code>&hellip;", obj.key_id)

    @admin.display(description=gettext_lazy("owner"), ordering="user__username")
    def owner(self, obj: ApiToken) -> str:
        return str(obj.user)

    @admin.display(
        description=gettext_lazy("device's table"), ordering="user__device_account__stream"
    )
    def device_table(self, obj: ApiToken) -> str:
        account = getattr(obj.user, "device_account", None)
        return account.stream if account is not None else _("(a person)")

    @admin.display(description=gettext_lazy("status"))
    def status(self, obj: ApiToken) -> str:
        if obj.revoked_at is not None:
            return _("revoked %(when)s") % {
                "when": date_format(timezone.localtime(obj.revoked_at), "DATETIME_FORMAT")
            }
        return str(_STATUSES["expired" if obj.expires_at <= timezone.now() else "valid"])

    @admin.action(description=gettext_lazy("Revoke the selected tokens"), permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        now = timezone.now()
        revoked = sum(token_revoke(token, now=now) for token in queryset.select_related("user"))
        self.message_user(
            request,
            _("%(revoked)s token(s) revoked; %(already)s were revoked already.")
            % {"revoked": revoked, "already": queryset.count() - revoked},
            messages.SUCCESS,
        )

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # the change permission is the revoke action's; a token's page is read-only
        return obj is None and super().has_change_permission(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # a revoked token stays: who had which token, until when
        return False

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        """Issue a token: a form naming its owner, then a page that shows the text once
        (rendered, not redirected: the text goes through no session or message store)."""
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = IssueTokenForm(request.POST or None)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "form": form,
            "title": _("Issue an API token"),
        }
        if request.method == "POST" and form.is_valid():
            issued = token_issue(user=form.cleaned_data["user"])
            context.update(
                title=_("API token issued"), issued=issued, owner=form.cleaned_data["user"]
            )
            response = TemplateResponse(request, "admin/audit/apitoken/issued.html", context)
            response["Cache-Control"] = "no-store"
            return response
        return TemplateResponse(request, "admin/audit/apitoken/issue.html", context)

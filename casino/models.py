"""casino's models: the language each person reads the back-office in, and the
regulator's package request, defined in :mod:`regulator.models` under this app's label
(it says why). Imported here so that Django counts casino an app with models: after a
flush, or a migrate, its content type and permissions (``casino.add_packagerequest``)
are made again like any app's."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from regulator.models import PackageRequest

__all__ = ("LanguagePreference", "PackageRequest")


class LanguagePreference(models.Model):
    """The language a person chose in the admin's header: it wins over the browser's
    Accept-Language on every page, on any machine the person logs in from."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="language_preference",
        verbose_name=_("person"),
    )
    language = models.CharField(_("language"), max_length=8, choices=settings.LANGUAGES)

    class Meta:
        verbose_name = _("language preference")
        verbose_name_plural = _("language preferences")

    def __str__(self) -> str:
        return f"{self.user}: {self.language}"

"""Content negotiation for the whole API (``DEFAULT_CONTENT_NEGOTIATION_CLASS``). Its own
module: DRF imports it while ``rest_framework.views`` is still loading, so it imports
nothing that imports the views."""

from __future__ import annotations

from rest_framework.exceptions import NotAcceptable, ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request


class FirstRendererUnlessAccepted(DefaultContentNegotiation):
    """The API speaks JSON (a report also CSV, a recall HTML or PDF, as each view says):
    a client that accepts none of a view's formats gets the view's first, as RFC 9110
    (12.5.1) allows, rather than a 406 no operation documents. ``?format=`` still picks
    among the view's formats. There is no browsable HTML API: the admin is the screen
    for people, the API is for machines (docs/api.md)."""

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            return renderers[0], renderers[0].media_type

    def filter_renderers(self, renderers: list[BaseRenderer], format: str) -> list[BaseRenderer]:
        """``?format=`` names one of the view's formats, else a 400 naming it (not DRF's 404)."""
        chosen = [renderer for renderer in renderers if renderer.format == format]
        if not chosen:
            formats = ", ".join(sorted({str(renderer.format) for renderer in renderers}))
            raise ValidationError({"format": [f"One of: {formats}."]})
        return chosen

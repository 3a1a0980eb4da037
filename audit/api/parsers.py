"""The API's request parser. Its own module: DRF reads DEFAULT_PARSER_CLASSES while its
views module is still loading, so this may import nothing that imports the views."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, with a nesting bound: a body nested deeper than the parser can
    follow (about a thousand levels) is a 400 saying so, not a RecursionError and a 500.
    No payload of the catalogue nests more than a few levels."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None

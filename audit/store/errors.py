"""The event store's errors. Each knows its HTTP status and says what and where."""

from __future__ import annotations

from typing import Any


class StoreError(Exception):
    http_status = 400
    code = "store_error"

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "detail": str(self)}


class FieldInvalid(StoreError):
    """A request whose ``field`` cannot be: the field and why, in the one error shape
    (HTTP 400, ``errors: {field: [message]}``)."""

    code = "invalid_request"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "errors": {self.field: [self.message]}}


class InvalidEvent(StoreError):
    """An event of a batch is malformed; ``index`` is its place in the batch (0-based)."""

    code = "invalid_event"

    def __init__(self, index: int, field: str, message: str) -> None:
        super().__init__(f"event {index}: {field}: {message}")
        self.index, self.field, self.message = index, field, message

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "detail": str(self),
            "errors": {f"events[{self.index}].{self.field}": [self.message]},
        }


class VersionConflict(StoreError):
    http_status = 409
    code = "version_conflict"

    def __init__(self, stream: str, expected: int, current: int) -> None:
        super().__init__(
            f"stream {stream!r} is at version {current}, not at the expected {expected}"
        )
        self.stream, self.expected, self.current = stream, expected, current

    def as_dict(self) -> dict[str, Any]:
        return {
            **super().as_dict(),
            "stream": self.stream,
            "expected_version": self.expected,
            "current_version": self.current,
        }


class IdConflict(StoreError):
    """The id is stored already, with other content: not a retry but a different event."""

    http_status = 409
    code = "id_conflict"

    def __init__(self, event_id: str, what: str) -> None:
        super().__init__(f"event id {event_id} is already stored with different {what}")
        self.event_id = event_id

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "id": self.event_id}


class BatchTooLarge(StoreError):
    http_status = 413
    code = "batch_too_large"

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"a batch holds at most {limit} events; this one has {size}")
        self.size, self.limit = size, limit

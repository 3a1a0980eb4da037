"""The event catalogue: every event type, its payload schema per version, and upcasters.

Pure Python (msgspec, no Django) so that the rules engine and offline replay can use it.
"""

from .registry import (
    AUTHORITY,
    LIFTED,
    OFF_TABLE,
    PLACES,
    REGISTRY,
    SERVER_ONLY,
    EventType,
    PayloadError,
    current_form,
    current_version,
    decode_payload_json,
    read_current,
    upcast,
    validate_payload,
    validate_payload_json,
)

__all__ = [
    "AUTHORITY",
    "LIFTED",
    "OFF_TABLE",
    "PLACES",
    "REGISTRY",
    "SERVER_ONLY",
    "EventType",
    "PayloadError",
    "current_form",
    "current_version",
    "decode_payload_json",
    "read_current",
    "upcast",
    "validate_payload",
    "validate_payload_json",
]

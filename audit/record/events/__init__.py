"""The event catalogue: every event type, its payload schema per version, and upcasters.

Pure Python (msgspec, no Django) so that the rules engine and offline replay can use it.
"""
from .registry import (
    AUTHORITY,
    OFF_TABLE,
    PLACES,
    REGISTRY,
    SERVER_ONLY,
    EventType,
    PayloadError,
    current_version,
    decode_payload_json,
    upcast,
    validate_payload,
    validate_payload_json,
)

__all__ = [
    "AUTHORITY",
    "OFF_TABLE",
    "PLACES",
    "REGISTRY",
    "SERVER_ONLY",
    "EventType",
    "PayloadError",
    "current_version",
    "decode_payload_json",
    "upcast",
    "validate_payload",
    "validate_payload_json",
]

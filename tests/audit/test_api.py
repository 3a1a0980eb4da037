"""The event store's REST API: append, stream read, global feed, auth and roles, schema."""

from __future__ import annotations

import io
import json
import uuid
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from django.urls import include, path
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from audit.access.devices import device_ensure
from audit.models import DeviceAccount, Event
from audit.store import streams as store

pytestmark = pytest.mark.django_db

T1 = "/api/streams/T1/events"
T2 = "/api/streams/T2/events"
FEED = "/api/events"


# --- helpers ---------------------------------------------------------------------------------


def event(
    type_: str = "round.started", payload: dict[str, Any] | None = None, **envelope: Any
) -> dict[str, Any]:
    """One event as a client sends it (JSON-ready)."""
    body: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "type": type_,
        "occurred_at": "2026-11-29T21:04:05.123+01:00",
        "actor": "shoe:T1",  # table T1's own shoe: an actor T1's device may use
        "source": "shoe-reader:T1",
        "payload": {"round": 1, "shoe": "S1"} if payload is None else payload,
    }
    body.update(envelope)
    return body


def bet(amount: Any = 500, **extra: Any) -> dict[str, Any]:
    return event(
        "bet.placed",
        {
            "round": 1,
            "bet": "b1",
            "box": 1,
            "hand": 0,
            "player": None,
            "amount": amount,
            "kind": "main",
            "parent": None,
            **extra,
        },
    )


def rounds(count: int, first: int = 1) -> list[dict[str, Any]]:
    return [event(payload={"round": n, "shoe": "S1"}) for n in range(first, first + count)]


def post(client: APIClient, url: str, body: Any) -> Any:
    return client.post(url, json.dumps(body), content_type="application/json")


def _person(name: str, *codenames: str) -> Any:
    user = get_user_model().objects.create_user(name, password="pw-not-used")
    user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="audit", codename__in=codenames)
    )
    return user


@pytest.fixture
def pit_boss() -> APIClient:
    """A person with both permissions, logged in by session."""
    client = APIClient()
    client.force_login(_person("boss", "append_event", "view_event"))
    return client


@pytest.fixture
def device_t1() -> APIClient:
    """The device account of table T1, authenticated by its token."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {device_ensure(stream='T1').token}")
    return client


# --- append: 201 -----------------------------------------------------------------------------


def test_append_stores_the_batch_and_returns_its_envelopes_with_201(device_t1: APIClient) -> None:
    """The response holds the stored envelopes: versions after the expected one, the
    hash chain, UTC timestamps, the schema's current version when none was given."""
    sent = [event(), bet(), event("betting.closed", {"round": 1})]
    response = post(device_t1, T1, {"expected_version": 0, "events": sent})

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["stream"] == "T1"
    got = body["events"]
    assert [e["id"] for e in got] == [e["id"] for e in sent]
    assert [e["version"] for e in got] == [1, 2, 3]
    assert got[0]["prev_hash"] == "0" * 64
    assert got[1]["prev_hash"] == got[0]["hash"] and got[2]["prev_hash"] == got[1]["hash"]
    assert got[0]["position"] < got[1]["position"] < got[2]["position"]
    assert got[0]["occurred_at"] == "2026-11-29T20:04:05.123000Z"
    assert got[1]["schema_version"] == 2 and got[1]["payload"]["amount"] == 500
    assert Event.objects.filter(stream="T1").count() == 3


def test_a_person_with_append_permission_appends_to_any_table(pit_boss: APIClient) -> None:
    """A person is not bound to one table; the permission audit.append_event suffices."""
    assert post(pit_boss, T2, {"expected_version": 0, "events": rounds(1)}).status_code == 201


def test_a_retry_returns_the_stored_events_with_201_and_stores_nothing(
    device_t1: APIClient,
) -> None:
    """Sending a stored batch again answers exactly as the first time (201), even after the
    stream has moved on, and writes nothing."""
    batch = {"expected_version": 0, "events": rounds(2)}
    first = post(device_t1, T1, batch)
    assert (
        post(device_t1, T1, {"expected_version": 2, "events": rounds(1, first=3)}).status_code
        == 201
    )

    retry = post(device_t1, T1, batch)

    assert retry.status_code == 201
    assert retry.json() == first.json()
    assert Event.objects.filter(stream="T1").count() == 3


# --- append: 400 -----------------------------------------------------------------------------

INVALID = {
    "bad uuid": (lambda: [event(), event(id="not-a-uuid")], "events[1].id", "valid UUID"),
    "uuid as a number": (lambda: [event(id=12345)], "events[0].id", "valid UUID"),
    "naive timestamp": (
        lambda: [event(occurred_at="2026-11-29T21:04:05")],
        "events[0].occurred_at",
        "UTC offset",
    ),
    "timestamp not a string": (
        lambda: [event(occurred_at=1764446645)],
        "events[0].occurred_at",
        "UTC offset",
    ),
    "unknown type": (lambda: [event("card.teleported")], "events[0].type", "unknown event type"),
    "unknown payload field": (
        lambda: [event(payload={"round": 1, "shoe": "S1", "colour": "red"})],
        "events[0].payload.colour",
        "unknown field",
    ),
    "wrong payload type": (
        lambda: [event(), event(), bet(amount="500")],
        "events[2].payload.amount",
        "Expected `int`, got `str`",
    ),
    "missing payload field": (
        lambda: [event(payload={"round": 1})],
        "events[0].payload.shoe",
        "missing required",
    ),
    "payload not an object": (
        lambda: [event(payload=[1, 2])],
        "events[0].payload",
        "expected an object",
    ),
    "unknown schema version": (
        lambda: [event(schema_version=9)],
        "events[0].schema_version",
        "no schema version 9",
    ),
    "unknown envelope key": (lambda: [event(colour="red")], "events[0].colour", "Unknown field"),
    "missing envelope field": (
        lambda: [{k: v for k, v in event().items() if k != "actor"}],
        "events[0].actor",
        "required",
    ),
    "actor not a string": (lambda: [event(actor=7)], "events[0].actor", "valid string"),
    "same id twice": (
        lambda: [
            event(id="6a2f41a6-0000-4000-8000-000000000001"),
            event(id="6a2f41a6-0000-4000-8000-000000000001"),
        ],
        "events[1].id",
        "appears twice",
    ),
}


@pytest.mark.parametrize("case", INVALID, ids=list(INVALID))
def test_an_invalid_event_is_refused_with_400_naming_the_field_and_nothing_is_stored(
    pit_boss: APIClient, case: str
) -> None:
    """Every kind of malformed event fails the whole batch; the message names the field
    with its place in the batch."""
    make_events, field, words = INVALID[case]
    response = post(pit_boss, T1, {"expected_version": 0, "events": make_events()})

    assert response.status_code == 400
    errors = response.json()["errors"]
    assert field in errors, errors
    assert any(words in message for message in errors[field]), errors
    assert Event.objects.count() == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"expected_version": "0", "events": rounds(1)}, "expected_version"),
        ({"expected_version": -1, "events": rounds(1)}, "expected_version"),
        ({"events": rounds(1)}, "expected_version"),
        ({"expected_version": 0, "events": []}, "events"),
        ({"expected_version": 0, "events": {"id": "x"}}, "events"),
        ({"expected_version": 0, "events": rounds(1), "stream": "T9"}, "stream"),
        ([1, 2, 3], "non_field_errors"),
    ],
    ids=[
        "version as string",
        "negative version",
        "no version",
        "empty batch",
        "events not a list",
        "unknown body key",
        "body not an object",
    ],
)
def test_an_invalid_request_body_is_refused_with_400_naming_the_field(
    pit_boss: APIClient, body: Any, field: str
) -> None:
    """The body's own keys are checked as strictly as the events'."""
    response = post(pit_boss, T1, body)

    assert response.status_code == 400
    assert field in response.json()["errors"], response.json()
    assert Event.objects.count() == 0


def test_malformed_json_is_refused_with_400(pit_boss: APIClient) -> None:
    """A body that is not JSON never reaches the serializer."""
    response = pit_boss.post(T1, "{not json", content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "parse_error"


# --- append: 401, 403 ------------------------------------------------------------------------


@pytest.mark.parametrize(("method", "url"), [("post", T1), ("get", T1), ("get", FEED)])
def test_anonymous_requests_get_401_with_a_token_challenge(method: str, url: str) -> None:
    """No anonymous access: 401 (not 403), with a WWW-Authenticate header."""
    response = getattr(APIClient(), method)(url, {}, format="json")

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert Event.objects.count() == 0


def test_a_bad_token_gets_401() -> None:
    """An unknown token is not anonymous access in disguise."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef01234567")
    assert post(client, T1, {"expected_version": 0, "events": rounds(1)}).status_code == 401


def test_a_device_may_not_append_to_another_table(device_t1: APIClient) -> None:
    """403 with a message naming both tables; nothing stored."""
    response = post(device_t1, T2, {"expected_version": 0, "events": rounds(1)})

    assert response.status_code == 403
    assert "'T1'" in response.json()["detail"] and "'T2'" in response.json()["detail"]
    assert Event.objects.count() == 0


def test_a_device_is_bound_to_its_table_even_with_permissions() -> None:
    """The device rule wins over any permission given to the device's user by mistake."""
    device = device_ensure(stream="T1")
    device.account.user.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="audit")
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {device.token}")
    assert post(client, T2, {"expected_version": 0, "events": rounds(1)}).status_code == 403


def test_a_person_without_the_append_permission_gets_403() -> None:
    """Reading rights do not include appending."""
    client = APIClient()
    client.force_login(_person("auditor", "view_event"))

    response = post(client, T1, {"expected_version": 0, "events": rounds(1)})

    assert response.status_code == 403
    assert "audit.append_event" in response.json()["detail"]
    assert Event.objects.count() == 0


# --- append: 409, 413 ------------------------------------------------------------------------


def test_a_stale_expected_version_gets_409_with_the_current_version(device_t1: APIClient) -> None:
    """Optimistic concurrency: the second writer learns where the stream is."""
    assert post(device_t1, T1, {"expected_version": 0, "events": rounds(2)}).status_code == 201

    response = post(device_t1, T1, {"expected_version": 1, "events": rounds(1, first=3)})

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "version_conflict"
    assert body["current_version"] == 2 and body["expected_version"] == 1
    assert Event.objects.count() == 2


def test_the_same_id_with_other_content_gets_409(device_t1: APIClient) -> None:
    """An id names one event forever: other content under it is not a retry."""
    first = rounds(1)
    assert post(device_t1, T1, {"expected_version": 0, "events": first}).status_code == 201
    changed = {**first[0], "payload": {"round": 1, "shoe": "S2"}}

    response = post(device_t1, T1, {"expected_version": 1, "events": [changed]})

    assert response.status_code == 409
    assert response.json()["code"] == "id_conflict" and response.json()["id"] == first[0]["id"]
    assert Event.objects.count() == 1


def test_a_batch_over_the_limit_gets_413_before_any_validation(
    pit_boss: APIClient, settings: Any
) -> None:
    """The count is checked first: a huge batch is not validated event by event."""
    settings.EVENT_BATCH_MAX = 3
    response = post(
        pit_boss, T1, {"expected_version": 0, "events": [{"junk": i} for i in range(4)]}
    )

    assert response.status_code == 413
    assert response.json()["code"] == "batch_too_large"
    assert Event.objects.count() == 0
    assert post(pit_boss, T1, {"expected_version": 0, "events": rounds(3)}).status_code == 201


def test_a_body_over_the_upload_limit_gets_413(pit_boss: APIClient, settings: Any) -> None:
    """A body over DATA_UPLOAD_MAX_MEMORY_SIZE is refused with 413 and a JSON body, not
    with Django's bare 400 page."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = post(pit_boss, T1, {"expected_version": 0, "events": rounds(10)})

    assert response.status_code == 413
    assert response.json()["code"] == "request_too_large"
    assert Event.objects.count() == 0


# --- reading a stream ------------------------------------------------------------------------


def test_a_stream_is_read_from_a_version_page_by_page(pit_boss: APIClient) -> None:
    """Version order; `next` leads to the following page and is null on the last one."""
    post(pit_boss, T1, {"expected_version": 0, "events": rounds(5)})
    post(pit_boss, T2, {"expected_version": 0, "events": rounds(2)})

    page = pit_boss.get(T1, {"from_version": 2, "limit": 2}).json()
    assert [e["version"] for e in page["events"]] == [2, 3]
    assert {e["stream"] for e in page["events"]} == {"T1"}
    assert "from_version=4" in page["next"] and "limit=2" in page["next"]

    last = pit_boss.get(page["next"]).json()
    assert [e["version"] for e in last["events"]] == [4, 5]
    assert last["next"] is None


def test_a_stream_read_upcasts_old_payloads(pit_boss: APIClient) -> None:
    """A bet.placed stored at schema version 1 reads as version 2 (parent: null)."""
    v1 = bet()
    v1["payload"].pop("parent")
    v1["schema_version"] = 1
    assert post(pit_boss, T1, {"expected_version": 0, "events": [v1]}).status_code == 201
    assert Event.objects.get().schema_version == 1

    read = pit_boss.get(T1).json()["events"][0]

    assert read["schema_version"] == 2 and read["payload"]["parent"] is None


def test_a_device_reads_its_own_stream_only(device_t1: APIClient, pit_boss: APIClient) -> None:
    """Its own table: 200; another table: 403."""
    post(pit_boss, T1, {"expected_version": 0, "events": rounds(1)})

    assert [e["version"] for e in device_t1.get(T1).json()["events"]] == [1]
    assert device_t1.get(T2).status_code == 403


def test_reading_needs_the_view_permission() -> None:
    """A person without audit.view_event reads neither streams nor the feed."""
    client = APIClient()
    client.force_login(_person("clerk", "append_event"))
    assert client.get(T1).status_code == 403
    assert client.get(FEED).status_code == 403


@pytest.mark.parametrize(
    "query", [{"limit": 0}, {"limit": "ten"}, {"from_version": 0}, {"from_version": 2**64}]
)
def test_bad_stream_query_parameters_get_400_naming_them(
    pit_boss: APIClient, query: dict[str, Any]
) -> None:
    """Query parameters are checked too, and a huge number never reaches the database."""
    response = pit_boss.get(T1, query)
    assert response.status_code == 400
    assert set(query) <= set(response.json()["errors"])


def test_an_invalid_table_code_is_not_found(pit_boss: APIClient) -> None:
    """The URL only matches table codes the store accepts."""
    assert pit_boss.get("/api/streams/bad%20code/events").status_code == 404


# --- the global feed -------------------------------------------------------------------------


def test_the_feed_follows_positions_across_streams_page_by_page(pit_boss: APIClient) -> None:
    """Position order across tables; each page's last_position is the next `after`."""
    start = store.feed_after(0, limit=10**6)
    after = start[-1].position if start else 0
    post(pit_boss, T1, {"expected_version": 0, "events": rounds(2)})
    post(pit_boss, T2, {"expected_version": 0, "events": rounds(2)})
    post(pit_boss, T1, {"expected_version": 2, "events": rounds(1, first=3)})

    page = pit_boss.get(FEED, {"after": after, "limit": 3}).json()
    assert [(e["stream"], e["version"]) for e in page["events"]] == [
        ("T1", 1),
        ("T1", 2),
        ("T2", 1),
    ]
    assert page["last_position"] == page["events"][-1]["position"]
    assert f"after={page['last_position']}" in page["next"]

    rest = pit_boss.get(page["next"]).json()
    assert [(e["stream"], e["version"]) for e in rest["events"]] == [("T2", 2), ("T1", 3)]
    assert rest["next"] is None

    caught_up = pit_boss.get(FEED, {"after": rest["last_position"]}).json()
    assert caught_up == {"events": [], "last_position": rest["last_position"], "next": None}


def test_the_feed_caps_the_page_size(pit_boss: APIClient, settings: Any) -> None:
    """A limit above EVENT_PAGE_MAX is served as EVENT_PAGE_MAX, with a next link."""
    settings.EVENT_PAGE_MAX = 3
    post(pit_boss, T1, {"expected_version": 0, "events": rounds(5)})

    page = pit_boss.get(FEED, {"limit": 1000}).json()

    assert len(page["events"]) == 3
    assert "limit=3" in page["next"]


def test_a_device_may_not_read_the_feed(device_t1: APIClient) -> None:
    """The feed spans every table, so a device account gets 403."""
    response = device_t1.get(FEED)
    assert response.status_code == 403 and "own table" in response.json()["detail"]


# --- create_device ---------------------------------------------------------------------------


def _create_device(*args: str) -> str:
    out = io.StringIO()
    call_command("create_device", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip()


def test_create_device_prints_a_token_that_appends_to_its_table() -> None:
    """The printed token authenticates as the device of that table."""
    token = _create_device("T7")

    account = DeviceAccount.objects.get()
    assert account.stream == "T7" and account.user.username == "device-T7"
    assert not account.user.has_usable_password()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert (
        post(
            client,
            "/api/streams/T7/events",
            {"expected_version": 0, "events": [event(actor="shoe:T7")]},
        ).status_code
        == 201
    )


def test_create_device_issues_a_new_token_each_time() -> None:
    """Running it again creates no second account but prints a new token; the earlier
    one still works until it is revoked (rotation without a gap)."""
    first = _create_device("T7", "--username", "shoe-7")
    second = _create_device("T7", "--username", "shoe-7")
    assert second != first
    assert DeviceAccount.objects.count() == 1
    for token in (first, second):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        assert client.get("/api/streams/T7/events").status_code == 200


def test_create_device_refuses_a_clash() -> None:
    """A device of another table, a person's user name, or a bad table code is refused."""
    _create_device("T7", "--username", "shoe-7")
    _person("alice")
    with pytest.raises(CommandError, match="of table 'T7'"):
        _create_device("T8", "--username", "shoe-7")
    with pytest.raises(CommandError, match="not a device account"):
        _create_device("T8", "--username", "alice")
    with pytest.raises(CommandError, match="table code"):
        _create_device("bad code")


# --- OpenAPI ---------------------------------------------------------------------------------


def test_the_schema_is_valid_openapi_with_the_event_paths(device_t1: APIClient) -> None:
    """/api/schema/ serves a valid OpenAPI 3 document describing the three operations (to
    any logged-in caller, a table device included)."""
    response = device_t1.get("/api/schema/")

    assert response.status_code == 200
    schema = json.loads(response.content)
    validate_schema(schema)
    paths = schema["paths"]
    assert set(paths["/api/streams/{stream}/events"]) >= {"get", "post"}
    assert "get" in paths["/api/events"]
    post_op = paths["/api/streams/{stream}/events"]["post"]
    assert set(post_op["responses"]) >= {"201", "400", "401", "403", "409", "413"}


def test_the_event_api_schema_generates_without_warnings() -> None:
    """drf-spectacular has nothing to guess about these views."""
    GENERATOR_STATS.reset()
    generator = SchemaGenerator(patterns=[path("api/", include("audit.urls"))])
    with GENERATOR_STATS.silence():
        generator.get_schema(request=None, public=True)
    problems = {**GENERATOR_STATS._warn_cache, **GENERATOR_STATS._error_cache}
    GENERATOR_STATS.reset()
    assert not problems, list(problems)


def test_the_docs_page_is_served(pit_boss: APIClient) -> None:
    """The browsable docs page (Swagger UI) is routed, for who is logged in."""
    assert pit_boss.get("/api/docs/").status_code == 200

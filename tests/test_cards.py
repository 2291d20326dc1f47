"""The cards' own behaviour, without a kernel: forms from schemas, validation, answers."""

from __future__ import annotations

from typing import Any

import ipywidgets as w

from mcp_notebook import ApprovalRequest
from mcp_notebook.notebook.cards import ApprovalCard, ElicitationCard, SamplingCard, UrlCard, walk

SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 2},
        "email": {"type": "string", "format": "email"},
        "born": {"type": "string", "format": "date"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
        "ratio": {"type": "number", "maximum": 1.0},
        "agree": {"type": "boolean", "default": True},
        "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}, {"const": "h2", "title": "Batman"}]},
        "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 1, "default": ["a"]},
    },
    "required": ["name", "color"],
}


def widgets_of(card: Any) -> dict[str, Any]:
    return {getattr(x, "description", ""): x for x in walk(card.widget) if getattr(x, "description", "")}


def button(card: Any, label: str) -> w.Button:
    return next(x for x in walk(card.widget) if isinstance(x, w.Button) and x.description == label)


def test_form_from_schema() -> None:
    card = ElicitationCard("demo", {"message": "Tell me", "requestedSchema": SCHEMA})
    fields = widgets_of(card)
    assert isinstance(fields["Name *"], w.Text) and isinstance(fields["age"], w.IntText)
    assert fields["age"].value == 30 and fields["agree"].value is True
    assert isinstance(fields["color *"], w.Dropdown) and fields["color *"].label == "Red"  # legacy enumNames
    assert [label for label, _ in fields["hero"].options] == ["(any)", "Superman", "Batman"]
    assert isinstance(fields["tags"], w.SelectMultiple) and fields["tags"].value == ("a",)
    assert fields["born"].placeholder == "YYYY-MM-DD"


def test_accept_validates_and_sends_content() -> None:
    card = ElicitationCard("demo", {"message": "Tell me", "requestedSchema": SCHEMA})
    fields = widgets_of(card)
    answers: list[Any] = []
    card.on_answer(answers.append)
    fields["Name *"].value = "A"  # too short
    fields["email"].value = "nope"
    fields["age"].value = 200
    button(card, "Accept").click()
    assert not answers and "fix the marked fields" in card.status.value
    errors = " ".join(f.error.value for f in card.fields)
    assert "at least 2 characters" in errors and "not a valid email" in errors and "at most 150" in errors
    fields["Name *"].value = "Ada"
    fields["email"].value = "ada@example.org"
    fields["age"].value = 36
    fields["hero"].value = "h2"
    button(card, "Accept").click()
    assert answers == [
        {
            "action": "accept",
            "content": {"name": "Ada", "email": "ada@example.org", "age": 36, "agree": True,
                        "color": "r", "hero": "h2", "tags": ["a"]},
        }
    ]  # fmt: skip
    assert all(x.disabled for x in walk(card.widget) if isinstance(x, w.Button))


def test_decline_and_cancel() -> None:
    for label, action in (("Decline", "decline"), ("Cancel", "cancel")):
        card = ElicitationCard("demo", {"message": "?", "requestedSchema": SCHEMA})
        button(card, label).click()
        assert card.answer == {"action": action}


def test_approval_card() -> None:
    request = ApprovalRequest("demo", "delete_penguins", "Delete penguins", {"destructiveHint": True}, {"species": "X"})
    for label, answer in (("Approve", "approve"), ("Always allow", "always"), ("Deny", "deny")):
        card = ApprovalCard(request)
        text = "".join(getattr(x, "value", "") for x in walk(card.widget) if isinstance(x, w.HTML))
        assert "demo.delete_penguins" in text and "not verified" in text and "&quot;species&quot;" in text
        button(card, label).click()
        assert card.answer == answer


def test_sampling_and_url_cards() -> None:
    card = SamplingCard("srv", {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}, "draft")
    assert card.reply.value == "draft"
    card.reply.value = "edited"
    button(card, "Approve").click()
    assert card.answer["content"]["text"] == "edited" and card.answer["role"] == "assistant"
    url = UrlCard("srv", {"message": "Log in", "url": "https://example.org/x?a=<b>", "elicitationId": "e1"})
    html = "".join(getattr(x, "value", "") for x in walk(url.widget) if isinstance(x, w.HTML))
    assert "https://example.org/x?a=&lt;b&gt;" in html and "target='_blank'" in html
    button(url, "Accept").click()
    assert url.answer == {"action": "accept"}


def test_a_hostile_form_schema_still_asks() -> None:
    """A requestedSchema not of the spec's shape (a property that is text, a required list of
    objects, bounds that are text or booleans) makes a card with what can be asked."""
    schema = {
        "properties": {
            "a": "text",
            "b": {"type": "string", "minLength": "3"},
            "n": {"type": "integer", "maximum": True},
        },
        "required": [{"x": 1}, "b"],
    }
    card = ElicitationCard("s", {"message": "m", "requestedSchema": schema})
    b = next(f for f in card.fields if f.name == "b")
    b.input.value = "ab"  # "3" is not a bound: nothing to compare with, and no TypeError while typing
    assert b.value() == ("ab", None) and b.required
    assert ElicitationCard("s", {"requestedSchema": "not an object"}).fields == []


def test_an_answered_card_records_the_question_and_answer() -> None:
    page = "https://example.org/go?token=abc123secret&x=1"
    url = UrlCard("s", {"message": "finish", "url": page, "elicitationId": "e"})
    button(url, "Accept").click()
    text = url.record.text()
    assert "abc123secret" not in text and "token=***" in text and "→ accepted: finish in the page by you" in text
    schema = {"properties": {"api_token": {"type": "string"}}}
    card = ElicitationCard("s", {"message": "Who?", "requestedSchema": schema})
    card.fields[0].input.value = "tok-0123456789"
    button(card, "Accept").click()
    record = card.record.bundle()
    assert "tok-0123456789" not in record["text/plain"] + record["text/html"]  # a secret-looking name: masked
    assert "→ sent by you" in record["text/plain"]


def test_secret_values_are_the_secrets_only() -> None:
    from mcp_notebook.core.safety.redact import Mask, secret_values

    assert secret_values(["--no-auth", "/srv/data", "--token", "sk-abcdef"], {"AUTH_ENABLED": "true"}) == ["sk-abcdef"]
    assert Mask(["sk-abcdef", "ab"])("key sk-abcdef and ab") == "key *** and ab"  # too short to mask: left


def test_a_relayed_edit_is_applied_and_not_echoed() -> None:
    """The relay applies the browser's edit to the field without sending it back: the browser
    takes an echo it did not ask for as another front end's change, and a late one would
    overwrite what the person typed since ("Bonjour" over "Bonjour !")."""
    from mcp_notebook.notebook.relay import REF, Relay

    card = ElicitationCard("s", {"message": "Who?", "requestedSchema": {"properties": {"name": {"type": "string"}}}})
    (relay,) = [x for x in walk(card.widget) if isinstance(x, Relay)]
    field = card.fields[0].input
    sent: list[Any] = []
    field.comm.send = lambda *args, **kwargs: sent.append((args, kwargs))  # what the kernel sends the browser
    edit = {"event": "edit", "field": f"{REF}{field.model_id}", "state": {"value": "Bonjour !"}}
    relay.comm.handle_msg({"content": {"data": {"method": "custom", "content": edit}}, "buffers": []})
    assert field.value == "Bonjour !"
    assert sent == [], sent  # neither an echo_update nor an update

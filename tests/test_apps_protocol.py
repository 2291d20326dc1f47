"""MCP Apps' rules (core/protocol/apps.py) on what servers send: which tools have an app and
who may call them, an app's document checked, and the policy its frame gets — the
specification's default, declared domains only where they belong, nothing that could end a
directive."""

from __future__ import annotations

import base64

import pytest

from mcp_notebook.core.protocol import apps

VANILLA_TOOL = {  # server-basic-vanillajs 2.0.3's tools/list entry (both keys, as its SDK writes them)
    "name": "get-time",
    "inputSchema": {"type": "object", "properties": {}},
    "_meta": {"ui": {"resourceUri": "ui://get-time/mcp-app.html"}, "ui/resourceUri": "ui://get-time/mcp-app.html"},
}


def test_a_tool_names_its_app_and_who_may_call_it() -> None:
    link = apps.link_of(VANILLA_TOOL)
    assert link == apps.AppLink("ui://get-time/mcp-app.html", ("model", "app"))
    assert link.for_model and link.for_app
    only_app = {"name": "rows", "_meta": {"ui": {"resourceUri": "ui://x/app.html", "visibility": ["app"]}}}
    assert apps.link_of(only_app) == apps.AppLink("ui://x/app.html", ("app",))
    assert not apps.for_model(only_app) and apps.for_model(VANILLA_TOOL) and apps.for_model({"name": "plain"})
    assert apps.link_of({"name": "old", "_meta": {"ui/resourceUri": "ui://old/app.html"}}).uri == "ui://old/app.html"


@pytest.mark.parametrize(
    "meta",
    [None, "ui", {"ui": {"resourceUri": "https://evil.example/app.html"}}, {"ui": {"resourceUri": 3}}, {"ui": []}],
)
def test_what_is_not_a_ui_uri_is_no_app(meta: object) -> None:
    assert apps.link_of({"name": "t", "_meta": meta}) is None


def test_unknown_visibility_values_are_dropped() -> None:
    tool = {"name": "t", "_meta": {"ui": {"resourceUri": "ui://t/a.html", "visibility": ["app", "admin", 3]}}}
    assert apps.visibility_of(tool) == ("app",)


def test_a_document_is_one_item_of_the_app_type_its_meta_over_the_listing() -> None:
    item = {"uri": "ui://t/a.html", "mimeType": apps.MIME_TYPE, "text": "<html></html>"}
    listed = {"uri": "ui://t/a.html", "_meta": {"ui": {"prefersBorder": False}}}
    assert apps.document_of({"contents": [item]}, listed).prefers_border is False
    own = {**item, "_meta": {"ui": {"prefersBorder": True}}}
    assert apps.document_of({"contents": [own]}, listed).prefers_border is True
    blob = {"uri": "ui://t/a.html", "mimeType": apps.MIME_TYPE, "blob": base64.b64encode(b"<p>hi</p>").decode()}
    assert apps.document_of({"contents": [blob]}).html == "<p>hi</p>"


@pytest.mark.parametrize(
    ("result", "said"),
    [
        ({"contents": []}, "one content item; this one has 0"),
        ({"contents": [{"mimeType": "text/html", "text": "x"}]}, "this one is 'text/html'"),
        ({"contents": [{"mimeType": apps.MIME_TYPE}]}, "neither text nor blob"),
        ({"contents": [{"mimeType": apps.MIME_TYPE, "blob": "%%%"}]}, "not base64"),
    ],
)
def test_a_resource_that_is_not_an_app_document_says_why(result: dict[str, object], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        apps.document_of(result)


def test_the_default_policy_is_the_specifications() -> None:
    policy = dict(d.split(" ", 1) for d in apps.content_security_policy({}).split("; "))
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self' 'unsafe-inline'"
    assert policy["connect-src"] == "'none'"  # no fetch, no websocket
    assert policy["img-src"] == "'self' data:"
    assert policy["frame-src"] == "'none'" and policy["object-src"] == "'none'" and policy["base-uri"] == "'self'"
    assert policy["form-action"] == "'none'"


def test_declared_domains_go_only_where_they_belong() -> None:
    ui = {"csp": {"connectDomains": ["https://api.example.com"], "resourceDomains": ["https://*.cdn.example"],
                  "frameDomains": ["https://maps.example"], "baseUriDomains": ["https://base.example"]}}  # fmt: skip
    policy = dict(d.split(" ", 1) for d in apps.content_security_policy(ui).split("; "))
    assert policy["connect-src"] == "'self' https://api.example.com"
    assert policy["script-src"] == "'self' 'unsafe-inline' https://*.cdn.example"
    assert policy["font-src"] == "'self' https://*.cdn.example"
    assert policy["frame-src"] == "https://maps.example"
    assert policy["base-uri"] == "https://base.example"
    assert "api.example.com" not in policy["script-src"]
    assert policy["object-src"] == "'none'" and policy["default-src"] == "'none'"


@pytest.mark.parametrize(
    "domain",
    ["https://ok.example; script-src *", "*", "http://plain.example", "https://a.example 'unsafe-eval'",
     "javascript:alert(1)", "https://a.example/path", "data:", "'self'"],
)  # fmt: skip
def test_a_domain_that_could_loosen_the_policy_is_dropped(domain: str) -> None:
    ui = {"csp": {"connectDomains": [domain], "resourceDomains": [domain]}}
    assert apps.content_security_policy(ui) == apps.content_security_policy({})
    assert apps.dropped_domains(ui) == [domain, domain]


def test_only_declared_permissions_reach_the_frame() -> None:
    assert apps.allow_attribute({}) == ""
    ui = {"permissions": {"camera": {}, "clipboardWrite": {}, "usb": {}, "microphone": True}}
    assert apps.allow_attribute(ui) == "camera; clipboard-write"

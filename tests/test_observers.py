"""Logging and the transcript only watch: whatever fails in them costs no message and is
said once (a warning). Against tests/servers/hostile.py, whose resource and resource link
have an address with brackets that hold no IP address (``https://[x]/``, which Python's URL
parsing refuses), with DEBUG logging on; and with a logging filter of the user's that raises."""

from __future__ import annotations

import logging
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.peers import SERVERS
from support.shells import in_notebook_folder, line

from mcp_notebook import Client, get_client

HOSTILE = [sys.executable, str(SERVERS / "hostile.py")]
BRACKETED = "https://[x]/?api_key=s3cret-value"  # hostile.py's
SECRET = "s3cret-value"


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.DEBUG, logger="mcp_notebook")
    yield caplog


def side_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if "the protocol goes on" in str(w.message)]


def test_a_bracketed_uri_with_debug_logging_on_loses_no_reply(logged: pytest.LogCaptureFixture, client: Client) -> None:
    server = client.add("hostile", HOSTILE[0], HOSTILE[1:], request_timeout=30)
    assert [r.uri for r in server.list_resources()] == [BRACKETED]
    assert server.read_resource(BRACKETED).text == "read"
    link = server.call_tool("bracketed").raw["content"][0]
    assert link["uri"] == BRACKETED
    lines = "\n".join(r.getMessage() for r in logged.records if r.name == "mcp_notebook.core")
    assert "https://[x]/" in lines and SECRET not in lines  # logged, the secret-looking value hidden


def test_the_transcript_and_the_history_show_a_bracketed_uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with in_notebook_folder(tmp_path, tmp_path / "user", monkeypatch) as ip:
        line(ip, f"add hostile -- {' '.join(HOSTILE)}")
        server = get_client()["hostile"]
        server.list_resources()
        server.read_resource(BRACKETED)
        server.call_tool("bracketed")
        shown = line(ip, "transcript hostile")
        text = shown.to_string() + shown._repr_html_()
        assert "resources/read https://[x]/" in text and SECRET not in text
        history = line(ip, "history")
        assert "https://[x]/" in history.to_string() and SECRET not in history.to_string()


def raising_filter(record: logging.LogRecord) -> bool:
    raise ValueError("a filter of the user's failed")


def test_a_logging_filter_that_raises_costs_no_reply_and_is_said_once(
    logged: pytest.LogCaptureFixture, client: Client, recwarn: pytest.WarningsRecorder
) -> None:
    core = logging.getLogger("mcp_notebook.core")
    core.addFilter(raising_filter)
    try:
        server = client.add("hostile", HOSTILE[0], HOSTILE[1:], request_timeout=30)
        for n in range(3):
            assert server.call_tool("echo", {"message": f"hi {n}"}).text == f"hi {n}"
        assert len(server.list_resources()) == 1
    finally:
        core.removeFilter(raising_filter)
    said = side_warnings(list(recwarn))
    assert len(said) == 1, said
    assert "logging" in said[0] and "ValueError" in said[0] and "hostile" in said[0]

"""The package's loggers (core/loggers.py) against real servers: silent unless turned on;
at DEBUG every message both ways with secret-looking values hidden and long ones cut; at
INFO connects (with the era's choice) and a card's outcome, never what was typed."""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from collections.abc import Iterator

import pytest
from test_cards import button

from mcp_notebook import Client
from mcp_notebook.core.loggers import CUT
from mcp_notebook.notebook.cards import ElicitationCard


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    caplog.set_level(logging.DEBUG, logger="mcp_notebook")
    yield caplog


def test_silent_unless_turned_on() -> None:
    """No handler configured: nothing on stderr, not even through Python's last resort."""
    script = textwrap.dedent(f"""
        import logging, sys
        from mcp_notebook import Client
        logging.getLogger("mcp_notebook").setLevel(logging.DEBUG)  # a level alone shows nothing
        client = Client()
        server = client.add("demo", {sys.executable!r}, ["-m", "mcp_notebook.demo"])
        print(server.call_tool("query_penguins", {{"species": "Gentoo", "limit": 1}}).structured["count"])
        client.close()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "124" and done.stderr == ""


def test_debug_shows_each_message_with_secrets_hidden_and_long_ones_cut(
    logged: pytest.LogCaptureFixture, everything_cmd: tuple[str, list[str]], client: Client
) -> None:
    node, args = everything_cmd
    server = client.add("everything", node, args)
    logged.clear()
    # An argument with a secret-looking name, sent unchecked (echo's schema has no such field).
    server.call_tool("echo", {"message": "x" * 5000, "api_key": "sk-live-0123456789"}, validate=False)
    lines = [r.getMessage() for r in logged.records if r.name == "mcp_notebook.core"]
    sent = next(line for line in lines if line.startswith("everything → ") and '"tools/call"' in line)
    received = next(line for line in lines if line.startswith("everything ← ") and '"result"' in line)
    assert "sk-live-0123456789" not in "\n".join(lines) and '"api_key": "***"' in sent
    assert "(5000 characters)" in sent  # a long value elided, the line itself at most CUT characters
    assert len(received) <= len("everything ← ") + CUT + 40


def test_info_says_how_each_server_connected(
    logged: pytest.LogCaptureFixture, everything_cmd: tuple[str, list[str]], client: Client
) -> None:
    logged.set_level(logging.INFO, logger="mcp_notebook")
    client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
    node, args = everything_cmd
    client.add("everything", node, args)
    lines = [r.getMessage() for r in logged.records if r.name == "mcp_notebook.runtime"]
    assert any(line.startswith("demo: connected over stdio") and "protocol 2026-07-28" in line for line in lines)
    assert any(line.startswith("everything: connected over stdio") and "protocol 2025-11-25" in line for line in lines)
    assert not any(r.levelno < logging.INFO for r in logged.records)  # no DEBUG at INFO


def test_a_card_s_outcome_is_logged_without_what_was_typed(logged: pytest.LogCaptureFixture) -> None:
    card = ElicitationCard("s", {"message": "Who?", "requestedSchema": {"properties": {"name": {"type": "string"}}}})
    card.fields[0].input.value = "Ada Lovelace"
    button(card, "Accept").click()
    lines = [r.getMessage() for r in logged.records if r.name == "mcp_notebook.notebook"]
    assert len(lines) == 1 and "→ sent by you" in lines[0] and "Ada Lovelace" not in lines[0], lines


def test_httpx_info_lines_carry_no_secret_of_a_server_url(
    caplog: pytest.LogCaptureFixture, demo_http: str, client: Client
) -> None:
    """httpx logs each request's URL at INFO: a password and an ``?api_key=`` in a server's
    URL are masked there as in reprs (a filter on the loggers of the libraries we use)."""
    password, key = "pw-5Yh2Kq9Lz", "ak-8Rt3Xw6Mn"
    url = demo_http.replace("http://", f"http://ada:{password}@") + f"?api_key={key}&region=eu"
    caplog.set_level(logging.INFO)
    server = client.add("remote", url=url)
    assert server.call_tool("query_penguins", {"limit": 1}).structured["count"] == 344
    lines = [r.getMessage() for r in caplog.records]
    sent = [line for line in lines if line.startswith("HTTP Request: POST")]
    assert sent and all("ada:***@" in line and "api_key=***" in line and "region=eu" in line for line in sent), sent
    assert not [line for line in lines if password in line or key in line]
    formatted = logging.Formatter("%(name)s %(message)s")
    assert not [r for r in caplog.records if password in formatted.format(r) or key in formatted.format(r)]


@pytest.mark.parametrize("child", ["httpcore.http11", "httpcore.connection", "httpx"])
def test_a_library_s_child_logger_masks_a_secret_url(caplog: pytest.LogCaptureFixture, child: str) -> None:
    """A logger's filter does not see its children's records: httpcore logs through
    ``httpcore.http11``, ``httpcore.connection`` …, each masked too."""
    import mcp_notebook.core.loggers  # noqa: F401  (puts the filters on, as any use of the package does)

    password, key = "pw-3Nq7Lz2Vk", "ak-9Wm4Rx1Tb"
    caplog.set_level(logging.DEBUG, logger=child)
    logging.getLogger(child).debug("send_request url=%s", f"http://ada:{password}@127.0.0.1:9/mcp?api_key={key}")
    lines = [r.getMessage() for r in caplog.records if r.name == child]
    assert lines == ["send_request url=http://ada:***@127.0.0.1:9/mcp?api_key=***"], lines

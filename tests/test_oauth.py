"""OAuth against a server built with the official SDK's auth pieces (tests/servers/
oauth_server.py: real DCR, PKCE, refresh, expiry): the login card in a real kernel, operated
as a browser and a frontend would; the file token store; no token or secret anywhere shown."""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import httpx
import nbformat
import pytest
from conftest import SERVERS
from kernels import Kernel, text_of
from test_remote import free_port, running, serve

from mcp_notebook import Client, LoginRequired, Status
from mcp_notebook.core.oauth import LoginRequest
from mcp_notebook.core.tokens import FileStore, MemoryStore
from mcp_notebook.runtime.interaction import ConsoleInteraction


@pytest.fixture(scope="module")
def oauth_url() -> Iterator[str]:
    port = free_port()
    with running([sys.executable, str(SERVERS / "oauth_server.py"), str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


def authorize(url: str) -> str:
    """What the browser does at the authorization server: it redirects (approved) to the
    redirect URI with a code. Returns that address without following it."""
    response = httpx.get(url, follow_redirects=False)
    assert response.status_code in (302, 303), response.text
    return response.headers["location"]


class Browser(ConsoleInteraction):
    """Plain Python with a 'browser': log in by following the redirect to the listener."""

    def can_login(self) -> bool:
        return True

    async def alogin(self, request: LoginRequest) -> str:
        return authorize(request.url)


def test_tokens_refresh_before_they_expire(tmp_path: Path) -> None:
    port = free_port()
    proc = serve([sys.executable, str(SERVERS / "oauth_server.py"), str(port), "4"], port)  # 4 s tokens
    client = Client(interaction=Browser())
    client.token_store = FileStore(tmp_path / "tokens.json")
    try:
        server = client.add("o", url=f"http://127.0.0.1:{port}/mcp")
        first = server.call_tool("issued").structured["result"]
        assert first >= 1
        expires = json.loads((tmp_path / "tokens.json").read_text())
        entry = next(v for k, v in expires.items() if "tokens" in v)
        import time

        deadline = entry["tokens"]["expires_at"] - 0.5  # inside the refresh margin, before expiry
        while time.time() < deadline:
            time.sleep(0.1)
        assert server.call_tool("issued").structured["result"] == first + 1  # refreshed, without a login
    finally:
        client.close()
        proc.kill()
        proc.wait()


def test_headless_login_fails_in_one_line(oauth_url: str) -> None:
    client = Client()  # no terminal here: nobody can log in
    client.token_store = MemoryStore()
    try:
        with pytest.raises(
            LoginRequired, match=r"needs a login \(http://127\.0\.0\.1:\d+\) and nobody can log in here"
        ):
            client.add("o", url=oauth_url)
        assert client["o"].status is Status.NEEDS_AUTH
    finally:
        client.close()


def test_file_store_is_private(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "cfg" / "tokens.json")
    store.save("k", {"tokens": {"access_token": "x"}})
    assert stat.S_IMODE(os.stat(tmp_path / "cfg" / "tokens.json").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "cfg").st_mode) == 0o700
    assert store.load("k") == {"tokens": {"access_token": "x"}}
    store.delete("k")
    assert store.load("k") is None and "x" not in repr(store)


def _html_with(kernel: Kernel, text: str) -> str:
    kernel.wait_for_text(text)
    return next(str(s["value"]) for s in kernel.widgets.values() if text in str(s.get("value", "")))


def test_login_card_in_a_kernel(oauth_url: str, tmp_path: Path) -> None:
    config = tmp_path / "config"
    kernel = Kernel(cwd=str(tmp_path), extra_env={"MCP_NOTEBOOK_TOKEN_STORE": "file", "XDG_CONFIG_HOME": str(config)})
    shown: list[str] = []
    client_secret = ""
    try:
        kernel.like_jupyterlab()
        shown.append(text_of(kernel.run("%load_ext mcp_notebook")))
        # The first use meets a 401: the card shows in this cell; the 'browser' follows the
        # link and comes back to the kernel's loopback listener.
        cell = kernel.start(f"%mcp add o {oauth_url}")
        card = _html_with(kernel, "needs you to log in")
        link = re.search(r"href='([^']+)'", card)
        assert link is not None
        landed = authorize(link.group(1).replace("&amp;", "&"))
        assert "Login complete" in urllib.request.urlopen(landed).read().decode()
        out = text_of(kernel.outputs(cell))
        shown.append(out)
        assert "✓ o" in out
        kernel.wait_for_text("logged in")
        shown.append(text_of(kernel.run("r = %mcp call o.issued\nr.text")))
        assert re.search(r"\d", shown[-1]), shown[-1]

        # Logged out, then in again by pasting the address (a remote kernel's way).
        shown.append(text_of(kernel.run("%mcp logout o")))
        kernel.forget_widgets()
        cell = kernel.start("%mcp login o")
        card = _html_with(kernel, "needs you to log in")
        landed = authorize(re.search(r"href='([^']+)'", card).group(1).replace("&amp;", "&"))  # type: ignore[union-attr]
        kernel.set_value("Landed on", landed)
        kernel.click("Use this address")
        shown.append(text_of(kernel.outputs(cell)))
        assert "✓ o" in shown[-1]
        # A pre-registered client with a secret (registered here by hand), from an env var.
        body = {"redirect_uris": ["http://127.0.0.1:8719/callback"], "token_endpoint_auth_method": "client_secret_post",
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}  # fmt: skip
        registration = httpx.post(oauth_url.replace("/mcp", "/register"), json=body).json()
        client_secret = registration["client_secret"]
        kernel.run(f"import os; os.environ['O_SECRET'] = {client_secret!r}")
        kernel.run("%mcp logout o")  # tokens belong to the server's URL: o2 would use o's
        kernel.forget_widgets()
        cell = kernel.start(
            f"%mcp add o2 {oauth_url} --client-id {registration['client_id']} --client-secret-env O_SECRET "
            "--redirect-port 8719"
        )
        card = _html_with(kernel, "o2 needs you to log in")
        landed = authorize(re.search(r"href='([^']+)'", card).group(1).replace("&amp;", "&"))  # type: ignore[union-attr]
        assert landed.startswith("http://127.0.0.1:8719/callback?")  # the fixed port
        urllib.request.urlopen(landed).read()
        shown.append(text_of(kernel.outputs(cell)))
        assert "✓ o2" in shown[-1]
        for line in (
            "%mcp list",
            "%mcp status o",
            "%mcp logs o",
            "import mcp_notebook; mcp_notebook.get_client()['o']",
            "mcp_notebook.get_client()['o'].config",
            "mcp_notebook.get_client()['o'].auth",
        ):
            shown.append(text_of(kernel.run(line)))
        shown.append(json.dumps(kernel.widgets))
    finally:
        kernel.close()
    store = config / "mcp-notebook" / "tokens.json"
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o600
    secrets = [
        value
        for entry in json.loads(store.read_text()).values()
        for part in ("tokens", "client")
        for key, value in (entry.get(part) or {}).items()
        if key in ("access_token", "refresh_token", "client_secret") and value
    ]
    assert secrets, "the store holds the tokens"
    secrets.append(client_secret)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text) for text in shown])
    saved = nbformat.writes(notebook)
    for secret in secrets:
        assert secret not in saved, "a token or client secret was shown"

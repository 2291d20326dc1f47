"""OAuth against a server built with the official SDK's auth pieces (tests/servers/
oauth_server.py: real DCR, PKCE, refresh, expiry): the login card in a real kernel, operated
as a browser and a frontend would; the file token store; no token or secret anywhere shown."""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import nbformat
import pytest
from support.kernels import Kernel, text_of
from support.peers import SERVERS
from support.processes import free_port, running, serve

from mcp_notebook import Client, LoginRequired, Status
from mcp_notebook.core.auth.oauth import LoginRequest
from mcp_notebook.core.auth.tokens import FileStore, MemoryStore
from mcp_notebook.errors import AuthError
from mcp_notebook.runtime.asking.interaction import ConsoleInteraction


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


@pytest.mark.kernel
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
        redirect_port = free_port()  # a pre-registered client's redirect URI names its port
        body = {"redirect_uris": [f"http://127.0.0.1:{redirect_port}/callback"],
                "token_endpoint_auth_method": "client_secret_post",
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}  # fmt: skip
        registration = httpx.post(oauth_url.replace("/mcp", "/register"), json=body).json()
        client_secret = registration["client_secret"]
        kernel.run(f"import os; os.environ['O_SECRET'] = {client_secret!r}")
        kernel.run("%mcp logout o")  # tokens belong to the server's URL: o2 would use o's
        kernel.forget_widgets()
        cell = kernel.start(
            f"%mcp add o2 {oauth_url} --client-id {registration['client_id']} --client-secret-env O_SECRET "
            f"--redirect-port {redirect_port}"
        )
        card = _html_with(kernel, "o2 needs you to log in")
        landed = authorize(re.search(r"href='([^']+)'", card).group(1).replace("&amp;", "&"))  # type: ignore[union-attr]
        assert landed.startswith(f"http://127.0.0.1:{redirect_port}/callback?")  # the port given
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


# -- 2026-07-28's authorization rules, against the same server playing them (its options) --


@contextmanager
def oauth_server(*options: str, port: int = 0) -> Iterator[str]:
    port = port or free_port()
    with running([sys.executable, str(SERVERS / "oauth_server.py"), str(port), *options], port):
        yield f"http://127.0.0.1:{port}/mcp"


class Recorder(Browser):
    """The browser, remembering each login it was asked to do."""

    def __init__(self) -> None:
        super().__init__()
        self.logins: list[LoginRequest] = []

    async def alogin(self, request: LoginRequest) -> str:
        self.logins.append(request)
        return authorize(request.url)


@pytest.mark.parametrize(
    ("mode", "refusal"),
    [
        ("correct", None),
        ("missing", r"server 'o': the login answer lacks the iss its authorization server \(http://127\.0\.0\.1:"),
        ("wrong", r"server 'o': the login answer names another issuer than http://127\.0\.0\.1:\d+ \(RFC 9207\)"),
        ("unadvertised-wrong", r"server 'o': the login answer names another issuer than http://127\.0\.0\.1:\d+ "),
    ],
)
def test_login_answer_iss_is_checked(mode: str, refusal: str | None, tmp_path: Path) -> None:
    """RFC 9207: the issuer the answer names must be the one logged in at, and be there when
    the metadata promises it; otherwise its code is never redeemed (no token kept)."""
    with oauth_server("--iss", mode) as url:
        client = Client(interaction=Recorder())
        client.token_store = FileStore(tmp_path / "tokens.json")
        try:
            if refusal is None:
                server = client.add("o", url=url)
                assert server.call_tool("issued").structured["result"] == 1
            else:
                with pytest.raises(AuthError, match=refusal) as caught:
                    client.add("o", url=url)
                assert "\n" not in str(caught.value) and "log in again" in str(caught.value)
                assert "evil" not in str(caught.value)  # what an impostor says is not repeated
                assert client["o"].status is Status.FAILED
                kept = json.loads((tmp_path / "tokens.json").read_text())
                assert kept and not any(entry.get("tokens") for entry in kept.values())  # registered, no token
        finally:
            client.close()


def test_metadata_naming_another_issuer_is_refused() -> None:
    """RFC 8414 section 3.3: metadata whose issuer is not the one it was fetched for is not
    used: no registration, no browser opened, one line saying why."""
    with oauth_server("--metadata-issuer", "https://attacker.example") as url:
        browser = Recorder()
        client = Client(interaction=browser)
        client.token_store = MemoryStore()
        try:
            with pytest.raises(
                AuthError,
                match=r"server 'o': the metadata at http://127\.0\.0\.1:\d+/\.well-known/oauth-authorization-"
                r"server does not name http://127\.0\.0\.1:\d+ as its issuer",
            ):
                client.add("o", url=url)
            assert browser.logins == []
        finally:
            client.close()
        assert httpx.post(url.replace("/mcp", "/register"), json={}).status_code == 400  # the AS is there, unused


def test_registration_says_native_and_offline_access_only_when_listed() -> None:
    """Dynamic registration sends application_type "native" (a loopback redirect); the
    scope asked for gains offline_access only where the authorization server lists it."""
    for options, scopes in ((["--offline-access"], ["offline_access", "read"]), ([], ["read"])):
        with oauth_server(*options) as url:
            browser = Recorder()
            client = Client(interaction=browser)
            client.token_store = MemoryStore()
            try:
                server = client.add("o", url=url)
                assert server.call_tool("granted").structured["result"] == scopes
                assert browser.logins[0].scopes == " ".join(sorted(scopes, reverse=True))
                assert server.call_tool("application_types").structured["result"] == ["native"]
            finally:
                client.close()


def test_moved_server_registers_at_its_new_authorization_server(tmp_path: Path) -> None:
    """A server whose resource metadata names another authorization server: its client
    registers there afresh (the old registration is never shown to the new one); the store
    keeps each issuer's registration under that issuer. The store written before the move
    is what the client starts from."""
    port = free_port()
    store = tmp_path / "tokens.json"
    with oauth_server(port=port) as url:
        client = Client(interaction=Recorder())
        client.token_store = FileStore(store)
        try:
            first = client.add("o", url=url).call_tool("registrations").structured["result"]
        finally:
            client.close()
    assert len(first) == 1
    with oauth_server("--issuer-host", "localhost", port=port) as url:  # the same server, another AS
        browser = Recorder()
        client = Client(interaction=browser)
        client.token_store = FileStore(store)
        try:
            server = client.add("o", url=url)
            second = server.call_tool("registrations").structured["result"]
            assert server.call_tool("application_types").structured["result"] == ["native"]
        finally:
            client.close()
    assert len(second) == 1 and second != first
    assert [request.issuer for request in browser.logins] == [f"http://localhost:{port}"]
    kept = json.loads(store.read_text())
    clients = {key.split()[-1]: entry["client"]["client_id"] for key, entry in kept.items() if "client" in entry}
    assert clients == {f"http://127.0.0.1:{port}": first[0], f"http://localhost:{port}": second[0]}


def test_pre_registered_client_is_not_taken_to_another_authorization_server(tmp_path: Path) -> None:
    """A client id registered by hand belongs to one authorization server: when the server
    moves, the login stops with one line saying what to do, and the id goes nowhere else."""
    port = free_port()
    store = FileStore(tmp_path / "tokens.json")
    redirect_port = free_port()
    with oauth_server(port=port) as url:
        body = {"redirect_uris": [f"http://127.0.0.1:{redirect_port}/callback"], "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}  # fmt: skip
        client_id = httpx.post(url.replace("/mcp", "/register"), json=body).json()["client_id"]
        client = Client(interaction=Recorder())
        client.token_store = store
        oauth = {"client_id": client_id, "redirect_port": redirect_port}
        try:
            assert client.add("o", url=url, oauth=oauth).call_tool("issued").structured["result"] == 1
        finally:
            client.close()
    with oauth_server("--issuer-host", "localhost", port=port) as url:
        browser = Recorder()
        client = Client(interaction=browser)
        client.token_store = store
        try:
            with pytest.raises(AuthError, match=rf"server 'o' moved from the authorization server http://127\.0\.0\.1:"
                               rf"{port} to http://localhost:{port}; its pre-registered client id belongs to the old "
                               r"one: register a client at the new one and give its id"):  # fmt: skip
                client.add("o", url=url, oauth=oauth)
            assert browser.logins == []
        finally:
            client.close()


class SlowPerson(Browser):
    """Takes longer to log in than the server has to answer a request (the clock under test)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds, self.asked = seconds, 0

    async def alogin(self, request: LoginRequest) -> str:
        self.asked += 1
        await asyncio.sleep(self.seconds)  # reading the card, typing a password: time passes
        return authorize(request.url)


def test_one_login_however_long_the_person_takes(tmp_path: Path) -> None:
    """The login happens inside the era's probe: the probe's deadline (3 s) must not run while
    the person logs in (4 s here), or the probe times out, the login is withdrawn, the server
    is taken for a legacy one and a second login asked. The rest of the probe (the OAuth
    discovery, the token request, the answer) has its whole 3 s, even on a busy machine."""
    port = free_port()
    person = SlowPerson(4.0)
    client = Client(interaction=person)
    client.token_store = MemoryStore()
    client.settings.startup_timeout = 30.0  # the probe waits min(half of it, 3 s)
    with running([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port), "--oauth"], port):
        try:
            server = client.add("o", url=f"http://127.0.0.1:{port}/mcp")
            assert person.asked == 1
            assert server.protocol_version == "2026-07-28"  # the probe was answered, not timed out
        finally:
            client.close()

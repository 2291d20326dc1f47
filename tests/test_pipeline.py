"""The blocking and the awaited form of every operation give the same outcome.

Every operation on ``Server`` and ``Client`` has a blocking form and an awaitable one
(``a`` prefix). A person picks one by where they are (a script, an async program, a cell
that awaits on ipykernel 7); what they get must not depend on it: the same result, or the
same error type and message; the same approvals asked, the same progress shown, the same
pages shown for error -32042, and the same server named while the call waits (that is
whose log lines show in the cell). Each case below runs both forms with the same inputs
against real servers: the bundled demo (stdio and Streamable HTTP), server-everything,
tests/servers/faulty.py (-32042, a tool that never answers, startup faults) and
faulty_http.py (a server that forgets its sessions). The awaited form runs from its own
event loop in the test thread (``asyncio.run``), as an async program would.

Each runs twice: with an interaction where nobody is asked (the blocking fast path reads
the reply on the calling thread), and with one that services prompts and shows progress,
as the notebook's does (waits go through ``wait``/``await_``/``blocking``).
tests/test_pipeline_kernel.py checks the same in real kernels.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest
from support.peers import EVERYTHING, SERVERS, faulty_cmd, node
from support.processes import free_port, running

from mcp_notebook import ApprovalPolicy, ApprovalRequest, Client, Server
from mcp_notebook.runtime.asking.interaction import ApprovalAnswer, Interaction

DEMO = [sys.executable, "-m", "mcp_notebook.demo"]
PAGE = {"mode": "url", "elicitationId": "e-1", "url": "https://auth.example/connect", "message": "Connect your account"}
PROGRESS: Any = object()  # in a case's kwargs: a progress callback that records what it gets


class Recorder(Interaction):
    """What the runtime asks of a person or shows them, in order; approvals are answered
    from ``answers``, as a person would."""

    def __init__(self, prompting: bool) -> None:
        self.services_prompts = prompting
        self.shows_progress = prompting
        self.answers: list[ApprovalAnswer] = []
        self.seen: list[tuple[Any, ...]] = []
        self.waited_for: set[str | None] = set()  # the servers named by waits

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.seen.append(("approve", request))
        return self.answers.pop(0) if self.answers else "deny"

    def wait(self, start: Any, server: str | None = None) -> Any:
        self.waited_for.add(server)
        return super().wait(start, server)

    async def await_(self, start: Any, server: str | None = None) -> Any:
        self.waited_for.add(server)
        return await super().await_(start, server)

    def blocking(self, server: str | None) -> Any:
        self.waited_for.add(server)
        return super().blocking(server)

    def progress(self, server: str, tool: str, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append(("progress", server, tool, progress, total, message))

    def show_urls(self, server: str, elicitations: list[dict[str, Any]], *, awaiting: bool = False) -> None:
        # (awaiting differs by design: a kernel may deliver clicks to an awaiting cell only)
        self.seen.append(("show_urls", server, elicitations))


@dataclass
class Outcome:
    result: Any = None
    error: tuple[str, str] | None = None  # its type's name and its message
    seen: list[tuple[Any, ...]] = field(default_factory=list)
    named: set[str] = field(default_factory=set)  # servers named while waiting (their logs show)

    @property
    def kind(self) -> str:
        return self.error[0] if self.error else "ok"


# Refused before anything is sent: which server a wait named (if any) shows nothing.
BEFORE_SENDING = {"ArgumentError", "InvalidArguments", "ToolDenied", "ConfigError", "UnknownServer"}


def assert_same(blocking: Outcome, awaited: Outcome, sent: bool = True) -> None:
    """Equal outcomes; where nothing reached the server, whichever server a wait named is moot."""
    if not sent or (blocking.kind in BEFORE_SENDING and awaited.kind == blocking.kind):
        awaited = Outcome(awaited.result, awaited.error, awaited.seen, blocking.named)
    assert awaited == blocking


def comparable(value: Any) -> Any:
    """Results compare as they are (dataclasses); a Server by what a person sees of it."""
    if isinstance(value, Server):
        return ("Server", repr(value), value.status, value.transport_name, value.server_info, value.error)
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


async def _awaited(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return await fn(*args, **kwargs)


@dataclass
class World:
    client: Client
    recorder: Recorder
    targets: dict[str, Any]
    demo_url: str

    def outcome(self, run: Callable[[], Any], before: Callable[[], None] | None) -> Outcome:
        self.client.approval.always_allowed.clear()
        if before is not None:
            before()
        recorder = self.recorder
        recorder.seen, recorder.waited_for = [], set()
        try:
            result, error = comparable(run()), None
        except Exception as e:  # a different type is part of what is compared
            result, error = None, (type(e).__name__, str(e))
        return Outcome(result, error, recorder.seen, {s for s in recorder.waited_for if s is not None})

    def both(
        self, target: str, method: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None,
        before: Callable[[], None] | None = None,
    ) -> tuple[Outcome, Outcome]:  # fmt: skip
        """The blocking form's outcome, then the awaited form's, from the same inputs."""
        obj = self.targets[target]
        recorder = self.recorder
        kwargs = {
            k: (lambda p, t, m: recorder.seen.append(("on_progress", p, t, m))) if v is PROGRESS else v
            for k, v in (kwargs or {}).items()
        }
        blocking = self.outcome(lambda: getattr(obj, method)(*args, **kwargs), before)
        awaited = self.outcome(lambda: asyncio.run(_awaited(getattr(obj, "a" + method), args, kwargs)), before)
        return blocking, awaited


@pytest.fixture(scope="module", params=["nobody-asked", "prompting"])
def world(request: pytest.FixtureRequest) -> Iterator[World]:
    recorder = Recorder(prompting=request.param == "prompting")
    client = Client(interaction=recorder)
    port = free_port()
    with running([*DEMO, "--http", str(port)], port), contextlib.closing(client):
        url = f"http://127.0.0.1:{port}/mcp"
        targets: dict[str, Any] = {
            "client": client,
            "demo": client.add("demo", DEMO[0], DEMO[1:]),
            "demohttp": client.add("demohttp", url=url),
            "everything": client.add("everything", node(), [str(EVERYTHING), "stdio"]),
            "faulty": client.add("faulty", *faulty_cmd("ok")),
            "slow": client.add("slow", *faulty_cmd("ok"), request_timeout=0.5),  # its default timeout
        }
        for name in ("demo", "demohttp"):
            targets[name].list_tools()  # their qualified names resolve from here on
        yield World(client, recorder, targets, url)


# -- one table: every operation, the same inputs both ways --------------------------------


@dataclass
class Case:
    target: str
    method: str  # the blocking form; the awaited one is "a" + method
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    expect: str = "ok"  # the outcome both must have: "ok" or the error type's name
    says: str = ""  # what the error message (or the result's repr) must contain; {server}: the target
    policy: dict[str, Any] | None = None  # the approval policy for the case
    answers: tuple[ApprovalAnswer, ...] = ()  # the person's answers to approvals, in order
    seen: list[tuple[Any, ...]] | None = None  # what the interaction must have been asked or shown (in order)
    sends: bool = True  # whether it sends anything (a modern server's log level is kept, not sent)


def case(id: str, *args: Any, **kwargs: Any) -> Any:
    return pytest.param(Case(*args, **kwargs), id=id)


def on_demo(id: str, method: str, *args: Any, **kwargs: Any) -> list[Any]:
    """The same case for the demo over stdio and over Streamable HTTP."""
    return [case(f"{id}-{target}", target, method, *args, **kwargs) for target in ("demo", "demohttp")]


QUERY = {"species": "Gentoo", "limit": 2}
EPOCHS = [("on_progress", i, 3, f"epoch {i}/3") for i in (1, 2, 3)]

# fmt: off
CASES = [
    *on_demo("call_tool", "call_tool", ("query_penguins", QUERY)),
    *on_demo("call_tool-numpy-pandas", "call_tool",
             ("query_penguins", {"species": np.str_("Gentoo"), "limit": np.int64(2), "island": pd.NA,
                                 "min_body_mass_g": np.int32(5000)})),
    *on_demo("call_tool-not-a-dict", "call_tool", ("query_penguins", pd.Series(QUERY)), expect="ArgumentError",
             says="arguments must be a dict, not Series"),
    *on_demo("call_tool-invalid", "call_tool", ("query_penguins", {"limit": "many"}), expect="InvalidArguments",
             says="limit"),
    *on_demo("call_tool-not-validated", "call_tool", ("query_penguins", {"limit": "many"}), {"validate": False},
             says="is_error=True"),
    *on_demo("call_tool-unknown", "call_tool", ("penguins",), expect="UnknownTool",
             says="server '{server}' has no tool 'penguins'; did you mean 'plot_penguins', 'query_penguins', "
                  "'summarize_penguins'?"),
    *on_demo("call_tool-progress", "call_tool", ("fit_model", {"epochs": 3, "seconds_per_epoch": 0}),
             {"on_progress": PROGRESS}, says="1 content block"),
    *on_demo("call_tool-deny-list", "call_tool", ("query_penguins", QUERY), expect="ToolDenied",
             says="{server}.query_penguins is on the deny list; nothing was sent", policy={"deny": {"*": ["query_*"]}}),
    *on_demo("call_tool-approved", "call_tool", ("query_penguins", QUERY), policy={"mode": "always"},
             answers=("approve",)),
    *on_demo("call_tool-always-allowed", "call_tool", ("query_penguins", QUERY), policy={"mode": "always"},
             answers=("always",)),
    *on_demo("call_tool-denied", "call_tool", ("delete_penguins", {"species": "Adelie"}), expect="ToolDenied",
             says="{server}.delete_penguins was denied; nothing was sent", answers=("deny",)),
    case("call_tool-page-needed", "faulty", "call_tool", ("needs_url",), expect="RPCError",
         says="faulty needs you to complete a step in your browser first (https://auth.example/connect); then call "
              "again", seen=[("show_urls", "faulty", [PAGE])]),
    case("call_tool-timeout", "faulty", "call_tool", ("hang",), {"timeout": 0.5}, expect="RequestTimeout",
         says="tools/call to server 'faulty' got no answer in 0.5 s"),
    case("call_tool-default-timeout", "slow", "call_tool", ("hang",), expect="RequestTimeout",
         says="tools/call to server 'slow' got no answer in 0.5 s"),
    case("request-default-timeout", "slow", "request", ("faulty/hang",), expect="RequestTimeout",
         says="faulty/hang to server 'slow' got no answer in 0.5 s"),
    case("call_tool-everything", "everything", "call_tool", ("get-sum", {"a": np.int32(2), "b": np.float64(3.5)}),
         says="1 content block"),
    *on_demo("read_resource", "read_resource", ("penguins://about",)),
    *on_demo("read_resource-numpy", "read_resource", (np.str_("penguins://species/gentoo.csv"),), says="text/csv"),
    *on_demo("read_resource-unknown", "read_resource", ("penguins://nope",), expect="RPCError",
             says="Unknown resource: penguins://nope"),
    *on_demo("read_resource-not-a-uri", "read_resource", (42,), expect="ArgumentError", says="not int"),
    *on_demo("get_prompt", "get_prompt", ("explore", {"question": "heaviest?", "species": np.str_("Gentoo")})),
    *on_demo("get_prompt-missing-argument", "get_prompt", ("explore", {"species": "Gentoo"}), expect="ArgumentError",
             says="question"),
    *on_demo("get_prompt-unknown", "get_prompt", ("explor",), expect="UnknownPrompt",
             says="server '{server}' has no prompt 'explor'; did you mean 'explore'?"),
    case("get_prompt-everything", "everything", "get_prompt", ("args-prompt", {"city": "Paris"}), says="1 message"),
    *on_demo("complete", "complete", ({"type": "ref/prompt", "name": "explore"}, "species", "G")),
    *on_demo("complete-template", "complete",
             ({"type": "ref/resource", "uri": "penguins://species/{species}.csv"}, "species", "c")),
    case("complete-everything", "everything", "complete",
         ({"type": "ref/prompt", "name": "completable-prompt"}, "department", "E")),
    case("set_log_level", "everything", "set_log_level", ("debug",)),
    case("set_log_level-unknown", "everything", "set_log_level", ("loud",), expect="ArgumentError",
         says="unknown log level 'loud'"),
    # The demo speaks 2026-07-28: the level goes with each request, the subscription on subscriptions/listen.
    *on_demo("set_log_level-modern", "set_log_level", ("debug",), sends=False),
    case("subscribe", "everything", "subscribe", ("demo://resource/static/document/features.md",)),
    case("unsubscribe", "everything", "unsubscribe", ("demo://resource/static/document/features.md",)),
    *on_demo("subscribe-modern", "subscribe", ("penguins://about",)),
    *on_demo("request", "request", ("prompts/list",)),
    *on_demo("request-unknown-method", "request", ("nope/nothing",), expect="RPCError", says="Method not found"),
    *on_demo("ping", "ping"),
    *on_demo("list_tools", "list_tools"),
    *on_demo("list_tools-refresh", "list_tools", (), {"refresh": True}),
    *on_demo("list_resources", "list_resources"),
    *on_demo("list_resource_templates", "list_resource_templates"),
    *on_demo("list_prompts", "list_prompts", (), {"refresh": True}),
    case("list_tools-everything", "everything", "list_tools"),
    case("login-stdio", "demo", "login", expect="NotConnected",
         says="server 'demo' runs locally (stdio): it has no login"),
    case("restart", "faulty", "restart", says="<Server 'faulty' stdio connected faulty 0>"),
    case("connect", "faulty", "connect", says="<Server 'faulty' stdio connected faulty 0>"),  # closes, connects
    case("client.call_tool", "client", "call_tool", ("mcp__demo__query_penguins", {"limit": np.int64(1)})),
    case("client.call_tool-http", "client", "call_tool", ("mcp__demohttp__query_penguins", {"limit": 1})),
    case("client.call_tool-unknown", "client", "call_tool", ("mcp__demo__nope",), expect="UnknownTool",
         says="server 'demo' has no tool 'nope'"),
    case("client.restart-unknown", "client", "restart", ("nobody",), expect="UnknownServer",
         says="no server named 'nobody'"),
    case("client.remove-unknown", "client", "remove", ("nobody",), expect="UnknownServer",
         says="no server named 'nobody'"),
]
# fmt: on


@pytest.mark.parametrize("case", CASES)
def test_both_forms_give_the_same_outcome(world: World, case: Case) -> None:
    saved = world.client.approval
    if case.policy is not None:
        world.client.approval = ApprovalPolicy(**case.policy)

    def answers() -> None:
        world.recorder.answers = list(case.answers)

    try:
        blocking, awaited = world.both(case.target, case.method, case.args, case.kwargs, answers)
    finally:
        world.client.approval = saved
    assert_same(blocking, awaited)
    # Both did what the case is about (not the same wrong thing).
    assert blocking.kind == case.expect, blocking
    shown = blocking.error[1] if blocking.error else repr(blocking.result)
    assert case.says.format(server=case.target) in shown
    assert "\n" not in shown or not blocking.error  # errors are one line
    if case.answers:
        asked = [e for e in blocking.seen if e[0] == "approve"]
        assert len(asked) == 1 and asked[0][1].tool == case.args[0]
    if case.seen is not None:
        assert blocking.seen == case.seen
    if case.kwargs.get("on_progress") is PROGRESS:
        assert [e for e in blocking.seen if e[0] == "on_progress"] == EPOCHS
        if world.recorder.shows_progress:  # and the interaction's progress bar got the same
            bar = [e for e in blocking.seen if e[0] == "progress"]
            assert bar == [("progress", case.target, "fit_model", *e[1:]) for e in EPOCHS]
    if world.recorder.services_prompts and blocking.kind not in BEFORE_SENDING and case.sends:
        # The call's wait named its server: that server's log lines show in the waiting cell.
        served = case.args[0].split("__")[1] if case.target == "client" else case.target
        assert blocking.named == {served}


# -- Client.add / aadd ----------------------------------------------------------------------

# fmt: off
ADDS = [
    pytest.param((DEMO[0], DEMO[1:]), {}, "ok", "<Server 'added' stdio connected penguins 1.0.0>", id="stdio"),
    pytest.param((), {"url": "DEMO_URL"}, "ok", "<Server 'added' http connected penguins 1.0.0>", id="remote"),
    pytest.param((DEMO[0], DEMO[1:]), {"connect": False}, "ok", "<Server 'added' stdio closed>", id="not-connected"),
    pytest.param(faulty_cmd("crash-at-start"), {}, "StartupError",
                 "exited during startup with code 2; stderr: fatal: MY_API_KEY is not set", id="crash"),
    pytest.param(faulty_cmd("no-init"), {"startup_timeout": 0.5}, "StartupError",
                 "did not answer within 0.5 s", id="startup-timeout"),
    pytest.param(faulty_cmd("bad-version"), {}, "ProtocolError", "1999-01-01", id="bad-version"),
    pytest.param((), {"url": "http://127.0.0.1:1/mcp", "transport": "http"}, "NotSent",  # a TransportError
                 "cannot reach http://127.0.0.1:1/mcp", id="refused"),
]
# fmt: on


@pytest.mark.parametrize(("args", "kwargs", "expect", "says"), ADDS)
def test_add_and_aadd_give_the_same_server(
    world: World, args: tuple[Any, ...], kwargs: dict[str, Any], expect: str, says: str
) -> None:
    client = world.client
    kwargs = {k: world.demo_url if v == "DEMO_URL" else v for k, v in kwargs.items()}

    def fresh() -> None:
        if "added" in client:
            client.remove("added")

    try:
        blocking, awaited = world.both("client", "add", ("added", *args), kwargs, fresh)
    finally:
        fresh()
    assert_same(blocking, awaited, sent=kwargs.get("connect", True))
    assert blocking.kind == expect, blocking
    assert says in (blocking.error[1] if blocking.error else blocking.result[1])


@pytest.mark.parametrize("name", ["bad name", "mcp__x"])
def test_add_and_aadd_refuse_the_same_names(world: World, name: str) -> None:
    blocking, awaited = world.both("client", "add", (name, DEMO[0], DEMO[1:]))
    assert_same(blocking, awaited)
    assert blocking.kind == "ConfigError" and name not in world.client


# -- after the server forgot the session (Streamable HTTP, 404) ------------------------------


@pytest.fixture(scope="module")
def forgetful(world: World) -> Iterator[str]:
    """faulty_http.py: its ``forget`` tool makes it forget every session (404 from then on)."""
    port = free_port()
    with running([sys.executable, str(SERVERS / "faulty_http.py"), str(port)], port):
        base = f"http://127.0.0.1:{port}"
        world.targets["forgetful"] = world.client.add("forgetful", url=f"{base}/ok/mcp", transport="http")
        try:
            yield base
        finally:
            world.client.remove("forgetful")


def echoes(base: str) -> int:
    with urllib.request.urlopen(f"{base}/ok/counts", timeout=30) as response:
        return int(json.load(response).get("echo", 0))


@pytest.mark.parametrize(
    ("method", "args", "kwargs", "expect", "says"),
    [
        pytest.param("call_tool", ("echo",), {}, "SessionExpired",
                     "ended the session (HTTP 404); a new session is open, but the call was not sent again",
                     id="call_tool"),
        pytest.param("list_tools", (), {"refresh": True}, "ok", "Tool(server='forgetful', name='echo'",
                     id="list_tools"),
        pytest.param("request", ("tools/list",), {}, "ok", "'name': 'echo'", id="request"),
    ],
)  # fmt: skip
def test_both_forms_renew_an_expired_session_alike(
    world: World, forgetful: str, method: str, args: tuple[Any, ...], kwargs: dict[str, Any], expect: str, says: str
) -> None:
    server = world.targets["forgetful"]
    sent: list[int] = []

    def forget() -> None:
        server.call_tool("forget")
        sent.append(echoes(forgetful))

    blocking, awaited = world.both("forgetful", method, args, kwargs, forget)
    assert_same(blocking, awaited)
    assert blocking.kind == expect, blocking
    assert says in (blocking.error[1] if blocking.error else repr(blocking.result))
    assert sent[0] == sent[1] == echoes(forgetful)  # neither form sent a refused call again by itself
    assert server.call_tool("echo").text == "fine"  # the new session works


# -- nobody at the keyboard ------------------------------------------------------------------


def test_headless_console_denies_the_same_way() -> None:
    """The default interaction (ConsoleInteraction; pytest's stdin is not a terminal)."""
    client = Client()
    try:
        demo = client.add("demo", DEMO[0], DEMO[1:])
        args = ("delete_penguins", {"species": "Gentoo"})
        outcomes = []
        for run in (lambda: demo.call_tool(*args), lambda: asyncio.run(_awaited(demo.acall_tool, args, {}))):
            with pytest.raises(Exception) as info:  # its type and message are compared below
                run()
            outcomes.append((type(info.value).__name__, str(info.value)))
        assert outcomes[0] == outcomes[1]
        assert outcomes[0][0] == "ToolDenied" and "nobody can answer here" in outcomes[0][1]
        assert demo.call_tool("query_penguins", {"species": "Gentoo"}).structured["count"] == 124  # nothing deleted
    finally:
        client.close()

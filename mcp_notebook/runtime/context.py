"""The runtime context: what a ``Client`` and each of its ``Server`` handles share.

The background loop, the ``Settings``, the approval policy, the interaction (whoever sits
at the kernel), the handlers for the servers' questions, the token store, the qualified
tool names and the listeners of every server's notifications live here, once; and so do
the two ways of waiting for work on the loop: ``run`` (blocking) and ``awaitable``.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from ..core.approval import ApprovalPolicy
from ..core.auth.oauth import LoginRequest
from ..core.auth.tokens import TokenStore, default_store
from ..core.config.schema import is_seconds
from ..core.config.servers import ServerConfig
from ..core.history.calls import HISTORY_SIZE, History, Recorder
from ..core.naming import ToolNames
from ..core.protocol.tasks import TaskLog
from ..core.session.session import Handlers
from ..core.transports import DEFAULT_MAX_MESSAGE_SIZE
from ..errors import ConfigError, ToolDenied
from .asking.interaction import ApprovalAnswer, ApprovalRequest, ConsoleInteraction, Interaction
from .loop import LoopThread, default_loop
from .steps import AwaitingSteps, BlockingSteps

T = TypeVar("T")
JSON = dict[str, Any]


class _Default:
    def __repr__(self) -> str:
        return "DEFAULT"


TASK_TIMEOUT = 600.0  # Settings.task_timeout: a headless run never waits for ever on a task
# A request's ``timeout`` when none is given: the server's configured one (None means "no limit").
DEFAULT: Any = _Default()


# The timeouts a Settings checks when set: whether None is allowed (it means no limit).
_TIMEOUTS = {"startup_timeout": False, "request_timeout": True, "task_timeout": True, "connect_timeout": False,
             "read_timeout": True}  # fmt: skip


class Settings:
    """Defaults a Client gives its servers; each can be changed at any time. A timeout is a
    number of seconds above 0, checked when set (NaN or infinity would be no deadline)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _TIMEOUTS and not (is_seconds(value) or (value is None and _TIMEOUTS[name])):
            no_limit = " (None: no limit)" if _TIMEOUTS[name] else ""
            raise ConfigError(f"settings.{name} must be a number of seconds above 0{no_limit}, not {value!r}")
        super().__setattr__(name, value)

    def __init__(
        self,
        *,
        startup_timeout: float = 30.0,
        request_timeout: float | None = 60.0,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        validate: bool = True,
        connect_timeout: float = 30.0,
        read_timeout: float | None = None,
        tls_verify: bool | str = True,
        history_size: int = HISTORY_SIZE,
        task_timeout: float | None = TASK_TIMEOUT,
    ) -> None:
        self.startup_timeout = startup_timeout
        self.request_timeout = request_timeout
        # How long a call the server runs as a task may take, start to end, where nobody can
        # stop it (a headless run) and the call gave no timeout; None: no limit. A call's own
        # timeout is its task's deadline everywhere.
        self.task_timeout = task_timeout
        self.max_message_size = max_message_size  # a stdio line, an HTTP body, an SSE event
        self.validate = validate
        # Remote servers: connecting (and waiting for an answer to begin); silence on an
        # open stream (None: wait, the request timeout decides); certificate checks
        # (True, False, or the path of a CA bundle).
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.tls_verify = tls_verify
        # Requests kept in the kernel's history, and messages in each server's transcript; 0: none.
        self.history_size = history_size

    def __repr__(self) -> str:
        return (
            f"Settings(startup_timeout={self.startup_timeout}, request_timeout={self.request_timeout}, "
            f"max_message_size={self.max_message_size}, validate={self.validate}, "
            f"connect_timeout={self.connect_timeout}, read_timeout={self.read_timeout}, "
            f"tls_verify={self.tls_verify!r}, history_size={self.history_size}, task_timeout={self.task_timeout})"
        )


class Runtime:
    """What a Client and its servers share (see the module's docstring). Every attribute
    may be replaced at any time: the servers read them when they use them."""

    def __init__(
        self,
        *,
        handlers: Handlers | None = None,
        settings: Settings | None = None,
        approval: ApprovalPolicy | None = None,
        interaction: Interaction | None = None,
        loop: LoopThread | None = None,
    ) -> None:
        self.handlers = handlers or Handlers()
        self.settings = settings or Settings()
        self.approval = approval or ApprovalPolicy()
        self.interaction: Interaction = interaction or ConsoleInteraction()
        self.loop = loop or default_loop()
        self.tool_names = ToolNames()
        # Called as fn(server_name, method, params) for every server's notifications.
        self.notification_listeners: list[Callable[[str, str, JSON], Any]] = []
        # Likewise fn(server_name, method, params, tag): see Client.tagged_listeners.
        self.tagged_listeners: list[Callable[[str, str, JSON, str | None], Any]] = []
        self.call_hooks: list[Callable[[Any], Any]] = []  # fn(CallEvent) after every tool call (Client.on_call)
        self._token_store: TokenStore | None = None
        self.tasks = TaskLog()  # the tasks seen (%mcp tasks)
        self._history = History(self.settings.history_size)  # %mcp history and transcript
        self.blocking_steps = BlockingSteps(self)
        self.awaiting_steps = AwaitingSteps(self)

    def __repr__(self) -> str:
        return f"<Runtime {type(self.interaction).__name__}>"

    @property
    def token_store(self) -> TokenStore:
        """Where OAuth tokens live (see mcp_notebook.core.auth.tokens); settable."""
        if self._token_store is None:
            self._token_store = default_store()
        return self._token_store

    @token_store.setter
    def token_store(self, store: TokenStore) -> None:
        self._token_store = store

    @property
    def history(self) -> History:
        """Every server's requests and transcripts, as large as ``settings.history_size`` says."""
        self._history.size = max(0, int(self.settings.history_size))
        return self._history

    def recorder(self, server: str) -> Recorder:
        """What a new session of ``server`` records its traffic with."""
        return self.history.recorder(server)

    # -- waiting for work on the loop ----------------------------------------------------

    def run(self, coro: Coroutine[Any, Any, T], server: str | None = None) -> T:
        """Block for ``coro`` (run on the background loop), answering prompts meanwhile;
        ``server`` is the one it talks to (its log messages show while it waits)."""
        loop = self.loop
        if not self.interaction.services_prompts or loop.in_loop_thread():
            return loop.run(coro)
        # The interaction starts it, so that it listens before the server can ask anything.
        return self.interaction.wait(lambda: loop.submit(coro), server)

    def awaitable(self, coro: Coroutine[Any, Any, T], server: str | None = None) -> Coroutine[Any, Any, T]:
        """``coro`` made awaitable from any event loop, answering prompts meanwhile."""
        loop = self.loop
        if not self.interaction.services_prompts or loop.in_loop_thread():
            return loop.wrap(coro)
        return self.interaction.await_(lambda: loop.submit(coro), server)

    # -- asking a person -----------------------------------------------------------------

    def approval_request(
        self, server: str, tool: str, listing: JSON | None, arguments: JSON, config: ServerConfig | None = None
    ) -> ApprovalRequest | None:
        """What to ask before ``server.tool`` runs; None when the policy lets the call
        through, ToolDenied when it forbids it. ``listing``: the tool's entry, if known;
        ``config``: the server's (its ``alwaysAllow`` tools never ask)."""
        annotations = (listing or {}).get("annotations") or {}
        decision = self.approval.decide(server, tool, annotations, config.allowed_tools if config else ())
        if decision == "allow":
            return None
        if decision == "deny":
            raise ToolDenied(f"{server}.{tool} is on the deny list; nothing was sent")
        title = (listing or {}).get("title") or annotations.get("title")
        return ApprovalRequest(server, tool, title, annotations, arguments)

    def take_answer(self, request: ApprovalRequest, answer: ApprovalAnswer) -> None:
        """The person's answer: ToolDenied unless it lets the call through."""
        if answer == "always":
            self.approval.always_allowed.add((request.server, request.tool))
        elif answer != "approve":
            raise ToolDenied(f"{request.shown} was denied; nothing was sent")

    def can_login(self) -> bool:
        return self.interaction.can_login()

    async def login(self, request: LoginRequest) -> str:
        """A server needs a person to log in: the interaction shows how (a card in the
        cell, a terminal prompt); where nobody can, LoginRequired says what to do."""
        return await self.interaction.alogin(request)


__all__ = ["DEFAULT", "TASK_TIMEOUT", "Runtime", "Settings"]

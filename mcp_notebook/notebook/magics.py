"""The %mcp line magic and the %%mcp_call cell magic."""

from __future__ import annotations

from typing import Any, Literal

from IPython import get_ipython
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class, no_var_expand
from traitlets import Bool, Dict, Enum, Float, Int, List, TraitError, Unicode, Union, observe, validate

from .. import commands
from ..commands import display
from ..commands.parsing import split
from ..commands.steps import AWAITING, BLOCKING, Taker
from ..core.approval import Mode
from ..core.config.schema import is_seconds
from ..errors import (
    ArgumentError,
    ConfigError,
    MCPError,
    NotConnected,
    ToolDenied,
    UnknownPrompt,
    UnknownServer,
    UnknownTool,
)
from ..runtime.client import Client, get_client
from ..runtime.context import TASK_TIMEOUT
from ..runtime.steps import drive
from . import notices, subcommands  # noqa: F401 (registers form, subscribe and unsubscribe)
from .bridge import NotebookInteraction
from .modes import UNASKED_IN_VOILA, in_voila, voila_before_page
from .places import cell_text

__all__ = ["MCPMagics"]

# Errors the user fixes by typing something else: one line, no traceback.
_USER_ERRORS = (ArgumentError, ConfigError, NotConnected, ToolDenied, UnknownServer, UnknownTool, UnknownPrompt)


NOT_SENT = (
    "This call needs you, and Voilà ran the notebook before this page could ask: press Run to make "
    "it here (nothing was sent yet). The result shows below, and in _mcp_form."
)
ANSWERED_FOR_YOU = (
    "The server asked you something during this call, and Voilà ran the notebook before this page "
    "could show it, so the policy answered for you. Press Run to make the call again here and answer "
    "it yourself. The result shows below, and in _mcp_form."
)


def _run_in_page(fn: Any, args: tuple[Any, ...], why: str = NOT_SENT) -> Any:
    """A call that needed a person while Voilà ran the notebook (nobody could answer): a
    card to make it from the page, once the page is there. Its **Run** makes the same call,
    and what it asks (approval, a form) shows in the card (forms.py)."""
    from .forms import Form

    ctx, given = args[0], args[1]
    # What was typed: the subcommand (the command's function) and its words, or the cell magic's line.
    typed = f"%mcp {fn.__name__} {' '.join(map(str, given))}" if isinstance(given, list) else f"%%mcp_call {given}"
    form = Form(
        typed,
        why,
        {},
        None,
        lambda _: fn(*args),
        ctx.namespace,
        "_mcp_form",
    )
    from IPython.display import display as show

    show(form)
    return None


def _shown_in_voila(error: MCPError, name: str) -> None:
    """Voilà keeps no error output on its page (only a generic line): there the one line is
    also shown as an output of its own, so that the page says what went wrong."""
    if not in_voila():
        return
    text = f"{name}: {error}"
    if isinstance(error, ToolDenied) and error.unanswered:
        text += " (in Voilà a cell runs before the page can show a card: %mcp form SERVER.TOOL asks in the page)"
    notices.show_error_line(text)


def _one_line(error: MCPError) -> MCPError:
    """Show a server or protocol error as its one line (with its type), no traceback; its
    type in red unless IPython's colours are off (``--colors=nocolor``)."""
    name = type(error).__name__

    def render() -> list[str]:
        shell = get_ipython()
        plain = shell is None or str(getattr(shell, "colors", "")).lower() == "nocolor"
        said = cell_text(str(error))  # error output: JupyterLab would make links of its addresses
        return [f"{name}: {said}" if plain else f"\x1b[0;31m{name}\x1b[0m: {said}"]

    error._render_traceback_ = render  # type: ignore[attr-defined]
    return error


def _words(line: str) -> list[str]:
    """A line's words; a trailing ; hides the output (IPython's rule) and is not one of them."""
    try:
        return split(line.rstrip().removesuffix(";"))
    except ArgumentError as e:
        raise UsageError(str(e)) from None


@magics_class
class MCPMagics(Magics):
    """Settings (``%config MCPMagics.NAME = VALUE``) and the magics themselves."""

    shell: InteractiveShell  # always made with one (Magics allows None)

    startup_timeout = Float(30.0, help="Seconds a server may take to start and answer initialize.").tag(config=True)
    request_timeout = Float(
        60.0, allow_none=True, help="Seconds to wait for an answer (restarts on progress); None waits for ever."
    ).tag(config=True)
    task_timeout = Float(
        TASK_TIMEOUT,
        allow_none=True,
        help="Seconds a call the server runs as a task may take where nobody can stop it (a headless run) and the "
        "call gave no timeout; then the task is cancelled. None waits for ever.",
    ).tag(config=True)
    validate_arguments = Bool(True, help="Check tool arguments against the tool's schema before sending.").tag(
        config=True
    )
    max_message_size = Int(
        32 * 2**20,
        help="Largest message accepted from a server (a stdio line, an HTTP body, an SSE event), in bytes; "
        "a change applies to connected servers at once.",
    ).tag(config=True)
    connect_timeout = Float(30.0, help="Remote servers: seconds to connect and for an answer to begin.").tag(
        config=True
    )
    read_timeout = Float(
        None, allow_none=True, help="Remote servers: seconds of silence on an open stream before it counts as dropped."
    ).tag(config=True)
    tls_verify = Union(
        [Bool(), Unicode()],
        default_value=True,
        help="Remote servers: check certificates (True), do not (False), or the path of a CA bundle to trust.",
    ).tag(config=True)
    warn_tokens = Int(10_000, help="Warn above results larger than this many tokens (about 4 characters each).").tag(
        config=True
    )
    max_tokens = Int(25_000, help="Cut the display of a result here (the data is kept whole).").tag(config=True)
    max_rows = Int(60, help="Rows of a table shown in a result or resource.").tag(config=True)
    approval = Enum[Mode](
        ["destructive", "always", "never"],
        "destructive",
        help="Ask before calling: 'destructive' tools (annotated so, and not read-only), 'always', or 'never'.",
    ).tag(config=True)
    approval_allow = Dict(
        help="Tools that never ask, by server: {'server': ['tool', 'glob*']}; '*' for any server."
    ).tag(config=True)
    approval_deny = Dict(help="Tools that are refused, by server (deny wins over allow).").tag(config=True)
    headless_approval = Enum[Literal["deny", "allow"]](
        ["deny", "allow"], "deny", help="Where nobody can answer (nbclient, papermill): deny or allow a call that asks."
    ).tag(config=True)
    headless_elicitation = Enum[Literal["decline", "cancel"]](
        ["decline", "cancel"], "decline", help="Where nobody can answer: the reply to a server's request for input."
    ).tag(config=True)
    sampling_needs_approval = Bool(
        True,
        help="Show a reply drafted by interaction.sampler for approval (False: send it unasked, headless too).",
    ).tag(config=True)
    prompt_mode = Enum[Literal["auto", "widgets", "stdin", "headless"]](
        ["auto", "widgets", "stdin", "headless"],
        "auto",
        help="How to ask a person: auto picks per kernel; widgets, stdin or headless force one.",
    ).tag(config=True)
    show_logs = Bool(True, help="Show a server's log messages in the cell of the call that caused them.").tag(
        config=True
    )
    log_lines = Int(
        50, help="Log messages a call prints in its cell; the rest are counted in one line and kept for %mcp logs."
    ).tag(config=True)
    history_size = Int(
        1000, help="Requests kept for %mcp history, and messages per server for %mcp transcript; 0 records nothing."
    ).tag(config=True)
    roots = List(
        Unicode(),
        help="Folders offered to servers as roots (none by default: a server's own arguments say where it works); "
        "%mcp roots add/remove change the live list.",
    ).tag(config=True)

    def __init__(self, shell: InteractiveShell, client: Client | None = None) -> None:
        # Before super().__init__: it applies settings from IPython's config (ipython_config.py,
        # --MCPMagics.x=… on the command line), and each one fires _settings_changed.
        self.client = client or get_client()
        interaction = self.client.interaction
        if not isinstance(interaction, NotebookInteraction):
            interaction = self.client.interaction = NotebookInteraction()
        self.interaction = interaction
        super().__init__(shell)  # also adds this object to shell.configurables (for %config)
        self._apply()

    @observe(
        "startup_timeout",
        "request_timeout",
        "task_timeout",
        "validate_arguments",
        "max_message_size",
        "connect_timeout",
        "read_timeout",
        "tls_verify",
        "warn_tokens",
        "max_tokens",
        "max_rows",
        "approval",
        "approval_allow",
        "approval_deny",
        "headless_approval",
        "headless_elicitation",
        "sampling_needs_approval",
        "prompt_mode",
        "show_logs",
        "log_lines",
        "history_size",
    )
    def _settings_changed(self, change: Any) -> None:
        self._apply()

    @validate("startup_timeout", "request_timeout", "task_timeout", "connect_timeout", "read_timeout")
    def _check_seconds(self, proposal: Any) -> Any:
        value, trait = proposal["value"], proposal["trait"]
        if value is None or is_seconds(value):
            return value
        no_limit = " (None: no limit)" if trait.allow_none else ""
        raise TraitError(f"MCPMagics.{trait.name} must be a number of seconds above 0{no_limit}, not {value!r}")

    @observe("roots")
    def _roots_changed(self, change: Any) -> None:
        self.client.set_roots(self.roots)

    def _apply(self) -> None:
        settings = self.client.settings
        settings.startup_timeout = self.startup_timeout
        settings.request_timeout = self.request_timeout
        settings.task_timeout = self.task_timeout
        settings.validate = self.validate_arguments
        settings.max_message_size = self.max_message_size
        settings.connect_timeout = self.connect_timeout
        settings.read_timeout = self.read_timeout
        settings.tls_verify = self.tls_verify
        settings.history_size = self.history_size
        self.client.runtime.history  # noqa: B018 (resized now: the sessions recording see it at once)
        display.options.warn_tokens = self.warn_tokens
        display.options.max_tokens = self.max_tokens
        display.options.max_rows = self.max_rows
        policy = self.client.approval
        policy.mode = self.approval
        policy.allow = {k: list(v) for k, v in self.approval_allow.items()}
        policy.deny = {k: list(v) for k, v in self.approval_deny.items()}
        interaction = self.client.interaction
        if isinstance(interaction, NotebookInteraction):
            interaction.headless_approval = self.headless_approval
            interaction.headless_elicitation = self.headless_elicitation
            interaction.sampling_needs_approval = self.sampling_needs_approval
            interaction.mode_setting = self.prompt_mode
            interaction.show_logs = self.show_logs
            interaction.log_lines = self.log_lines

    def _context(self) -> commands.Context:
        return commands.Context(self.client, self.shell.user_ns, server_text=cell_text)

    @no_var_expand  # $name and {expr} are ours to expand, keeping the values' types
    @line_magic
    def mcp(self, line: str) -> Any:
        tokens = _words(line)
        if not tokens:
            print(commands.overview())
            return None
        entry = commands.COMMANDS.get(tokens[0])
        if entry is None:
            raise UsageError(f"%mcp: no subcommand {tokens[0]!r}; try %mcp help")
        return drive(self._running(BLOCKING, entry.run, self._context(), tokens[1:]))

    @no_var_expand
    @cell_magic
    def mcp_call(self, line: str, cell: str) -> Any:
        """Call a tool with the cell body as its arguments.

        %%mcp_call SERVER.TOOL [-o VAR] [--timeout S] [--no-validate]

        The body is a JSON object or a Python dict expression (evaluated in the notebook's
        namespace). -o VAR also stores the result in VAR. Example:

            %%mcp_call demo.query_penguins -o gentoo
            {"species": "Gentoo", "limit": 5}
        """
        return drive(self._running(BLOCKING, commands.call_cell, self._context(), line, cell))

    async def run_line_async(self, line: str) -> Any:
        """What an awaited ``%mcp call|read|prompt`` line runs (see transform.py)."""
        tokens = _words(line)
        entry = commands.COMMANDS[tokens[0]]
        return await self._running(AWAITING, entry.run, self._context(), tokens[1:])

    async def run_cell_async(self, line: str, cell: str) -> Any:
        return await self._running(AWAITING, commands.call_cell, self._context(), line, cell)

    @staticmethod
    async def _running(taker: Taker, fn: Any, *args: Any) -> Any:
        """A subcommand's value; a call it defers is taken blocking or awaited (commands/steps.py).
        A user's mistake shows as a UsageError, a server's error as its one line."""
        # Voilà before its page: what the servers ask meanwhile is answered by the policy, and
        # the call is offered again from the page (where a person can answer).
        unasked: list[str] = []
        token = UNASKED_IN_VOILA.set(unasked) if voila_before_page() else None
        try:
            value = fn(*args)
            if isinstance(value, commands.Deferred):
                value = await taker.take(value)
            if unasked:
                _run_in_page(fn, args, ANSWERED_FOR_YOU)
            return value
        except _USER_ERRORS as e:
            if isinstance(e, ToolDenied) and e.unanswered and voila_before_page():
                return _run_in_page(fn, args)  # Voilà's page can answer once it is there
            _shown_in_voila(e, "UsageError")
            raise UsageError(cell_text(str(e))) from None  # it may quote a server: no link made of it
        except MCPError as e:
            _shown_in_voila(e, type(e).__name__)
            if unasked:
                _run_in_page(fn, args, ANSWERED_FOR_YOU)
            raise _one_line(e) from None
        finally:
            if token is not None:
                UNASKED_IN_VOILA.reset(token)


MCPMagics.mcp.__doc__ = (
    commands.overview()
    + "\n\n"
    + "\n\n".join(f"%mcp {c.usage}\n  {c.summary}\n{c.details}".rstrip() for c in commands.listed())
)

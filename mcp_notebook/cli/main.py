"""``mcp-notebook`` (also ``python -m mcp_notebook``): the magics' subcommands from a shell.

One implementation: the words after ``mcp-notebook`` are the words after ``%mcp``, run by
the same functions (mcp_notebook/commands). The value goes to stdout in the format asked
for; everything else (progress, a server's log lines, prompts, one-line errors) to stderr;
the exit status says how it went (exits.py).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import commands
from ..commands import Context, Deferred
from ..core.approval import ApprovalPolicy, Decision
from ..core.safety.text import printable
from ..core.types import CallResult
from ..errors import ArgumentError, ConfigError, MCPError
from ..runtime import Client
from ..version import __version__
from . import exits
from .asking import LineInteraction
from .line import IN_NOTEBOOK, OFFERED, Line, read_line
from .output import Output, output
from .source import LineSource

__all__ = ["LinePolicy", "allowing", "main", "overview"]

PROG = "mcp-notebook"
# Subcommands that must not connect the server they name first (a login would come twice;
# logging out or deleting needs no connection).
UNCONNECTED = ("login", "logout", "remove")


def ours(text: str) -> str:
    """A subcommand's help or message, in this command's words."""
    return text.replace("%mcp ", f"{PROG} ")


def overview() -> str:
    entries = [commands.COMMANDS[name] for name in OFFERED]
    width = max(len(c.usage.split(" | ")[0]) for c in entries)
    lines = [
        f"usage: {PROG} [OPTIONS] SUBCOMMAND [ARGS…] [-- SERVER COMMAND…]",
        "",
        "Use MCP servers from a shell, with the %mcp magic's subcommands and grammar. A SERVER is",
        "a saved one (mcp-notebook add NAME --save …, or %mcp add … --save in a notebook: the user,",
        "project and local scopes), or the one given on this line: its command after --, or --url.",
        "",
        "Subcommands:",
        *(f"  {c.usage.split(' | ')[0]:{width}}  {c.summary}" for c in entries),
        "",
        "Options:",
        "  --format F         text (default: tables aligned), json, csv or markdown",
        "  --config PATH      the servers of this file (.mcp.json, mcp.json) instead of the saved ones",
        "  --url URL          a remote server given on the line, with %mcp add's options for one:",
        "                     --transport, --header K=V, --bearer-env VAR, --client-id, --client-secret-env VAR;",
        "                     with nobody there: --grant client_credentials|jwt_bearer|id_jag, --private-key-file,",
        "                     --assertion-file, --id-token-file, --idp-token-endpoint (see docs/oauth.md)",
        "  --env K=V, --cwd   for a server command given after --",
        "  --protocol P       its protocol era: auto, legacy or a version",
        "  --root PATH        offer this folder to the servers as a root (repeatable; none by default)",
        "  --no-browser       a login prints its address only (default: open it when a browser is at hand)",
        "  --startup-timeout S  seconds a server may take to start (default 30)",
        "  --trust            trust this folder as it is now: the servers of its project files (./.mcp.json,",
        "                     .cursor/mcp.json, .vscode/mcp.json …) may start (remembered; without it they",
        "                     are listed as untrusted, and a terminal asks; docs/security.md)",
        "  --allow SERVER.TOOL  run this tool without asking, though annotated destructive (repeatable,",
        "                     comma-separated, globs over the whole SERVER.TOOL: demo.delete_*, my.srv.*;",
        '                     saved config: "alwaysAllow": [TOOL, …])',
        "  -h, --help         this help; SUBCOMMAND --help: that subcommand's",
        "  --version          the version",
        "",
        "The value goes to stdout; progress, log lines, prompts and errors to stderr.",
        "",
        "Exit status:",
        *(f"  {code}  {meaning}" for code, meaning in exits.MEANINGS.items()),
        "",
        "Examples:",
        f"  {PROG} tools -- npx -y @modelcontextprotocol/server-everything",
        f"  {PROG} call demo.query_penguins species=Gentoo limit=3 --format csv",
        f"  {PROG} read demo penguins://about",
        f"  {PROG} login github --url https://api.githubcopilot.com/mcp/",
        f"  {PROG} diff demo-1.0.json demo",
    ]
    return "\n".join(lines)


def subcommand_help(name: str) -> str:
    entry = commands.COMMANDS[name]
    text = ours(f"{PROG} {entry.usage}\n  {entry.summary}\n{entry.details}".rstrip())
    return text + (
        "\nOn the command line words are taken as typed: $name and {expr} are not looked up or run (the shell "
        "expands its own $VAR), -o VAR keeps nothing, and a server given after -- or with --url takes the first "
        "name asked for."
    )


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand (``argv``: its words; None: this process's, run as the command);
    returns the exit status."""
    if argv is None and "jsonschema" not in sys.modules:
        # This process is the command's own. jsonschema imports rfc3987-syntax (where it is
        # installed, as with Jupyter) to check one format, "iri", and that import compiles
        # 38 grammars: 1.4 s of every run here. Without it the format goes unchecked.
        sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    try:
        line = read_line(sys.argv[1:] if argv is None else argv)
        if line.version:
            return _write(f"{PROG} {__version__}\n", exits.OK)
        if line.subcommand is None or (line.subcommand == "help" and not line.tokens):
            return _write(overview() + "\n", exits.OK if line.help or line.subcommand == "help" else exits.USAGE)
        name = line.tokens[0] if line.subcommand == "help" else line.subcommand
        if name not in OFFERED:
            hint = f" (it works in a notebook: %mcp {name})" if name in commands.COMMANDS or name in IN_NOTEBOOK else ""
            print(f"{PROG}: no subcommand {printable(name)!r}{hint}; {PROG} --help lists them", file=sys.stderr)
            return exits.USAGE
        if line.help or line.subcommand == "help":
            return _write(subcommand_help(name) + "\n", exits.OK)
        for root in line.roots:
            if not os.path.isdir(root):
                raise ArgumentError(f"--root {root}: no such folder")
    except ArgumentError as e:
        _error(e)
        return exits.USAGE
    return _run(line)


@dataclass
class LinePolicy(ApprovalPolicy):
    """The approval policy, and the ``--allow`` globs: each matched against ``SERVER.TOOL``
    as a whole (a server's name may hold dots: ``my.srv.tool``, ``my.srv.*``, ``*.tool``)."""

    globs: list[str] = field(default_factory=list)

    def decide(
        self, server: str, tool: str, annotations: dict[str, Any] | None, allowed: Iterable[str] = ()
    ) -> Decision:
        decision = super().decide(server, tool, annotations, allowed)
        if decision == "ask" and any(fnmatch.fnmatchcase(f"{server}.{tool}", g) for g in self.globs):
            return "allow"  # a deny list still wins: super() said "deny" then
        return decision


def allowing(globs: list[str]) -> LinePolicy:
    """The policy of a command line given ``--allow`` globs (``SERVER.TOOL``)."""
    return LinePolicy(globs=list(globs))


def _run(line: Line) -> int:
    client = Client(interaction=LineInteraction(open_browser=line.open_browser))
    if line.roots:
        client.set_roots(line.roots)
    if line.startup_timeout is not None:
        client.settings.startup_timeout = line.startup_timeout
    if line.allow:
        client.approval = allowing(line.allow)
    if line.trust:
        try:
            trusted = client.trust_folder()
        except ConfigError as e:
            _error(e)
            return exits.exit_code(e)
        if trusted is not None:
            _note(f"trusted {trusted} as it is now (remembered; a changed file is asked about again)")
    ctx = Context(client, {}, out=_note, literal=True)
    source = LineSource(ctx, line.given, line.config, _note, connect=line.subcommand not in UNCONNECTED)
    ctx.source = source
    entry = commands.COMMANDS[line.subcommand or ""]
    value: Any = None
    try:
        # What runs meanwhile writes to stderr, at the descriptor too: a login's address, an
        # approval's question, and a browser started for a login (a child process) are not
        # the value, which alone goes to stdout, after.
        with _stdout_to_stderr():
            value = entry.run(ctx, line.tokens)
            if isinstance(value, Deferred):
                value = value.run()
        error = isinstance(value, CallResult) and value.is_error
        # A tool's error has no table: its text says what went wrong.
        shown = output(value, "text" if error and line.fmt in ("csv", "markdown") else line.fmt,
                       terminal=sys.stdout.isatty())  # fmt: skip
    except MCPError as e:
        _error(e)
        return exits.exit_code(e)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except RecursionError:  # input nested deeper than the checks that word it (parsing, config files)
        print(f"{PROG}: a value is nested too deeply to handle (arrays or objects inside each other); "
              "flatten it", file=sys.stderr)  # fmt: skip
        return exits.USAGE
    except Exception as e:  # a bug or an input nothing checked: one line, not a traceback
        print(f"{PROG}: unexpected {type(e).__name__}: {ours(printable(str(e)))}", file=sys.stderr)
        return exits.SERVER_ERROR
    finally:
        client.close()
    if line.given is not None and not source.given_used:
        _note("note: the server given on the line was not used (no subcommand word named it)")
    status = exits.SERVER_ERROR if error else exits.CONNECT if source.failed else exits.OK
    shown = shown or Output()
    for note in (shown.note, shown.cut):
        if note:
            _note(note)  # stderr: never mixed into the value
    if shown.cut and status == exits.OK:
        status = exits.CUT  # a script reading a terminal's output learns it was not all
    return _write(shown.text, status, shown.data)


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 (an embedding without one): Python's stdout alone
        with contextlib.redirect_stdout(sys.stderr):
            yield
        return
    os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _write(text: str, status: int, data: bytes | None = None) -> int:
    """``text`` (or ``data``, bytes as they are) to stdout; a reader that went away
    (``| head``) ends the run quietly."""
    try:
        if data is not None and hasattr(sys.stdout, "buffer"):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(text if data is None else data.decode(errors="replace"))
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would report the pipe again at exit, flushing: point stdout at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return status


def _note(text: str) -> None:
    print(ours(text), file=sys.stderr)


def _error(error: MCPError) -> None:
    kind = "" if isinstance(error, ArgumentError) and type(error) is ArgumentError else f"{type(error).__name__}: "
    print(f"{PROG}: {kind}{ours(printable(str(error)))}", file=sys.stderr)

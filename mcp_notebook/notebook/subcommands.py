"""The subcommands that need widgets, so the notebook registers them: form (try a tool or
a resource template by filling in a form, forms.py), subscribe and unsubscribe (a resource
followed in its cell)."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from ..commands import Context, Deferred, command
from ..commands.base import connected_servers, positional, server_named
from ..commands.parsing import target
from ..core.arguments.uritemplates import expand, variables
from .modes import choose_mode, in_voila

__all__ = ["DEFAULT_VARIABLE", "LAST_TEMPLATE_VALUES", "form", "subscribe", "template_form", "tool_form", "unsubscribe"]

DEFAULT_VARIABLE = "_mcp_form"
# A template's variables as last read through its form, by (server, template): the next
# form for it starts from them (a tool's form starts from Server.last_arguments).
LAST_TEMPLATE_VALUES: dict[tuple[str, str], dict[str, Any]] = {}


@command(
    "form SERVER.TOOL [-o VAR] | form SERVER URI_TEMPLATE [-o VAR]",
    "a form to try a tool (or a resource template): its parameters as fields, Run, the result below",
    """
The fields come from the tool's inputSchema: choices as dropdowns, numbers with their
bounds, checkboxes, lists with + add, nested objects indented, anything else as JSON. They
start from the arguments of the tool's last call in this kernel (%mcp call, the Python API
or the form itself). Run calls the tool as %mcp call does (validation, approval, progress,
the server's log lines and a page it needs visited, all shown inside the form); the
result shows below the form and is stored in _mcp_form, or in VAR with -o VAR;
arguments the schema refuses are said there too, for you to fix the fields. A schema's
default of another type than its field is not used; a last argument a field cannot hold,
a model that contains itself, nesting past 8 levels and more than 1,000 choices are typed
as JSON (or text). With a resource template, the fields are its variables and Run reads
the URI they give. Forms need widgets: in a terminal or a headless run, use %mcp call or
%mcp read. In Voilà a form is how a call asks the person: the page's Run shows the card.
  %mcp form demo.query_penguins -o penguins
  %mcp form demo penguins://species/{species}.csv
""",
)
def form(ctx: Context, tokens: list[str]) -> Any:
    variable, positional = DEFAULT_VARIABLE, []
    rest = iter(tokens)
    for token in rest:
        if token in ("-o", "--output"):
            variable = next(rest, "")
            if not variable.isidentifier():
                raise UsageError(f"%mcp form: -o takes a Python variable name, not {variable!r}")
        elif token.startswith("-"):
            raise UsageError(f"%mcp form: unknown option {token!r}; see %mcp help form")
        else:
            positional.append(token)
    if len(positional) not in (1, 2):
        raise UsageError("%mcp form: give SERVER.TOOL, or SERVER URI_TEMPLATE; see %mcp help form")
    interaction = ctx.client.interaction
    mode = choose_mode(getattr(interaction, "mode_setting", "auto"), in_async=True)
    # Voilà runs the notebook before its page connects (headless then), and the form's Run
    # comes once the page is there: a form works.
    if (mode.headless and not in_voila()) or mode.value == "stdin":
        raise UsageError(
            "%mcp form: forms need widgets (a notebook in JupyterLab, Notebook 7, VS Code or Voilà); "
            "here use %mcp call SERVER.TOOL key=value … or %mcp read SERVER URI"
        )
    if len(positional) == 1:
        return tool_form(ctx, positional[0], variable)
    return template_form(ctx, positional[0], positional[1], variable)


def tool_form(ctx: Context, spec: str, variable: str = DEFAULT_VARIABLE) -> Any:
    """The form for ``SERVER.TOOL`` (whatever the frontend: the command checks that)."""
    from .forms import Form

    server_name, name = target(spec)
    server = connected_servers(ctx, server_name)[0]
    tool = server.get_tool(name)

    def call(values: dict[str, Any]) -> Deferred:
        return Deferred(lambda: server.call_tool(tool.name, values), lambda: server.acall_tool(tool.name, values))

    title = f"{server_name}.{tool.name}" + (f" — {tool.title}" if tool.title else "")
    initial = server.last_arguments.get(tool.name)
    return Form(title, tool.description, tool.input_schema, initial, call, ctx.namespace, variable)


def template_form(ctx: Context, server_name: str, wanted: str, variable: str = DEFAULT_VARIABLE) -> Any:
    """The form for a resource template of ``server_name`` (its URI template or its name)."""
    from .forms import Form

    server = connected_servers(ctx, server_name)[0]
    templates = server.list_resource_templates()
    found = next((t for t in templates if wanted in (t.uri_template, t.name)), None)
    if found is None:
        known = ", ".join(t.uri_template for t in templates) or "none"
        raise UsageError(f"%mcp form: {server_name} has no resource template {wanted!r} (its templates: {known})")
    template = found.uri_template
    names = variables(template)
    schema = {
        "type": "object",
        "properties": {v: {"type": "string", "title": v} for v in names},
        "required": names,
    }

    def read(values: dict[str, Any]) -> Deferred:
        LAST_TEMPLATE_VALUES[(server_name, template)] = dict(values)
        uri = expand(template, values)
        return Deferred(lambda: server.read_resource(uri), lambda: server.aread_resource(uri))

    title = f"{server_name} {template}" + (f" — {found.title}" if found.title else "")
    initial = LAST_TEMPLATE_VALUES.get((server_name, template))
    return Form(title, found.description, schema, initial, read, ctx.namespace, variable)


@command(
    "subscribe SERVER URI",
    "follow a resource: updates show in this cell (or go to a callback from the Python API)",
    """
  %mcp subscribe everything demo://resource/static/document/architecture.md
  %mcp unsubscribe everything demo://resource/static/document/architecture.md
""",
)
def subscribe(ctx: Context, tokens: list[str]) -> Any:
    opts = positional("subscribe", tokens, "server", "uri")
    server = server_named(ctx, opts.server)
    if not (server.capabilities.get("resources") or {}).get("subscribe"):
        raise UsageError(f"{opts.server} does not offer resource subscriptions")
    from .cards import SubscriptionView

    view = SubscriptionView(opts.server, opts.uri)
    server.subscribe(opts.uri, view.updated)
    return view


@command("unsubscribe SERVER URI", "stop following a resource", "  %mcp unsubscribe everything URI")
def unsubscribe(ctx: Context, tokens: list[str]) -> None:
    opts = positional("unsubscribe", tokens, "server", "uri")
    server_named(ctx, opts.server).unsubscribe(opts.uri)
    ctx.out(f"{opts.server}: no longer following {opts.uri}")

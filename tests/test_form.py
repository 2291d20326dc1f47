"""%mcp form: a form built from a tool's inputSchema (or a resource template's variables),
prefilled from the last call, whose Run calls the tool and stores the result. The widget
trees are built from the real servers' schemas (the demo, server-everything, an SDK server
with nested objects and lists); Run in a real kernel goes through the widgets' comm."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import ipywidgets as w
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from support.kernels import Kernel, kernel_names, kernel_with, text_of
from support.peers import SERVERS
from support.shells import extension_loaded, line

from mcp_notebook import Client
from mcp_notebook.commands import Context
from mcp_notebook.core.types import CallResult, ReadResult
from mcp_notebook.notebook.forms import OMIT, ArrayNode, Form, JsonNode, ObjectNode, ScalarNode
from mcp_notebook.notebook.subcommands import template_form, tool_form

# A tool whose schema gives its bounds, counts, format and pattern as what they cannot be
# (text, markup, objects): the form ignores them, and the server checks what it gets.
ODD = {
    "name": "odd",
    "inputSchema": {
        "type": "object",
        "properties": {
            "xs": {
                "type": "array",
                "items": {"type": "object", "properties": {"a": {"type": "string", "minLength": "<i>1</i>"}}},
                "minItems": "<b>2</b>",
                "maxItems": {"x": 1},
            },
            "n": {"type": "integer", "minimum": "<img src=x onerror=alert(1)>", "maximum": 5, "exclusiveMinimum": True},
            "s": {"type": "string", "format": {"x": 1}, "pattern": ["<script>"]},
        },
        "required": ["xs"],
    },
}

# Defaults a field cannot hold (text for a number, "false" for a boolean, a choice that is
# not one): not used, as if the schema gave none. The good one (k) still is.
DEFAULTS = {
    "name": "defaults",
    "inputSchema": {
        "type": "object",
        "properties": {
            "n": {"type": "integer", "default": "abc"},
            "x": {"type": "number", "default": "1.5"},
            "s": {"type": "string", "default": 5},
            "b": {"type": "boolean", "default": "false"},
            "e": {"enum": ["a", "b"], "default": "z"},
            "m": {"type": "array", "items": {"enum": ["a", "b"]}, "default": "ab"},
            "k": {"type": "integer", "default": 3},
        },
        "required": ["e"],
    },
}
# A plain schema, whose last arguments were sent unchecked (validate=False) in other types.
TYPED = {
    "name": "typed",
    "inputSchema": {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "b": {"type": "boolean"},
            "e": {"enum": ["a", "b"]},
            "m": {"type": "array", "items": {"enum": ["a", "b"]}},
            "k": {"type": "integer"},
            "o": {"type": "object", "properties": {"a": {"type": "string"}}},
        },
        "required": ["n"],
    },
}
# What a hostile (or merely recursive) schema does to a form: a model that contains itself,
# 5,000 choices, legacy names that name nothing, no choices at all, a
# `required` that is not a list, a description that is not text.
NODE = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
        "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
    },
    "required": ["name"],
}
HOSTILE = {
    "name": "hostile",
    "inputSchema": {
        "type": "object",
        "$defs": {"Node": NODE},
        "properties": {
            "tree": {"$ref": "#/$defs/Node"},
            "pick": {"type": "string", "enum": [f"v{i}" for i in range(5000)], "description": "a code"},
            "box": {"type": "object", "properties": {"a": {"type": "string", "description": 7}}, "required": 3},
            "named": {"enum": ["x", "y"], "enumNames": 5},
            "none": {"enum": []},
        },
        "required": ["none"],
    },
}
# Objects nested 300 deep (a valid schema, so that the call's validation meets it too).
DEEP: dict[str, Any] = {"type": "string"}
for _ in range(300):
    DEEP = {"type": "object", "properties": {"d": DEEP}}
NESTED = {"name": "nested", "inputSchema": {"type": "object", "properties": {"deep": DEEP}}}


@pytest.fixture(scope="module")
def client(everything_cmd: tuple[str, list[str]]) -> Iterator[Client]:
    c = Client()
    c.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
    c.add("everything", *everything_cmd)
    c.add("shapes", sys.executable, [str(SERVERS / "shapes.py")])
    tools = [json.dumps(t) for t in (ODD, DEFAULTS, TYPED, HOSTILE, NESTED)]
    c.add("odd", sys.executable, [str(SERVERS / "colliding.py"), "odd", *tools])
    yield c
    c.close()


@pytest.fixture
def ctx(client: Client) -> Context:
    InteractiveShell.instance()  # as in a kernel: an Output widget then swallows what is raised in it
    return Context(client, {})


def field(form: Form, name: str) -> Any:
    return next(c for c in form.root.children if c.name == name)


def test_query_penguins_form(ctx: Context) -> None:
    form = tool_form(ctx, "demo.query_penguins", "r")
    species, limit, mass = field(form, "species"), field(form, "limit"), field(form, "min_body_mass_g")
    # A nullable enum is a dropdown with "(any)" first (left out); an integer with bounds says them.
    assert isinstance(species.field.input, w.Dropdown)
    assert [label for label, _ in species.field.input.options] == ["(any)", "Adelie", "Chinstrap", "Gentoo"]
    assert isinstance(limit.field.input, w.IntText) and limit.field.input.value == 20
    assert "from 1 to 1000" in limit.field.help.value
    assert "at least 0" in mass.field.help.value
    assert form.values() == {"limit": 20}  # untouched optional fields are left out, defaults sent

    limit.field.input.value = 5000
    form.click()
    assert "fix the marked fields" in form.status.value and "at most 1000" in limit.field.error.value
    assert "r" not in ctx.namespace

    species.field.input.value, limit.field.input.value = "Gentoo", 3
    form.click()  # no running event loop here: the call runs blocking
    result = ctx.namespace["r"]
    assert isinstance(result, CallResult) and not result.is_error
    assert len(result.structured["rows"]) == 3 and {r["species"] for r in result.structured["rows"]} == {"Gentoo"}
    assert "✓ done" in form.status.value


def test_form_starts_from_the_last_call(ctx: Context, client: Client) -> None:
    client["demo"].call_tool("query_penguins", {"island": "Dream", "limit": 4})
    form = tool_form(ctx, "demo.query_penguins")
    assert field(form, "island").field.input.value == "Dream"
    assert field(form, "limit").field.input.value == 4
    assert form.values() == {"island": "Dream", "limit": 4}


def test_everything_forms(ctx: Context) -> None:
    message = tool_form(ctx, "everything.get-annotated-message")
    kind, image = field(message, "messageType"), field(message, "includeImage")
    assert isinstance(kind.field.input, w.Dropdown)  # a required enum: no blank choice
    assert [v for _, v in kind.field.input.options] == ["error", "success", "debug"]
    assert isinstance(image.field.input, w.Checkbox) and image.field.input.value is False

    links = tool_form(ctx, "everything.get-resource-links")
    count = field(links, "count")
    assert isinstance(count.field.input, w.FloatText) and "from 1 to 10" in count.field.help.value

    summing = tool_form(ctx, "everything.get-sum", "total")
    field(summing, "a").field.input.value, field(summing, "b").field.input.value = 2, 3
    summing.click()
    assert "5" in ctx.namespace["total"].text

    gzip = tool_form(ctx, "everything.gzip-file-as-resource")
    assert "format uri" in field(gzip, "data").field.help.value


def test_nested_objects_and_lists(ctx: Context) -> None:
    form = tool_form(ctx, "shapes.plan_trip", "trip")
    traveller, stops = field(form, "traveller"), field(form, "stops")
    modes, budgets, notes = field(form, "modes"), field(form, "budgets"), field(form, "notes")
    assert isinstance(traveller, ObjectNode)  # a $ref to a model: its fields indented under it
    assert [c.name for c in traveller.children] == ["name", "age", "vegetarian"]
    assert isinstance(stops, ArrayNode) and not stops.rows  # a list of objects: + add
    assert isinstance(modes, ScalarNode) and isinstance(modes.field.input, w.SelectMultiple)
    assert isinstance(budgets, ArrayNode)
    assert isinstance(notes, JsonNode)  # a map with free keys: JSON
    insurance = field(form, "insurance")
    assert isinstance(insurance, ObjectNode) and [c.name for c in insurance.children] == ["provider", "excess"]

    assert form.values() is None  # a required name, and at least one stop
    assert "at least 1 items" in stops.error.value

    traveller.children[0].field.input.value = "Ada"
    stop = stops.append(None)
    assert isinstance(stop, ObjectNode)
    stop.children[0].field.input.value = "Oslo"
    modes.field.input.value = ("train", "bus")
    budgets.append(None).field.input.value = 120.5
    notes.input.value = '{"diet": "none"}'
    # An optional object nobody filled in is left out, its required field not asked for.
    assert "insurance" not in (form.values() or {}) and not insurance.children[0].field.error.value
    form.click()
    assert ctx.namespace["trip"].structured == {
        "traveller": {"name": "Ada", "age": None, "vegetarian": False},
        "stops": [{"city": "Oslo", "nights": 1}],
        "modes": ["train", "bus"],
        "budgets": [120.5],
        "notes": {"diet": "none"},
        "insurance": None,
    }
    insurance.children[1].field.input.value = 50.0  # begun: now its provider is required
    assert form.values() is None and "required" in insurance.children[0].field.error.value
    insurance.children[0].field.input.value = "Acme"
    assert form.values()["insurance"] == {"provider": "Acme", "excess": 50.0}  # type: ignore[index]

    again = tool_form(ctx, "shapes.plan_trip")  # the nested values come back too
    assert field(again, "stops").rows[0][0].children[0].field.input.value == "Oslo"
    assert field(again, "traveller").children[0].field.input.value == "Ada"


def html_of(widget: w.Widget) -> list[str]:
    """Every HTML a widget tree shows."""
    own = [widget.value] if isinstance(widget, w.HTML) else []
    return own + [h for child in getattr(widget, "children", ()) for h in html_of(child)]


def test_constraints_that_are_not_numbers_are_ignored(ctx: Context) -> None:
    form = tool_form(ctx, "odd.odd", "r")
    xs, n, s = field(form, "xs"), field(form, "n"), field(form, "s")
    assert "at most 5" in n.field.help.value  # the bound that is a number still says so
    xs.append(None).children[0].field.input.value = "q"
    n.field.input.value = 3
    s.field.input.value = "hi"
    form.click()  # one item, though minItems says "2": Run calls the tool
    assert ctx.namespace["r"].structured == {"arguments": {"xs": [{"a": "q"}], "n": 3, "s": "hi"}}
    assert "done" in form.status.value
    shown = "".join(html_of(form.widget))
    assert not [x for x in ("<b>2", "<i>1", "<img", "<script") if x in shown], shown


def test_defaults_a_field_cannot_hold_are_not_used(ctx: Context, client: Client) -> None:
    client["odd"].last_arguments.pop("defaults", None)
    form = tool_form(ctx, "odd.defaults", "r")  # was: a TraitError while the form was built
    assert field(form, "n").field.input.value == 0 and field(form, "s").field.input.value == ""
    assert field(form, "b").field.input.value is False  # "false" is text: not ticked
    assert field(form, "e").field.input.value == "a"  # a required choice starts at the first
    assert form.values() == {"e": "a", "k": 3}  # the usable default is sent, the others left out
    form.click()
    assert ctx.namespace["r"].structured == {"arguments": {"e": "a", "k": 3}}


def test_last_arguments_a_field_cannot_hold_are_shown_as_json(ctx: Context, client: Client) -> None:
    last = {"n": "7", "b": "no", "e": "z", "m": ["q"], "k": 2.5, "o": 5}
    client["odd"].call_tool("typed", last, validate=False)
    form = tool_form(ctx, "odd.typed", "r")
    assert all(isinstance(field(form, k), JsonNode) for k in last)
    assert field(form, "k").input.value == "2.5"
    assert form.values() == last  # nothing the last call sent is lost, or changed ("7" not made 7)
    form.click()  # which the schema refuses: the form says what to fix, not how to send it anyway
    shown = form.status.value
    assert "InvalidArguments" in shown and "fix the fields above" in shown, shown
    assert "validate=False" not in shown and "--no-validate" not in shown and "r" not in ctx.namespace
    field(form, "n").input.value = "7"
    for name in ("b", "e", "m", "k", "o"):
        field(form, name).input.value = ""
    form.click()
    assert ctx.namespace["r"].structured == {"arguments": {"n": 7}}


def test_a_hostile_schema_still_makes_a_form(ctx: Context) -> None:
    form = tool_form(ctx, "odd.hostile", "r")  # was: RecursionError, TypeError, AttributeError
    tree, pick = field(form, "tree"), field(form, "pick")
    # A model inside itself is typed as JSON there (else its form would never end).
    assert isinstance(tree, ObjectNode) and [c.name for c in tree.children] == ["name", "next", "kids"]
    name, after, kids = tree.children
    kid = kids.append(OMIT)  # as + add does
    assert isinstance(after, JsonNode) and isinstance(kids, ArrayNode) and isinstance(kid, JsonNode)
    # 5,000 choices: typed (the server checks), not a dropdown sending them all to the page.
    assert isinstance(pick.field.input, w.Text) and "one of 5000 choices" in pick.field.help.value
    assert "7" in field(form, "box").children[0].field.help.value
    assert [label for label, _ in field(form, "named").field.input.options] == ["(any)", "x", "y"]
    name.field.input.value, pick.field.input.value = "root", "v42"
    after.input.value, kid.input.value = '{"name": "leaf"}', '{"name": "kid"}'
    field(form, "none").input.value = "1"
    form.click()
    assert ctx.namespace["r"].structured == {
        "arguments": {
            "tree": {"name": "root", "next": {"name": "leaf"}, "kids": [{"name": "kid"}]},
            "pick": "v42",
            "none": 1,
        }
    }, form.status.value


def test_nesting_past_reason_is_typed_as_json(ctx: Context) -> None:
    form = tool_form(ctx, "odd.nested", "r")  # was: RecursionError while the form was built
    (node,), levels = form.root.children, 0
    while isinstance(node, ObjectNode):
        (node,), levels = node.children, levels + 1
    assert isinstance(node, JsonNode) and 3 < levels < 10  # below a few levels: typed as JSON
    node.input.value = '{"d": {}}'
    form.click()  # a schema too deep to check does not stop the call (was: RecursionError): the server checks
    sent = ctx.namespace["r"].structured["arguments"]["deep"]
    for _ in range(levels):
        sent = sent["d"]
    assert sent == {"d": {}}


def test_template_form_reads(ctx: Context) -> None:
    form = template_form(ctx, "demo", "penguins://species/{species}.csv", "gentoo")
    (species,) = form.root.children
    assert isinstance(species.field.input, w.Text)
    assert form.values() is None  # required
    species.field.input.value = "Gentoo"
    form.click()
    result = ctx.namespace["gentoo"]
    assert isinstance(result, ReadResult) and result.uri == "penguins://species/Gentoo.csv"
    assert "Gentoo" in result.text
    again = template_form(ctx, "demo", "species")  # by its name too; starts from the last values
    assert again.root.children[0].field.input.value == "Gentoo"
    with pytest.raises(UsageError, match="no resource template"):
        template_form(ctx, "demo", "penguins://nope/{x}")


def test_a_terminal_gets_one_line_saying_forms_need_widgets() -> None:
    with extension_loaded() as shell, pytest.raises(UsageError, match="forms need widgets"):
        line(shell, "form demo.query_penguins")


@pytest.fixture(scope="module", params=kernel_names())
def kernel(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    setup = (
        "%load_ext mcp_notebook\n"
        f"%mcp add demo -- {sys.executable} -m mcp_notebook.demo\n"
        f"%mcp add urls -- {sys.executable} {SERVERS / 'faulty.py'} ok"
    )
    with kernel_with(request.param, tmp_path_factory.mktemp("form-kernel"), setup, ["demo", "urls"], "jupyterlab") as k:
        yield k


@pytest.mark.kernel
def test_run_in_a_kernel(kernel: Kernel) -> None:
    outputs = kernel.run("%mcp form demo.query_penguins -o penguins")
    assert not any(o["type"] == "error" for o in outputs), text_of(outputs)
    kernel.set_value("species", "Gentoo")
    kernel.set_value("limit", 2)
    kernel.click("Run")
    kernel.wait_for_text("✓ done")
    shown = text_of(kernel.run("print(type(penguins).__name__, [r['species'] for r in penguins.structured['rows']])"))
    assert "CallResult ['Gentoo', 'Gentoo']" in shown


@pytest.mark.kernel
def test_a_tool_that_asks_first_asks_in_a_kernel(kernel: Kernel) -> None:
    kernel.forget_widgets()
    kernel.run("%mcp form demo.delete_penguins -o deleted")
    kernel.set_value("species", "Chinstrap")
    kernel.click("Run")
    kernel.click("Approve")  # the approval card, as %mcp call shows it
    kernel.wait_for_text("✓ done")
    assert "deleted 68 Chinstrap penguins" in text_of(kernel.run("print(deleted.text)"))


def form_output(kernel: Kernel) -> list[dict[str, Any]]:
    """What the output of the form shown since ``forget_widgets()`` holds."""
    (output,) = [s for s in kernel.widgets.values() if s.get("_model_name") == "OutputModel"]
    return list(output.get("outputs", []))


def html_under(kernel: Kernel, output: dict[str, Any]) -> str:
    """Every HTML a displayed widget (and the widgets inside it) shows."""
    view = output.get("data", {}).get("application/vnd.jupyter.widget-view+json")
    todo, shown = [view["model_id"]] if view else [], []
    while todo:
        state = kernel.widgets.get(todo.pop(), {})
        shown.append(str(state.get("value", "")) if state.get("_model_name") == "HTMLModel" else "")
        todo += [str(c).removeprefix("IPY_MODEL_") for c in state.get("children", [])]
    return "".join(shown)


@pytest.mark.kernel
def test_a_runs_log_lines_show_in_the_form(kernel: Kernel) -> None:
    """demo's fit_model logs a message per epoch: in the form's output, above the result
    (a form's Run has no cell that a print() would reach)."""
    kernel.forget_widgets()
    kernel.run("%mcp form demo.fit_model -o fitted")
    kernel.set_value("epochs", 2)
    kernel.set_value("seconds_per_epoch", 0)
    kernel.click("Run")
    kernel.wait_for_text("✓ done")
    shown = form_output(kernel)
    # Lines as escaped HTML (places.Line), not stream output a frontend would make links in.
    lines = [o["data"]["text/plain"] for o in shown[:-1] if "<pre" in o.get("data", {}).get("text/html", "")]
    assert lines == ["[demo info] epoch 1: loss 0.500", "[demo info] epoch 2: loss 0.333"], shown
    assert shown[-1]["output_type"] == "display_data" and "fitted in 2 epochs" in str(shown[-1]["data"]), shown


@pytest.mark.kernel
def test_a_page_the_server_needs_shows_in_the_form(kernel: Kernel) -> None:
    """Error -32042: the page to visit is a card in the form's output, kept after the Run
    failed (the person opens it, then runs the form again); the error is the status line."""
    kernel.forget_widgets()
    kernel.run("%mcp form urls.needs_url")
    kernel.click("Run")
    kernel.wait_for_text("needs you to complete a step in your browser first")
    cards = [html_under(kernel, o) for o in form_output(kernel)]
    assert len(cards) == 1 and "asks you to open a page" in cards[0], cards
    assert "https://auth.example/connect" in cards[0] and "Connect your account" in cards[0]


@pytest.mark.kernel
def test_headless_kernel_says_forms_need_widgets(kernel: Kernel) -> None:
    outputs = kernel.run("%mcp form demo.query_penguins", allow_stdin=False)
    assert "UsageError" in text_of(outputs) and "forms need widgets" in text_of(outputs)


def test_uri_templates_expand_their_variables() -> None:
    from mcp_notebook.core.arguments.uritemplates import expand, variables

    template = "files://{+root}/{name}{.ext}{?page,size}{#part}"
    assert variables(template) == ["root", "name", "ext", "page", "size", "part"]
    values = {"root": "a/b", "name": "x y", "ext": "csv", "size": 10, "part": "top"}
    assert expand(template, values) == "files://a/b/x%20y.csv?size=10#top"

"""The bundled demo server: the Palmer penguins as an MCP server.

    python -m mcp_notebook.demo              # stdio
    python -m mcp_notebook.demo --http 8000  # Streamable HTTP at http://127.0.0.1:8000/mcp
    python -m mcp_notebook.demo --sse 8001   # legacy HTTP+SSE at http://127.0.0.1:8001/sse

It shows every kind of thing a notebook user meets: resources (CSV and JSON), a resource
template, a query tool with an outputSchema and structured results, a prompt with
completions, a slow tool that reports progress, a destructive tool, a tool that asks
the user for input (elicitation) and a tool with an interactive view (MCP Apps: a scatter
plot, scatter.py). Built on the official MCP Python SDK (the `demo` extra).
"""

from __future__ import annotations

import asyncio
import json
import statistics
from typing import Annotated, Any, Literal

from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp_types import Completion, ToolAnnotations
from pydantic import BaseModel, Field

from .penguins import ROWS, Island, Measure, Species
from .scatter import apps

INSTRUCTIONS = """\
Palmer penguins: 344 penguins observed on three islands of the Palmer Archipelago,
Antarctica, 2007-2009 (Gorman, Williams & Fraser, 2014; data CC0 via palmerpenguins).
Read penguins://data.csv or penguins://data.json for the rows; query_penguins filters
them, summarize_penguins aggregates them, plot_penguins shows them as a scatter plot
(an MCP Apps view where the client shows one)."""

server = MCPServer(
    "penguins",
    version="1.0.0",
    title="Palmer penguins (mcp-notebook demo)",
    instructions=INSTRUCTIONS,
    extensions=[apps],  # plot_penguins's view (MCP Apps): scatter.py
)


def _csv(rows: list[dict[str, Any]]) -> str:
    columns = list(ROWS[0])
    lines = [",".join(columns)]
    lines += [",".join("NA" if r[c] is None else str(r[c]) for c in columns) for r in rows]
    return "\n".join(lines) + "\n"


# -- resources ---------------------------------------------------------------------------


@server.resource("penguins://data.csv", name="penguins.csv", title="All penguins (CSV)", mime_type="text/csv")
def data_csv() -> str:
    return _csv(ROWS)


@server.resource(
    "penguins://data.json", name="penguins.json", title="All penguins (JSON records)", mime_type="application/json"
)
def data_json() -> str:
    return json.dumps(ROWS)


@server.resource("penguins://about", name="about", title="About the dataset", mime_type="text/markdown")
def about() -> str:
    return (
        "# Palmer penguins\n\n"
        + INSTRUCTIONS
        + "\n\nColumns: species, island, bill_length_mm, bill_depth_mm, flipper_length_mm, body_mass_g, sex, year.\n"
    )


@server.resource(
    "penguins://species/{species}.csv",
    name="species",
    title="The penguins of one species (CSV)",
    mime_type="text/csv",
)
def species_csv(species: str) -> str:
    return _csv([r for r in ROWS if r["species"].lower() == species.lower()])


# -- tools -------------------------------------------------------------------------------


class Penguin(BaseModel):
    species: str
    island: str
    bill_length_mm: float | None
    bill_depth_mm: float | None
    flipper_length_mm: int | None
    body_mass_g: int | None
    sex: str | None
    year: int


class QueryResult(BaseModel):
    count: int = Field(description="How many penguins matched (before the limit)")
    rows: list[Penguin]


@server.tool(
    title="Query penguins",
    annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
)
def query_penguins(
    species: Species | None = None,
    island: Island | None = None,
    sex: Literal["male", "female"] | None = None,
    min_body_mass_g: int | None = Field(None, ge=0),
    limit: int = Field(20, ge=1, le=1000, description="At most this many rows"),
) -> QueryResult:
    """Penguins that match every filter given, as records."""
    rows = [
        r
        for r in ROWS
        if (species is None or r["species"] == species)
        and (island is None or r["island"] == island)
        and (sex is None or r["sex"] == sex)
        and (min_body_mass_g is None or (r["body_mass_g"] or 0) >= min_body_mass_g)
    ]
    return QueryResult(count=len(rows), rows=[Penguin(**r) for r in rows[:limit]])


class Summary(BaseModel):
    group: str
    count: int
    mean: float | None
    min: float | None
    max: float | None


@server.tool(
    title="Summarize penguins",
    annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
)
def summarize_penguins(
    measure: Measure = "body_mass_g", by: Literal["species", "island", "sex", "year"] = "species"
) -> list[Summary]:
    """Count, mean, min and max of one measure for each group."""
    groups: dict[str, list[float]] = {}
    for r in ROWS:
        groups.setdefault(str(r[by]), [])
        if r[measure] is not None:
            groups[str(r[by])].append(float(r[measure]))
    return [
        Summary(
            group=g,
            count=len(v),
            mean=round(statistics.fmean(v), 2) if v else None,
            min=min(v) if v else None,
            max=max(v) if v else None,
        )
        for g, v in sorted(groups.items())
    ]


@server.tool(
    title="Fit a model (slow)",
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
)
async def fit_model(ctx: Context, epochs: int = Field(5, ge=1, le=50), seconds_per_epoch: float = 0.2) -> str:
    """Pretend to fit a species classifier, reporting progress (and a log message) after each epoch."""
    for epoch in range(1, epochs + 1):
        await asyncio.sleep(seconds_per_epoch)
        await ctx.report_progress(epoch, epochs, f"epoch {epoch}/{epochs}")
        await ctx.info(f"epoch {epoch}: loss {1 / (epoch + 1):.3f}")
    return f"fitted in {epochs} epochs: accuracy 0.97 (pretend)"


@server.tool(
    title="Delete penguins",
    annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False),
)
def delete_penguins(species: Species) -> str:
    """Delete every penguin of a species from this server's copy of the data (until it restarts)."""
    before = len(ROWS)
    ROWS[:] = [r for r in ROWS if r["species"] != species]
    return f"deleted {before - len(ROWS)} {species} penguins; {len(ROWS)} remain"


class Observation(BaseModel):
    species: Species = Field(description="Species")
    island: Island = Field(description="Island")
    body_mass_g: int = Field(4000, ge=2000, le=7000, description="Body mass (g)")
    sex: Literal["male", "female"] = Field("female", description="Sex")


def _ask_observation() -> Elicit[Observation]:
    # Resolve/Elicit asks in whichever era the client speaks: elicitation/create mid-call
    # (2025-11-25 and before), an input-required round (2026-07-28); ctx.elicit only the first.
    return Elicit("Describe the penguin you saw", Observation)


@server.tool(
    title="Record a new penguin",
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False),
)
def add_observation(answer: Annotated[ElicitationResult[Observation], Resolve(_ask_observation)]) -> str:
    """Ask the user for a new observation (elicitation) and add it."""
    if not isinstance(answer, AcceptedElicitation):
        return f"nothing recorded (the user chose {answer.action})"
    row = {**answer.data.model_dump(), "bill_length_mm": None, "bill_depth_mm": None, "flipper_length_mm": None}
    ROWS.append({**row, "year": 2026})
    return f"recorded a {row['sex']} {row['species']} of {row['body_mass_g']} g on {row['island']}"


# -- prompts -----------------------------------------------------------------------------


@server.prompt(title="Explore the dataset")
def explore(question: str, species: str = "any species") -> str:
    """A prompt that asks a model to answer a question about the penguins."""
    return (
        f"Using the penguins dataset (read penguins://data.csv), answer: {question}\n"
        f"Focus on {species}. Show the numbers you used."
    )


@server.completion()  # type: ignore[untyped-decorator, no-untyped-call]  # the SDK's decorator has no annotations
async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
    """Species names for the prompt's and the template's `species` argument."""
    if argument.name != "species":
        return None
    names = sorted({r["species"] for r in ROWS})
    if getattr(ref, "uri", None):  # the resource template takes lower-case names
        names = [n.lower() for n in names]
    return Completion(values=[n for n in names if n.lower().startswith(argument.value.lower())])

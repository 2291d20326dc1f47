"""The demo's MCP Apps view: the penguins as a scatter plot.

``plot_penguins`` returns the points and shows them in its view (``ui://penguins/scatter.html``,
data/scatter.html: plain script and SVG, nothing fetched, so the default policy suits it).
In the view a person picks the axes and the species, which calls ``penguin_points`` (a tool
only the view calls: ``visibility: ["app"]``), and selects penguins by clicking or dragging;
the selection goes to the host as model context (``ui/update-model-context``), which a
notebook keeps as ``r.app.model_context``.
"""

from __future__ import annotations

from importlib import resources

from mcp.server.apps import Apps
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from .penguins import ROWS, Measure, Species

VIEW = "ui://penguins/scatter.html"
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

apps = Apps()


class Point(BaseModel):
    row: int = Field(description="The penguin's row in penguins://data.csv (from 0)")
    species: str
    island: str
    sex: str | None
    x: float
    y: float


class Scatter(BaseModel):
    x: Measure
    y: Measure
    species: list[Species]
    points: list[Point] = Field(description="Penguins with both measures, of the species asked for")


def _scatter(x: Measure, y: Measure, species: list[Species] | None) -> Scatter:
    chosen: list[Species] = species if species is not None else ["Adelie", "Chinstrap", "Gentoo"]
    points = [
        Point(row=i, species=r["species"], island=r["island"], sex=r["sex"], x=r[x], y=r[y])
        for i, r in enumerate(ROWS)
        if r["species"] in chosen and r[x] is not None and r[y] is not None
    ]
    return Scatter(x=x, y=y, species=chosen, points=points)


@apps.tool(resource_uri=VIEW, title="Plot penguins", annotations=READ_ONLY)
def plot_penguins(
    x: Measure = "flipper_length_mm", y: Measure = "body_mass_g", species: list[Species] | None = None
) -> Scatter:
    """Two measures of the penguins as points (all species unless some are named); a client
    that shows MCP Apps shows them as a scatter plot to choose axes and select penguins in."""
    return _scatter(x, y, species)


@apps.tool(resource_uri=VIEW, visibility=["app"], title="Penguin points", annotations=READ_ONLY)
def penguin_points(
    x: Measure = "flipper_length_mm", y: Measure = "body_mass_g", species: list[Species] | None = None
) -> Scatter:
    """The points the scatter view draws when its axes or species change (only the view calls it)."""
    return _scatter(x, y, species)


apps.add_html_resource(
    VIEW,
    resources.files("mcp_notebook.demo").joinpath("data/scatter.html").read_text(encoding="utf-8"),
    name="scatter",
    title="Penguins scatter plot",
    prefers_border=True,
)

"""An MCP server built on the official SDK whose tools take what a form must show beyond
flat fields: nested objects (one optional), lists of objects, lists of choices and of numbers, a map.

    python tests/servers/shapes.py

``plan_trip`` echoes the arguments it received as its structured result; ``echo_fields``
answers with the fields it is given as its structured result (any names, lists of records).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field
from serving import serve

server = MCPServer("shapes", version="1.0.0")


class Place(BaseModel):
    city: str = Field(description="Where")
    nights: int = Field(1, ge=1, le=30)


class Traveller(BaseModel):
    name: str
    age: int | None = Field(None, ge=0)
    vegetarian: bool = False


class Insurance(BaseModel):
    provider: str
    excess: float = 0.0


@server.tool()
def plan_trip(
    traveller: Traveller,
    stops: Annotated[list[Place], Field(min_length=1)],
    modes: list[Literal["train", "bus", "plane"]] | None = None,
    budgets: list[float] | None = None,
    notes: dict[str, str] | None = None,
    insurance: Insurance | None = None,
) -> dict[str, Any]:
    """Plan a trip; the answer is the arguments as received."""
    return {
        "traveller": traveller.model_dump(),
        "stops": [s.model_dump() for s in stops],
        "modes": modes,
        "budgets": budgets,
        "notes": notes,
        "insurance": insurance.model_dump() if insurance else None,
    }


@server.tool()
def echo_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Answer with ``fields`` as the structured result."""
    return fields


if __name__ == "__main__":
    serve(server, None)

"""A weather server written with the official SDK (``MCPServer``), version 1.0; its next
version is tests/servers/sdk_forecast_next.py (``%mcp diff`` between the two).

    python tests/servers/sdk_forecast.py

Tools: ``forecast`` (city, days, units: "metric" or "imperial"), ``alerts`` (region,
level: "minor" or "severe"). The SDK titles each tool's schemas after the tool
(``forecastArguments``, ``forecastOutput``) and gives a ``Literal`` as an ``enum`` (one
value: a ``const``).
"""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("forecast", version="1.0.0")


class Day(BaseModel):
    date: str
    high: float


@server.tool()
def forecast(city: str, days: int = 3, units: Literal["metric", "imperial"] = "metric") -> list[Day]:
    """The next days' highs for a city."""
    return [Day(date=f"day {i + 1}", high=20.0 if units == "metric" else 68.0) for i in range(days)]


@server.tool()
def alerts(region: str, level: Literal["minor", "severe"] = "minor") -> list[str]:
    """Weather alerts for a region, at a level or above."""
    return [f"{level} wind in {region}"]


if __name__ == "__main__":
    server.run("stdio")

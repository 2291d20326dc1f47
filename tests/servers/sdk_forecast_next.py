"""The next version (2.0) of tests/servers/sdk_forecast.py: ``forecast`` renamed
``daily_forecast`` (its schemas now titled ``daily_forecastArguments`` …, nothing else
changed), and ``alerts``'s ``level`` narrowed to ``Literal["severe"]`` (a ``const``): a
caller that sent ``"minor"`` now fails.

    python tests/servers/sdk_forecast_next.py
"""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("forecast", version="2.0.0")


class Day(BaseModel):
    date: str
    high: float


@server.tool()
def daily_forecast(city: str, days: int = 3, units: Literal["metric", "imperial"] = "metric") -> list[Day]:
    """The next days' highs for a city."""
    return [Day(date=f"day {i + 1}", high=20.0 if units == "metric" else 68.0) for i in range(days)]


@server.tool()
def alerts(region: str, level: Literal["severe"] = "severe") -> list[str]:
    """Weather alerts for a region, at a level or above."""
    return [f"{level} wind in {region}"]


if __name__ == "__main__":
    server.run("stdio")

"""The demo server's next version, for the tests that compare versions: the demo itself,
changed only where asked.

    python tests/servers/demo_changed.py [--listing]

``--listing``: its tools listing says ``summarize_penguins`` is now ``summarise_penguins``
and ``query_penguins`` now requires ``species`` (``%mcp diff``). With
``DEMO_CHANGED_OUTPUT=1`` in its environment, ``query_penguins`` answers with one penguin
heavier than it is (an exported test's ``--exact`` comparison).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp_notebook.demo.server import server


async def next_version(ctx: Any, call_next: Any) -> Any:
    result = await call_next(ctx)
    if not isinstance(result, dict):
        return result
    if ctx.method == "tools/list" and "--listing" in sys.argv:
        for tool in result.get("tools", []):
            if tool.get("name") == "summarize_penguins":
                tool["name"] = "summarise_penguins"
            elif tool.get("name") == "query_penguins":
                schema = tool["inputSchema"]
                schema["required"] = sorted({*schema.get("required", []), "species"})
    if ctx.method == "tools/call" and os.environ.get("DEMO_CHANGED_OUTPUT") == "1":
        rows = (result.get("structuredContent") or {}).get("rows") or []
        if rows and isinstance(rows[0].get("body_mass_g"), int):
            rows[0]["body_mass_g"] += 100
    return result


server.middleware.append(next_version)

if __name__ == "__main__":
    server.run("stdio")

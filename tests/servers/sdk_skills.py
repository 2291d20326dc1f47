"""A server with skills (the io.modelcontextprotocol/skills extension, SEP-2640), built on
the official SDK's ``Extension`` mechanism, in both eras.

    python tests/servers/sdk_skills.py [--tamper] [--drift] [--hostile]

Skills: ``penguin-report`` (SKILL.md, reference.md, scripts/plot.py; its SKILL.md holds
raw HTML and links, one https and one not), ``acme/field-notes`` (a prefixed URI; its files
"dynamic") and ``hidden-skill`` (not listed: ``skills/get`` only). ``skills/list`` gives one
skill a page. ``skill://penguin-report/unlisted.md`` is a resource no entry lists.
``--tamper``: reference.md is served with other bytes than its entry's digest; ``--drift``:
SKILL.md's frontmatter is not its entry's; ``--hostile``: three more skills are listed,
``alias-bomb`` (a 400-byte SKILL.md whose frontmatter's YAML aliases expand tenfold a
level, seven levels deep), ``big-skill`` (a 5 MB SKILL.md) and ``huge-number`` (a 60,000-digit
integer in its frontmatter). A tool ``reads`` says how many resources/read
requests the server got for each URI (a host must not read before it is asked).
"""

from __future__ import annotations

import argparse
import hashlib
from typing import Any

from mcp.server.mcpserver import Extension, MCPServer, MethodBinding
from mcp.server.mcpserver.resources import TextResource
from mcp.shared.exceptions import MCPError
from mcp_types import PaginatedRequestParams, RequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

IDENTIFIER = "io.modelcontextprotocol/skills"
REPORT = """---
name: penguin-report
description: Write a short report on the Palmer penguins, with a scatter plot
license: CC0-1.0
metadata:
  author: mcp-notebook tests
---

# Penguin report

Read <b>reference.md</b> first, then run `scripts/plot.py`.
Data: [palmerpenguins](https://allisonhorst.github.io/palmerpenguins/).
Mirror: [old mirror](http://insecure.example/penguins) <script>alert("x")</script>
"""
FILES = {
    "skill://penguin-report/SKILL.md": REPORT,
    "skill://penguin-report/reference.md": "# Reference\n\nColumns: species, island, bill_length_mm.\n",
    "skill://penguin-report/scripts/plot.py": "import matplotlib.pyplot as plt\n",
    "skill://acme/field-notes/SKILL.md": "---\nname: field-notes\ndescription: Keep field notes\n---\n\nNotes.\n",
    "skill://hidden-skill/SKILL.md": "---\nname: hidden-skill\ndescription: Only by its URI\n---\n\nHidden.\n",
}
# Each level an alias list of ten of the level below: ten million strings once expanded.
BOMB = (
    "---\nname: alias-bomb\ndescription: Tenfold a level\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{b}: &{b} [{', '.join(['*' + a] * 10)}]\n" for a, b in zip("abcdef", "bcdefg", strict=True))
    + "---\n\nBoom.\n"
)
BIG = "---\nname: big-skill\ndescription: Five megabytes of it\n---\n\n# Big\n\n" + "".join(
    f"Line {i}: *penguins* and <b>more</b> penguins, [link](https://example.org/{i}).\n" for i in range(60_000)
)
# A 60,000-digit integer: over Python's limit on converting digits to int (4,300).
HUGE_NUMBER = "---\nname: huge-number\ndescription: One big integer\ncount: " + "9" * 60_000 + "\n---\n\nCount.\n"
HOSTILE = {
    "skill://alias-bomb/SKILL.md": BOMB,
    "skill://big-skill/SKILL.md": BIG,
    "skill://huge-number/SKILL.md": HUGE_NUMBER,
}
READS: dict[str, int] = {}


def entry(uri: str, files: list[str] | None) -> dict[str, Any]:
    text = FILES[uri]
    frontmatter: dict[str, Any] = {"name": uri.split("/")[-2]}
    for line in text.split("---")[1].strip().splitlines():
        key, _, value = line.partition(":")
        if value.strip() and not line.startswith(" ") and "&" not in value:  # (not the bomb's lists)
            frontmatter[key.strip()] = value.strip()
    if uri.endswith("penguin-report/SKILL.md"):
        frontmatter["metadata"] = {"author": "mcp-notebook tests"}
    resources: Any = "dynamic"
    if files is not None:
        resources = []
        for name in files:
            raw = FILES[name].encode()
            resources.append({"uri": name, "digest": "sha256:" + hashlib.sha256(raw).hexdigest(), "size": len(raw)})
    return {"uri": uri, "frontmatter": frontmatter, "resources": resources}


ENTRIES = [
    entry("skill://penguin-report/SKILL.md", [u for u in FILES if u.startswith("skill://penguin-report/")]),
    entry("skill://acme/field-notes/SKILL.md", None),
]
HIDDEN = entry("skill://hidden-skill/SKILL.md", ["skill://hidden-skill/SKILL.md"])


class GetParams(RequestParams):
    uri: str


def cached(ctx: Any, result: dict[str, Any]) -> dict[str, Any]:
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        result.update(ttlMs=0, cacheScope="public")  # required on 2026-07-28 results
    return result


async def list_skills(ctx: Any, params: PaginatedRequestParams) -> dict[str, Any]:
    at = int(params.cursor or 0)
    page = {"skills": ENTRIES[at : at + 1]}
    if at + 1 < len(ENTRIES):
        page["nextCursor"] = str(at + 1)
    return cached(ctx, page)


async def get_skill(ctx: Any, params: GetParams) -> dict[str, Any]:
    for one in [*ENTRIES, HIDDEN]:
        if one["uri"] == params.uri:
            return cached(ctx, {"skill": one})
    raise MCPError(code=-32602, message=f"no skill at {params.uri}")


class Skills(Extension):
    identifier = IDENTIFIER

    def settings(self) -> dict[str, Any]:
        return {}

    def methods(self) -> list[MethodBinding]:
        return [MethodBinding("skills/list", PaginatedRequestParams, list_skills),
                MethodBinding("skills/get", GetParams, get_skill)]  # fmt: skip


server = MCPServer("sdk-skills", version="1.0.0", extensions=[Skills()])


async def legacy_extensions(ctx: Any, call_next: Any) -> Any:
    """The SDK leaves extensions out of a 2025-11-25 initialize result: put them back, as
    the conformance suite's legacy servers send them."""
    if ctx.method == "resources/read":
        uri = str(getattr(ctx.params, "uri", "") or (ctx.params or {}).get("uri", ""))
        READS[uri] = READS.get(uri, 0) + 1
    result = await call_next(ctx)
    if ctx.method == "initialize" and isinstance(result, dict):
        result.setdefault("capabilities", {}).setdefault("extensions", {IDENTIFIER: {}})
    return result


server.middleware.append(legacy_extensions)


@server.tool()
def reads() -> dict[str, int]:
    """How many resources/read requests each URI got."""
    return dict(READS)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tamper", action="store_true")
    parser.add_argument("--drift", action="store_true")
    parser.add_argument("--hostile", action="store_true")
    opts = parser.parse_args()
    if opts.hostile:
        FILES.update(HOSTILE)
        ENTRIES.extend(entry(uri, [uri]) for uri in HOSTILE)
    served = dict(FILES, **{"skill://penguin-report/unlisted.md": "not in any entry\n"})
    if opts.tamper:
        served["skill://penguin-report/reference.md"] = "# Reference\n\nSomething else entirely.\n"
    if opts.drift:
        ENTRIES[0]["frontmatter"]["description"] = "What the entry says, not the file"
    for uri, text in served.items():
        mime = "text/markdown" if uri.endswith(".md") else "text/x-python"
        server.add_resource(TextResource(uri=uri, name=uri.split("//")[1], mime_type=mime, text=text))
    server.run("stdio")


if __name__ == "__main__":
    main()

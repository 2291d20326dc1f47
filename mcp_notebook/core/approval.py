"""Which tool calls need a person's approval before they are sent.

Annotations are hints from the server and are not trusted: they only decide whether to
*ask*. Allow and deny lists are per server, with globs over tool names; deny wins.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

Mode = Literal["always", "destructive", "never"]
Decision = Literal["allow", "deny", "ask"]
MODES = ("always", "destructive", "never")


@dataclass
class ApprovalPolicy:
    """``mode``: ``always`` asks before every call; ``destructive`` (the default) asks before
    a tool annotated ``destructiveHint: true`` and not ``readOnlyHint: true`` (in a notebook
    the person typing a call is its author, so unannotated tools run); ``never`` asks never.
    """

    mode: Mode = "destructive"
    allow: dict[str, list[str]] = field(default_factory=dict)  # server -> tool-name globs
    deny: dict[str, list[str]] = field(default_factory=dict)
    always_allowed: set[tuple[str, str]] = field(default_factory=set)  # "Always allow", for the kernel's life

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown approval mode {self.mode!r}; use always, destructive or never")

    def decide(
        self, server: str, tool: str, annotations: dict[str, Any] | None, allowed: Iterable[str] = ()
    ) -> Decision:
        """``allowed``: the server's own config's globs of tools that never ask (alwaysAllow)."""
        if self.deny and _listed(self.deny, server, tool):
            return "deny"
        if (server, tool) in self.always_allowed:
            return "allow"
        if self.allow and _listed(self.allow, server, tool):
            return "allow"
        if any(fnmatch.fnmatchcase(tool, g) for g in allowed):
            return "allow"
        if self.mode == "never":
            return "allow"
        if self.mode == "always":
            return "ask"
        hints = annotations or {}
        destructive = bool(hints.get("destructiveHint")) and not hints.get("readOnlyHint")
        return "ask" if destructive else "allow"


def _listed(lists: dict[str, list[str]], server: str, tool: str) -> bool:
    globs: Iterable[str] = [*lists.get(server, ()), *lists.get("*", ())]
    return any(fnmatch.fnmatchcase(tool, g) for g in globs)

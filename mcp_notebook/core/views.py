"""How results are shown: a seam the notebook layer fills.

Core never imports that layer (it is IPython's); the package root wires it in,
imported on first use, so that results show themselves with or without ``%load_ext``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Views", "views", "use"]


class Views(Protocol):
    def mimebundle(self, result: Any, include: Any = None, exclude: Any = None) -> dict[str, str]: ...


_provider: Callable[[], Views] | None = None


def use(provider: Callable[[], Views]) -> None:
    """Where views come from: called on first use (it may import heavy modules)."""
    global _provider
    _provider = provider


def views() -> Views:
    if _provider is None:
        raise RuntimeError("no result views are installed (import mcp_notebook installs them)")
    return _provider()

"""The notebook layer's side of core/views.py: results rendered by display. (A result's
DataFrame needs no notebook: core/tables/frames.py makes it.)"""

from __future__ import annotations

from ..commands.display import mimebundle

__all__ = ["mimebundle"]

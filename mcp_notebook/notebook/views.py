"""The notebook layer's side of core/views.py: results rendered by display, tables by
tables (pandas is imported only when a table is made)."""

from __future__ import annotations

from typing import Any

from .display import mimebundle

__all__ = ["call_result_frame", "mimebundle", "read_result_frame"]


def call_result_frame(result: Any) -> Any:
    from .tables import call_result_frame as frame

    return frame(result)


def read_result_frame(result: Any) -> Any:
    from .tables import read_result_frame as frame

    return frame(result)

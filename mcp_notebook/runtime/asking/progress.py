"""Where a bulk map stands: what its progress displays show (a bar, a terminal line, a
line in a log) and how a person stops it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class MapProgress:
    """Where a map stands (what a progress display shows); ``cancel()`` from any thread."""

    total: int | None
    done: int = 0
    errors: int = 0
    started: float = field(default_factory=time.monotonic)
    finished: bool = False
    cancelled: bool = False
    limited: str | None = None  # why fewer calls run at once than the map asked: "2 at a time (…)"
    _cancel: Callable[[], None] | None = field(default=None, repr=False)

    def cancel_with(self, stop: Callable[[], None]) -> None:
        """What ``cancel()`` calls (the run's stop, once it runs)."""
        self._cancel = stop

    @property
    def elapsed_s(self) -> float:
        return time.monotonic() - self.started

    @property
    def rate(self) -> float | None:
        """Rows per second so far."""
        return self.rate_after(self.elapsed_s)

    @property
    def eta_s(self) -> float | None:
        return self.eta_after(self.elapsed_s)

    def rate_after(self, elapsed_s: float) -> float | None:
        return self.done / elapsed_s if self.done and elapsed_s > 0 else None

    def eta_after(self, elapsed_s: float) -> float | None:
        rate = self.rate_after(elapsed_s)
        return (self.total - self.done) / rate if rate and self.total is not None else None

    def describe(self, elapsed_s: float | None = None) -> str:
        """One line: ``412/1,000 rows, 38.2/s, ETA 15s, 3 errors`` (``elapsed_s``: the time
        since the start by the caller's clock; by default, since ``started``)."""
        total = f"/{self.total:,}" if self.total is not None else ""
        return f"{self.done:,}{total} rows, {self.note(elapsed_s)}"

    def note(self, elapsed_s: float | None = None) -> str:
        """What a progress bar adds to its count: ``38.2/s, ETA 15s, 3 errors``."""
        elapsed = self.elapsed_s if elapsed_s is None else elapsed_s
        rate, eta = self.rate_after(elapsed), self.eta_after(elapsed)
        parts = [] if self.limited is None else [self.limited]
        if rate:
            parts.append(f"{rate:.1f}/s")
        if eta is not None and self.done != self.total and not self.finished:
            parts.append(f"ETA {eta:.0f}s")
        parts.append(f"{self.errors:,} error{'s' if self.errors != 1 else ''}")
        if self.cancelled:
            parts.append("cancelled")
        return ", ".join(parts)

    def cancel(self) -> None:
        """Stop the map: what is in flight is cancelled on the server, the rest is not sent."""
        self.cancelled = True
        if self._cancel is not None:
            self._cancel()


__all__ = ["MapProgress"]

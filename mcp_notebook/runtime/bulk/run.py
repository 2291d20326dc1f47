"""A bulk map: one tool called for every row of a table, a few at a time, on the loop.

``Server.map`` prepares (the rows' arguments, one approval for the whole map) and hands a
``MapRun`` to the background loop. The run takes rows from the source only as slots free
up (memory stays bounded whatever the input's size), retries what may pass (core/backoff),
and puts each row's outcome at the row's place, whatever order the answers come in: as
the frame's row (its columns), made as the row ends, so that a long map keeps plain values
rather than every result object (less memory, and little for the garbage collector to scan).
Cancelling it (``MapProgress.cancel``, Ctrl-C, a cancelled task) tells the server about
what is in flight (``notifications/cancelled``) and ends with the rows so far, the rest
marked cancelled. A server that exits ends the map: its rows in flight say how it exited.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal

from ...core.backoff import Backoff, retryable
from ...core.session.pending import REQUEST_TAG
from ...core.types import content_text
from ...errors import ArgumentError, InvalidArguments, NotConnected, ServerExited
from ..asking.interaction import Interaction
from ..asking.progress import MapProgress
from .rows import RowSource

__all__ = [
    "GRACE_S",
    "MapRun",
    "OnError",
    "check_explode",
    "check_options",
    "displayed",
    "exploded",
    "map_frame",
    "result_fields",
    "row_record",
]

JSON = dict[str, Any]
OnError = Literal["record", "raise"]
# The columns every map's frame has, after the result's own.
STATUS_COLUMNS = ("is_error", "error", "elapsed_s")
CANCELLED = "cancelled"
# Seconds an interrupted map waits for its run to end (its calls in flight cancelled) before
# it returns the frame so far; nothing in that ending grows with the rows left.
GRACE_S = 5.0


def row_tag(label: Any) -> str:
    """How a log line names the row whose call it came with (a long label cut)."""
    text = str(label)
    return f"row {text if len(text) <= 40 else text[:39] + '…'}"


def check_options(concurrency: Any, retries: Any, on_error: Any, explode: Any = None) -> None:
    """A map's options, checked before anything is asked or sent."""
    if not isinstance(concurrency, int) or concurrency < 1:
        raise ArgumentError(f"map: concurrency must be a whole number of at least 1, not {concurrency!r}")
    if not isinstance(retries, int) or retries < 0:
        raise ArgumentError(f"map: retries must be a whole number of at least 0, not {retries!r}")
    if on_error not in ("record", "raise"):
        raise ArgumentError(f"map: on_error must be 'record' or 'raise', not {on_error!r}")
    if explode is not None and (not isinstance(explode, str) or not explode):
        raise ArgumentError(f"map: explode must name a field of the tool's structured result, not {explode!r}")


def check_explode(tool: str, listing: JSON | None, explode: str | None) -> None:
    """``explode`` names a field the tool's ``outputSchema`` declares (when it has one)."""
    properties = ((listing or {}).get("outputSchema") or {}).get("properties")
    if explode is not None and isinstance(properties, dict) and explode not in properties:
        raise ArgumentError(
            f"map over {tool!r}: explode={explode!r} is not a field of its structured result; "
            f"its fields: {', '.join(map(str, properties)) or 'none'}"
        )


def result_fields(server: str, tool: str, raw: JSON, output_error: str | None) -> JSON:
    """A row's result as its frame row (the call pipeline's last step for a map's rows,
    in place of a ``CallResult`` per row): a structured result's fields, else its
    ``text``; then ``is_error`` and ``error`` (the tool's error text)."""
    structured = raw.get("structuredContent")
    is_error = bool(raw.get("isError"))
    if isinstance(structured, dict):
        record: JSON = {RENAMED.get(k) or k: v for k, v in structured.items()}
        error = content_text(raw.get("content")) if is_error else None
    else:
        text = content_text(raw.get("content"))
        record = {"text": text}
        error = text if is_error else None
    record["is_error"] = is_error
    record["error"] = error
    return record


def row_record(fields: JSON | None, error: str | None, elapsed_s: float | None) -> JSON:
    """One row's end as the frame's row: its result's fields (``result_fields``), else
    ``is_error`` and ``error`` (why it has no result); then ``elapsed_s``."""
    if fields is None:
        return {"is_error": error is not None, "error": error, "elapsed_s": elapsed_s}
    fields["elapsed_s"] = elapsed_s
    return fields


Call = Callable[[JSON], Awaitable[JSON]]  # a row's arguments -> its result_fields


class _Stop(asyncio.Event):
    """A map's stop signal; ``stopped`` is what each row reads (an attribute: is_set() is a call)."""

    stopped = False

    def set(self) -> None:
        self.stopped = True
        super().set()


class MapRun:
    """One map on the loop (see the module's docstring). ``call(arguments)`` makes one call
    and gives its ``result_fields``; ``on_progress(progress)`` runs on the loop at the
    start, after each row and at the end (``progress.finished``); keep it quick. ``limit``:
    the server's name and its own limit on calls in flight, if any (the lower one wins)."""

    def __init__(
        self,
        call: Call,
        source: RowSource,
        *,
        concurrency: int,
        retries: int,
        may_repeat: bool,
        on_error: OnError,
        on_progress: Callable[[MapProgress], None] | None = None,
        backoff: Backoff | None = None,
        limit: tuple[str, int | None] = ("", None),
    ) -> None:
        self._call, self.source = call, source
        self._concurrency, self._retries, self._may_repeat = concurrency, retries, may_repeat
        self._on_error, self._on_progress = on_error, on_progress
        self._backoff = backoff or Backoff()
        self.progress = MapProgress(source.total)
        server, most = limit  # the server's own limit on calls in flight (maxConcurrency): the lower wins
        if most is not None and most < concurrency:
            self._concurrency = most
            self.progress.limited = f"{most} at a time ({server}'s maxConcurrency)"
        # Each row's index label and its frame row (None while in flight), in the input's order;
        # then the rows never sent (a cancel, an exited server): their labels and why.
        self.index: list[Any] = []
        self.records: list[JSON | None] = []
        self.unsent: tuple[Sequence[Any], str] = ((), CANCELLED)
        self._ended_here: asyncio.Event | None = None  # ``ended``, for the loop
        self._fatal: BaseException | None = None
        self._exhausted = False
        self.ended = threading.Event()  # set when the records are final

    def __repr__(self) -> str:
        return f"<MapRun {self.progress.describe()}>"

    async def run(self) -> list[JSON | None]:
        """Every row's record, in the input's order (cancelled: the rows so far, the rest
        marked cancelled)."""
        loop = asyncio.get_running_loop()
        stop = _Stop()
        self._ended_here = asyncio.Event()

        def cancel() -> None:
            loop.call_soon_threadsafe(stop.set)

        self.progress.cancel_with(cancel)
        if self.progress.cancelled:
            stop.set()
        try:
            if self._on_progress is not None:
                self._on_progress(self.progress)  # the start: a display shows it, a caller can keep it to cancel
            await self._work(stop)
            self._finish()
            if self._on_progress is not None:
                self._on_progress(self.progress)  # the end (progress.finished): a display's last state
        finally:
            self.progress.finished = True
            self.ended.set()
            self._ended_here.set()
        return self.records

    async def _work(self, stop: _Stop) -> None:
        # A fixed pool of workers, each taking the next row as its last is answered: no task
        # and no wait over everything in flight per row (what a 10,000-row map would pay).
        workers = {asyncio.ensure_future(self._worker(stop)) for _ in range(self._concurrency)}
        stopper = asyncio.ensure_future(stop.wait())
        try:
            while workers and not stop.is_set():
                done, _ = await asyncio.wait([*workers, stopper], return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    if task is not stopper:
                        workers.discard(task)
                        task.result()  # on_error="raise": the row's error ends the map
        except asyncio.CancelledError:
            self.progress.cancelled = True  # Ctrl-C or a cancelled await: end with what is done
        finally:
            stopper.cancel()
            for task in workers:
                task.cancel()  # a row in flight tells the server (notifications/cancelled)
            if workers:
                await asyncio.gather(*workers, return_exceptions=True)

    async def settled(self, grace: float) -> bool:
        """Whether the run has ended, waiting ``grace`` seconds at most (on the loop): what
        an interrupted map waits for before it returns the frame so far."""
        ended = self._ended_here
        if ended is None or ended.is_set():
            return self.ended.is_set()
        try:
            await asyncio.wait_for(ended.wait(), grace)
        except asyncio.TimeoutError:  # not the builtin before Python 3.11
            return False
        return True

    async def _worker(self, stop: _Stop) -> None:
        """Rows one after another, until the source is exhausted or the map stops (a row's
        work is written out here: a frame fewer per row)."""
        index, records, rows, progress, call = self.index, self.records, self.source.rows, self.progress, self._call
        on_progress = self._on_progress
        while not stop.stopped:
            item = next(rows, None)
            if item is None:
                self._exhausted = True
                return
            position = len(records)
            index.append(item[0])
            records.append(None)
            REQUEST_TAG.set(row_tag(item[0]))  # a log line that came with the row's call says so
            arguments = item[1]
            start = time.monotonic()
            attempt = 0
            result: JSON | None = None
            error: str | None = None
            try:
                while True:
                    try:
                        if isinstance(arguments, ArgumentError):
                            raise arguments  # not sent: the row's error
                        result = await call(arguments)
                        break
                    except asyncio.CancelledError:
                        error = CANCELLED
                        progress.cancelled = True
                        raise
                    except Exception as e:
                        if attempt < self._retries and retryable(e, may_repeat=self._may_repeat):
                            await self._backoff.wait(attempt, getattr(e, "retry_after", None))
                            attempt += 1
                            continue
                        if isinstance(e, InvalidArguments):
                            e = e.unchecked_by("")  # a map has no validate=False: fix the row
                        error = f"{type(e).__name__}: {e}"
                        if isinstance(e, (ServerExited, NotConnected)) and self._fatal is None:
                            self._fatal = e  # nothing more can be sent: the map ends
                            stop.set()
                        if self._on_error == "raise":
                            raise e from None
                        break
            finally:
                if result is None and error is None:  # cancelled where it waited to try again
                    error = CANCELLED
                record = records[position] = row_record(result, error, time.monotonic() - start)
                if record["is_error"]:
                    progress.errors += 1
            progress.done += 1
            if on_progress is not None:
                on_progress(progress)

    def _finish(self) -> None:
        """Rows never sent (a cancel, an exited server): marked from the index alone, for a
        source of known length (an endless iterable is not read further), on the caller's
        side (map_frame): nothing here grows with the rows left."""
        self.progress.finished = True
        failed = self.source.failed
        if self._exhausted and failed is None:
            return
        if failed is not None:
            why = "not read: an earlier row could not be read"
        elif self._fatal is not None:
            why = f"not sent: {type(self._fatal).__name__}: {self._fatal}"
        else:
            why = CANCELLED
        unread = self.source.unread(len(self.records))
        self.unsent = (unread, why)
        self.progress.errors += len(unread)


def displayed(
    interaction: Interaction, server: str, tool: str, on_progress: Callable[[MapProgress], None] | None
) -> Callable[[MapProgress], None] | None:
    """The caller's progress callback, plus what the interaction shows: its ``map_text``
    (text on stderr where no bar is seen), else its progress bar (the one a call that
    reports progress gets: its Cancel, or Ctrl-C, cancels the map)."""
    shown = interaction.map_text(server, tool)
    if shown is None and interaction.shows_progress:
        show, bar = interaction.progress, f"{tool} (map)"

        def shown(progress: MapProgress) -> None:
            # A cancelled map's bar was ended by the Cancel or the interrupt; its last word
            # would open a second bar in the wait that collects the rows so far.
            if not (progress.finished and progress.cancelled):
                show(server, bar, progress.done, progress.total, progress.note())

    if shown is None or on_progress is None:
        return shown or on_progress
    first, second = shown, on_progress

    def both(progress: MapProgress) -> None:
        first(progress)
        second(progress)

    return both


def map_frame(run: MapRun, index_name: Any = None, explode: str | None = None) -> Any:
    """The map's DataFrame, aligned to the input's index: a structured result's fields as
    columns (one named like a status column is kept as ``result_<name>``), else its
    ``text``; then ``is_error``, ``error``, ``elapsed_s``. ``explode``: a field holding a
    list gives a row per item (a record's keys as columns, named ``<field>.<key>`` where
    they would clash), the input's index repeated; an empty list leaves one row."""
    import pandas as pd  # only here: the runtime imports no pandas at module level

    in_flight = row_record(None, CANCELLED, None)  # a row the run had no time to record
    rows = [r if r is not None else in_flight for r in run.records]
    index = list(run.index)
    unsent, why = run.unsent
    unsent = list(unsent)
    if unsent:
        rows.extend([row_record(None, why, None)] * len(unsent))  # one record, shared: nothing per row
        index.extend(unsent)
    if explode is not None:
        index, rows = _exploded_rows(index, rows, explode)
    names = dict.fromkeys(k for r in rows if len(r) > len(STATUS_COLUMNS) for k in r)
    fields = [k for k in names if k not in STATUS_COLUMNS and k != "text"]
    order = [*fields, *(["text"] if "text" in names else []), *STATUS_COLUMNS]
    frame = pd.DataFrame.from_records(rows, columns=order, index=pd.Index(index, name=index_name))
    for name in fields:
        column = frame[name]
        # Integers with a failed row among them stay integers (Int64, <NA>), not floats.
        if column.dtype == "float64" and column.isna().any():
            values = [r.get(name) for r in rows]  # from the rows: float64 rounds integers past 2**53
            given = [v for v in values if v is not None]
            if given and all(isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63 for v in given):
                frame[name] = pd.array(values, dtype="Int64")
    return frame


def _exploded_rows(index: list[Any], rows: list[JSON], field: str) -> tuple[list[Any], list[JSON]]:
    """Each row's records (``exploded``), its status columns on every one, its index repeated."""
    new_index: list[Any] = []
    new_rows: list[JSON] = []
    for label, row in zip(index, rows, strict=True):
        status = {k: row[k] for k in STATUS_COLUMNS}
        record = {k: v for k, v in row.items() if k not in status}
        parts = exploded(record, field)
        new_rows.extend({**part, **status} for part in parts)
        new_index.extend([label] * len(parts))
    return new_index, new_rows


# A structured field named like a status column is kept, renamed.
RENAMED: dict[str, str] = {name: f"result_{name}" for name in STATUS_COLUMNS}


def exploded(record: JSON, field: str) -> list[JSON]:
    """One row per item of ``record[field]`` when it is a non-empty list, in the field's place:
    a dict item's keys as columns (``field.key`` where a key is another field's or a status
    column's name), another item as the field's value. Else the record as it is."""
    field = RENAMED.get(field, field)
    items = record.get(field)
    if not isinstance(items, list) or not items:
        return [{k: v for k, v in record.items() if k != field}] if isinstance(items, list) else [record]
    keys = list(record)
    place = keys.index(field)
    before = {k: record[k] for k in keys[:place]}
    after = {k: record[k] for k in keys[place + 1 :]}
    taken = {*before, *after, *STATUS_COLUMNS, "text"}
    rows = []
    for item in items:
        if isinstance(item, dict):
            columns = {(f"{field}.{k}" if k in taken else str(k)): v for k, v in item.items()}
        else:
            columns = {field: item}
        rows.append({**before, **columns, **after})
    return rows

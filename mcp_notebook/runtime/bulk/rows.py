"""A map's rows: a DataFrame, a list of dicts or any iterable of dicts made into each row's
arguments one at a time, as the map asks for them (``RowSource``), with what every row gets."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ...core.arguments.values import to_json
from ...core.safety.text import printable
from ...errors import ArgumentError

__all__ = ["CHUNK", "Row", "RowSource", "every_row", "parameters"]

JSON = dict[str, Any]
# A row as the map takes it: its index label, and its arguments or why it cannot be sent.
Row = tuple[Any, "JSON | ArgumentError"]


def parameters(listing: JSON | None) -> list[str] | None:
    """The tool's parameters (its inputSchema's properties), None if it declares none."""
    properties = ((listing or {}).get("inputSchema") or {}).get("properties")
    return list(properties) if isinstance(properties, dict) and properties else None


# A DataFrame is read this many rows at a time, a column at a time (a cell at a time is slow).
CHUNK = 1024


def every_row(tool: str, constants: Mapping[str, Any] | None, keywords: Mapping[str, Any]) -> JSON:
    """What every row gets: ``constants={...}`` (any name, even one of map's options) and
    map's other keywords; a name given both ways is refused (which would win is unclear)."""
    if constants is not None and not isinstance(constants, Mapping):
        raise ArgumentError(
            f"map over {tool!r}: constants must be a dict of parameter values, not a {type(constants).__name__}"
        )
    both = sorted(set(constants or {}) & set(keywords))
    if both:
        raise ArgumentError(
            f"map over {tool!r}: {', '.join(both)} given both in constants= and as a keyword; give it once"
        )
    return {**(constants or {}), **keywords}


class RowSource:
    """The rows as ``(label, arguments)`` pairs in ``rows``, an iterator made one pair at a
    time as the map asks, and ``total``: how many (None for an iterable of unknown length).

    A DataFrame's columns are matched to the tool's ``parameters`` by name (``columns``
    renames: column -> parameter; other columns are ignored); a dict row is taken whole.
    Missing values (None, NaN) are left out, as if not given; ``constants`` go with every
    row. A row that is not a dict comes as an ``ArgumentError`` in place of its arguments
    (that row's error; the map goes on); so does a failure of the rows' own iterator (a
    generator that raises, a cursor used from the loop's thread), after which ``rows``
    ends. ``unread(taken)``: the labels of the rows after the first ``taken``, from the
    index alone."""

    def __init__(
        self, tool: str, rows: Any, parameters: list[str] | None, columns: Mapping[str, str] | None, constants: JSON
    ) -> None:
        self.tool = tool
        self.failed: ArgumentError | None = None  # the iterator's own failure, which ended the rows
        rename = dict(columns or {})
        if hasattr(rows, "to_frame") and hasattr(rows, "dtype"):  # a Series: its values are not rows
            raise ArgumentError(
                f"map over {tool!r}: rows is a Series; give a DataFrame, its columns named as the tool's parameters "
                "(e.g. series.to_frame('parameter'))"
            )
        if isinstance(rows, Mapping) or isinstance(rows, (str, bytes)):
            raise ArgumentError(f"map over {tool!r}: rows must be a DataFrame, a list of dicts or an iterable of dicts")
        if hasattr(rows, "itertuples") and hasattr(rows, "columns"):  # a DataFrame (pandas not imported here)
            names = [str(c) for c in rows.columns]
            missing = [c for c in rename if c not in names]
            if missing:
                raise ArgumentError(f"map over {tool!r}: columns= names {missing}, which the table does not have")
            wanted = [(i, rename.get(n, n)) for i, n in enumerate(names)]
            if parameters is not None:
                wanted = [(i, p) for i, p in wanted if p in parameters]
            self.labels: Any = rows.index
            self.total: int | None = len(rows)
            self.rows: Iterator[Row] = self._frame_rows(rows, wanted, constants)
        else:
            try:
                iterator = iter(rows)
            except TypeError:
                raise ArgumentError(
                    f"map over {tool!r}: rows must be a DataFrame, a list of dicts or an iterable of dicts, "
                    f"not {type(rows).__name__}"
                ) from None
            self.labels = None
            self.total = len(rows) if hasattr(rows, "__len__") else None
            self.rows = self._dict_rows(iterator, rename, constants)

    def __repr__(self) -> str:
        return f"<RowSource {self.tool!r} {'?' if self.total is None else f'{self.total:,}'} rows>"

    def head(self, n: int) -> list[JSON | ArgumentError]:
        """The first ``n`` rows' arguments (to show for approval); ``rows`` still starts with them."""
        ahead = list(itertools.islice(self.rows, n))
        self.rows = itertools.chain(ahead, self.rows)
        return [arguments for _, arguments in ahead]

    def unread(self, taken: int) -> Sequence[Any]:
        """The labels of the rows after the first ``taken``, for a source of known length (else none)."""
        if self.total is None:
            return ()
        if self.labels is not None:
            return self.labels[taken:]  # type: ignore[no-any-return]  # a pandas Index
        return range(taken, self.total)

    def _frame_rows(self, frame: Any, wanted: list[tuple[int, str]], constants: JSON) -> Iterator[Row]:
        names = [p for _, p in wanted]
        fixed = to_json(constants) if constants else {}
        extra = {k: v for k, v in fixed.items() if v is not None}
        dropped = [k for k, v in fixed.items() if v is None]  # a missing constant: the parameter left out
        for start in range(0, len(frame), CHUNK):
            block = frame.iloc[start : start + CHUNK]
            labels = block.index.tolist()
            try:
                values = [_cells(block.iloc[:, i].tolist()) for i, _ in wanted]  # Python values, as itertuples gives
            except Exception:  # a cell JSON cannot hold: each row on its own, the bad ones their rows' errors
                yield from self._rows_one_by_one(block, wanted, constants)
                continue
            # A row's cells as one tuple (no star-unpacking), made a dict in C when none is missing.
            rows = zip(*values, strict=True) if values else [()] * len(labels)
            for label, cells in zip(labels, rows, strict=True):
                if None in cells:
                    arguments = {p: v for p, v in zip(names, cells, strict=True) if v is not None}
                else:
                    arguments = dict(zip(names, cells, strict=True))
                if fixed:
                    arguments.update(extra)
                    for k in dropped:
                        arguments.pop(k, None)
                yield label, arguments

    def _rows_one_by_one(self, block: Any, wanted: list[tuple[int, str]], constants: JSON) -> Iterator[Row]:
        for label, cells in zip(block.index.tolist(), block.itertuples(index=False, name=None), strict=True):
            yield label, self._converted(label, {p: cells[i] for i, p in wanted}, constants)

    def _converted(self, position: Any, row: JSON, constants: JSON) -> JSON | ArgumentError:
        """A row's arguments as JSON, or (a value JSON cannot hold) that row's error."""
        try:
            return _arguments(row, constants)
        except Exception as e:
            why = " ".join(printable(f"{type(e).__name__}: {e}").split())
            return ArgumentError(f"map over {self.tool!r}: row {position} cannot be sent as JSON ({why})")

    def _dict_rows(self, iterator: Iterator[Any], rename: dict[str, str], constants: JSON) -> Iterator[Row]:
        tool, position = self.tool, 0
        while True:
            try:
                row = next(iterator)
            except StopIteration:
                return
            except Exception as e:  # the iterator's own failure: this row's error, and the end
                why = " ".join(printable(f"{type(e).__name__}: {e}").split())  # one line
                self.failed = ArgumentError(
                    f"map over {tool!r}: reading row {position} failed ({why}); an iterator is read on the "
                    "background thread: pass a list or a DataFrame instead (list(rows))"
                )
                yield position, self.failed
                return
            if not isinstance(row, Mapping):
                why = f"row {position} is a {type(row).__name__}, not a dict"
                yield position, ArgumentError(f"map over {tool!r}: {why}")
            elif rename:
                yield (
                    position,
                    self._converted(position, {rename.get(str(k), str(k)): v for k, v in row.items()}, constants),
                )
            else:
                yield position, self._converted(position, {str(k): v for k, v in row.items()}, constants)
            position += 1


_AS_IT_IS = frozenset({str, int})  # exactly (a bool, a str subclass: to_json decides)


def _cells(column: list[Any]) -> list[Any]:
    """A column's cells as JSON values (missing ones None); a column of plain text or whole
    numbers, the common case, as it is."""
    if set(map(type, column)) <= _AS_IT_IS:  # in C: no Python step per cell
        return column
    converted: list[Any] = to_json(column)
    return converted


def _arguments(row: JSON, constants: JSON) -> JSON:
    converted = to_json({**row, **constants} if constants else row)
    return {k: v for k, v in converted.items() if v is not None}

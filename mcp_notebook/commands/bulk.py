"""The map subcommand: a tool called for every row of a table (``Server.map``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ArgumentError
from .base import Context, Deferred, command, server_named
from .parsing import BadSeconds, key_values, resolve_value, seconds, target
from .steps import Taker

__all__ = ["map_"]

_NUMBERS: dict[str, Callable[[str], Any]] = {"--concurrency": int, "--retries": int, "--timeout": seconds}


@command(
    "map SERVER.TOOL $ROWS [--concurrency N] [--retries N] [--timeout S] [--retry-unsafe] [--explode FIELD] "
    "[-o VAR] [key=value …]",
    "call a tool for every row of a table",
    """
$ROWS is a DataFrame (its columns matched to the tool's parameters by name; other columns
are ignored; not a Series: use s.to_frame('name')), a list of dicts, or any iterable of
dicts, read only as calls finish. key=value pairs (values as for call) go with every row,
whatever their names (timeout=3 is the tool's parameter, --timeout 3 the option).
--concurrency calls at a time (8); --timeout each call's; --retries N: a call refused as
busy (HTTP 429/503: after its Retry-After) or never sent (connection refused) goes
again, with backoff, up to N times; one that may have run (a lost reply, a timeout, HTTP
5xx) only for a tool annotated idempotentHint, or with --retry-unsafe; a permanent
answer (HTTP 400, 401, 403, 404 …) never. A tool that needs approval asks once for the
whole map. The result is a DataFrame on the input's index: a structured result's fields
as columns (else text; a field named is_error, error or elapsed_s is kept as
result_is_error, …), then is_error, error and elapsed_s; -o VAR also stores it.
--explode FIELD: a field holding a list of records gives a row per record (its keys as
columns, the input's index repeated); without it the list stays in one cell.
A progress bar shows done/total, the rate, the time left and the errors so far; its
Cancel (or an interrupt) cancels what is in flight and returns the rows so far, the rest
marked cancelled (on a terminal a text line; headless, a line on stderr every few
seconds at most).
  out = %mcp map everything.get-sum $df b=1
  asks = pd.DataFrame({"species": ["Adelie", "Gentoo"]})
  %mcp map demo.query_penguins $asks --concurrency 4 limit=3 -o found
  %mcp map demo.query_penguins $asks --explode rows limit=3
""",
)
def map_(ctx: Context, tokens: list[str]) -> Any:
    if len(tokens) < 2 or tokens[0].startswith("-") or tokens[1].startswith("-"):
        raise ArgumentError("%mcp map: give SERVER.TOOL and $ROWS first; see %mcp help map")
    server_name, tool = target(tokens[0])
    rows, _ = resolve_value(tokens[1], ctx.names)
    if isinstance(rows, (str, int, float, bool, dict)) or rows is None:
        raise ArgumentError(
            f"%mcp map: {tokens[1]} is a {type(rows).__name__}; give a DataFrame or a list of dicts ($df)"
        )
    kwargs: dict[str, Any] = {}
    output: str | None = None
    pairs: list[str] = []
    rest = iter(tokens[2:])
    for token in rest:
        if token in _NUMBERS:
            value = next(rest, "")
            try:
                kwargs[token[2:]] = _NUMBERS[token](value)
            except BadSeconds as e:
                raise ArgumentError(f"%mcp map: {token} {e}") from None
            except ValueError:
                raise ArgumentError(f"%mcp map: {token} takes a number, not {value!r}") from None
        elif token == "--retry-unsafe":
            kwargs["retry_unsafe"] = True
        elif token == "--explode":
            kwargs["explode"] = next(rest, "")
            if not kwargs["explode"] or kwargs["explode"].startswith("-"):
                raise ArgumentError("%mcp map: --explode takes the name of a field of the tool's result")
        elif token in ("-o", "--output"):
            output = next(rest, "")
            if not output.isidentifier():
                raise ArgumentError(f"-o {output!r}: not a Python variable name")
        elif token.startswith("-") and "=" not in token:
            raise ArgumentError(f"%mcp map: unknown option {token!r}; see %mcp help map")
        else:
            pairs.append(token)
    server = server_named(ctx, server_name)
    # key=value pairs are the tool's parameters, whatever their names (timeout=3 is one; --timeout the option)
    kwargs["constants"] = key_values(pairs, ctx.names)
    deferred = Deferred(lambda: server.map(tool, rows, **kwargs), lambda: server.amap(tool, rows, **kwargs))

    async def stored(taker: Taker) -> Any:
        frame = await taker.take(deferred)
        if output:
            ctx.namespace[output] = frame
        return frame

    return Deferred.of(stored)

"""Requests as OpenTelemetry client spans, named and attributed as the OpenTelemetry MCP
conventions say, once the application has set a tracer provider (``opentelemetry-api``,
the ``otel`` extra). Until then nothing is imported and a request pays one dict lookup.

``begin`` starts a request's span, as a child of whatever span is current where the call
was made, and puts its W3C trace context (``traceparent``, ``tracestate``) in the request's
``_meta``, so that a server that traces (the official SDK's does) makes its own span a child
of ours. ``end`` records how the request ended: an error's code or type, a tool's
``isError``.
"""

from __future__ import annotations

import sys
from typing import Any

from ...errors import RPCError
from ...version import __version__
from ..loggers import CORE as LOG

JSON = dict[str, Any]

_tracer: Any = None  # set once a provider is: OpenTelemetry's global provider is set only once
_TARGETS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri", "resources/subscribe": "uri"}


def tracer_if_set() -> Any:
    """The tracer, or None while no tracer provider is set (or OpenTelemetry not imported)."""
    global _tracer
    if _tracer is not None:
        return _tracer
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return None
    provider = trace.get_tracer_provider()
    if isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)):
        return None
    _tracer = provider.get_tracer("mcp-notebook", __version__)
    return _tracer


def begin(
    method: str, params: JSON | None, rid: int | str, protocol: str | None, pipe: bool
) -> tuple[Any, JSON | None]:
    """The request's span, started, and its params with the span's trace context in their
    ``_meta`` (a copy); ``(None, params)`` as they were while nothing traces."""
    tracer = _tracer if _tracer is not None else tracer_if_set()
    if tracer is None:
        return None, params
    try:
        return _begin(tracer, method, params, rid, protocol, pipe)
    except Exception:  # telemetry must never fail a request
        LOG.exception("tracing: could not start a span for %s", method)
        return None, params


def _begin(
    tracer: Any, method: str, params: JSON | None, rid: int | str, protocol: str | None, pipe: bool
) -> tuple[Any, JSON | None]:
    from opentelemetry.propagate import inject
    from opentelemetry.trace import SpanKind, set_span_in_context

    key = _TARGETS.get(method)
    target = params.get(key) if key and params else None
    attributes: JSON = {
        "mcp.method.name": method,
        "jsonrpc.request.id": str(rid),
        "network.transport": "pipe" if pipe else "tcp",
    }
    if protocol:
        attributes["mcp.protocol.version"] = protocol
    if isinstance(target, str):
        if method == "tools/call":
            attributes["gen_ai.operation.name"] = "execute_tool"
            attributes["gen_ai.tool.name"] = target
        elif method == "prompts/get":
            attributes["gen_ai.prompt.name"] = target
        else:
            attributes["mcp.resource.uri"] = target
    name = f"{method} {target}" if isinstance(target, str) else method
    span = tracer.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)
    meta = (params or {}).get("_meta")
    carrier: JSON = dict(meta) if isinstance(meta, dict) else {}
    inject(carrier, context=set_span_in_context(span))
    return span, {**(params or {}), "_meta": carrier}


def end(span: Any, future: Any) -> None:
    """Record how the request ended (``future``: its asyncio.Future or Answer) and end its
    span; a failure here is logged, never the request's."""
    try:
        _end(span, future)
    except Exception:
        LOG.exception("tracing: could not end a span")


def _end(span: Any, future: Any) -> None:
    from opentelemetry.trace import StatusCode

    error = None if future.done() and not future.cancelled() else "cancelled or timed out"
    if future.done() and not future.cancelled() and future.exception() is not None:
        exception = future.exception()
        if isinstance(exception, RPCError):
            span.set_attribute("rpc.response.status_code", str(exception.code))
            span.set_attribute("error.type", str(exception.code))
        else:
            span.set_attribute("error.type", type(exception).__qualname__)
        error = str(exception)
    elif error is not None:
        span.set_attribute("error.type", "cancelled")
    elif isinstance(result := future.result(), dict) and result.get("isError") is True:
        span.set_attribute("error.type", "tool_error")
        error = "the tool returned an error"
    if error is not None:
        span.set_status(StatusCode.ERROR, error)
    span.end()


__all__ = ["begin", "end", "tracer_if_set"]

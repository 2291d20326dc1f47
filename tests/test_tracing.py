"""What a notebook's calls look like from outside: OpenTelemetry client spans (the MCP
conventions' names and attributes) whose trace context reaches the official SDK's server,
whose own spans join the notebook's trace; nothing at all without a tracer provider; and
``client.on_call`` hooks, one event per call."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from support.peers import SERVERS

from mcp_notebook import CallEvent, Client, RequestTimeout

SDK_MODERN = str(SERVERS / "sdk_modern.py")
TRACED = str(SERVERS / "traced.py")
SECRET = "sk-live-9f8e7d6c5b4a"


def in_a_fresh_process(code: str, tmp_path: Path, **env: str) -> Any:
    """Run ``code`` (which prints one JSON line last) in a new Python: the tracer provider
    is set once per process, and this one must stay without."""
    import os

    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, **env},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_calls_are_client_spans_and_the_sdk_servers_spans_join_their_trace(tmp_path: Path) -> None:
    server_spans = tmp_path / "server.jsonl"
    seen = in_a_fresh_process(
        f"""
        import json, sys
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from mcp_notebook import Client

        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        client = Client()
        with trace.get_tracer("notebook").start_as_current_span("analysis"):
            server = client.add("sdk", sys.executable, [{TRACED!r}])
            server.call_tool("echo", {{"text": "hi"}})
            server.call_tool("no_such_tool", validate=False)  # the server answers with a tool error
        client.close()
        print(json.dumps([
            {{"name": s.name, "kind": s.kind.name, "trace_id": f"{{s.context.trace_id:032x}}",
              "span_id": f"{{s.context.span_id:016x}}", "parent_id": f"{{s.parent.span_id:016x}}" if s.parent else None,
              "attributes": dict(s.attributes or {{}}), "status": s.status.status_code.name}}
            for s in exporter.get_finished_spans()
        ]))
        """,
        tmp_path,
        TRACED_SPANS=str(server_spans),
    )
    spans = {s["name"]: s for s in seen}
    analysis, echo, missing = spans["analysis"], spans["tools/call echo"], spans["tools/call no_such_tool"]
    assert echo["kind"] == "CLIENT" and echo["status"] == "UNSET"
    assert echo["parent_id"] == analysis["span_id"] and echo["trace_id"] == analysis["trace_id"]
    attributes = echo["attributes"]
    assert attributes["mcp.method.name"] == "tools/call" and attributes["gen_ai.tool.name"] == "echo"
    assert attributes["gen_ai.operation.name"] == "execute_tool" and attributes["network.transport"] == "pipe"
    assert attributes["mcp.protocol.version"] == "2026-07-28" and attributes["jsonrpc.request.id"].isdigit()
    assert missing["status"] == "ERROR" and missing["attributes"]["error.type"] == "tool_error"
    assert any(s["name"] == "server/discover" for s in seen)  # every request is a span, the handshake too

    theirs = [json.loads(line) for line in server_spans.read_text().splitlines()]
    served = next(s for s in theirs if s["name"] == "tools/call echo" and s["kind"] == "SERVER")
    assert served["parent_id"] == echo["span_id"] and served["trace_id"] == echo["trace_id"]


def test_without_a_tracer_provider_nothing_is_imported_or_sent(tmp_path: Path) -> None:
    seen = in_a_fresh_process(
        f"""
        import json, sys
        from mcp_notebook import Client
        client = Client()
        server = client.add("sdk", sys.executable, [{SDK_MODERN!r}])
        server.call_tool("echo", {{"text": "hi"}})
        meta = client.calls("sdk")[-1].params.get("_meta", {{}})
        ours = [m for m in sys.modules if m.startswith("opentelemetry")]
        client.close()
        print(json.dumps({{"meta": sorted(meta), "imported": ours}}))
        """,
        tmp_path,
    )
    assert "traceparent" not in seen["meta"]
    assert seen["imported"] == []  # (the server's process imports it; ours never did)


def test_on_call_hears_every_call_once_with_its_outcome_and_no_secret(client: Client) -> None:
    events: list[CallEvent] = []
    remove = client.on_call(events.append)
    server = client.add("sdk", sys.executable, [SDK_MODERN])
    assert server.call_tool("echo", {"text": "hi", "api_key": SECRET}, validate=False).text == "hi"
    assert server.call_tool("add", {"a": "x", "b": 1}, validate=False).is_error  # the tool says it failed
    with pytest.raises(RequestTimeout):  # it waits for a partner who never comes
        server.call_tool("meet", {"together": 2}, timeout=0.5)
    frame = server.map("add", [{"a": 1, "b": 2}, {"a": 3, "b": 4}])
    assert list(frame["result"]) == [3, 7]
    remove()
    server.call_tool("echo", {"text": "unheard"})

    outcomes = [(e.tool, e.outcome) for e in events]
    assert outcomes == [("echo", "ok"), ("add", "tool error"), ("meet", "failed"), ("add", "ok"), ("add", "ok")]
    assert events[0].server == "sdk" and events[0].duration_s > 0
    assert events[0].arguments == {"text": "hi", "api_key": "***"} and SECRET not in repr(events)
    assert "validation error" in str(events[1].error) and "RequestTimeout" in str(events[2].error)
    assert sorted(e.arguments["a"] for e in events[3:]) == [1, 3]

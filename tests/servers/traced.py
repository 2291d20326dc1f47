"""tests/servers/sdk_modern.py with OpenTelemetry recording: every span the official SDK's
server makes is written, as it ends, to the JSON-lines file named by TRACED_SPANS (name,
kind, ids, parent, attributes), for a test to read.

    TRACED_SPANS=spans.jsonl python tests/servers/traced.py
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from collections.abc import Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult


class JsonLines(SpanExporter):
    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with open(self.path, "a") as f:
            for span in spans:
                context, parent = span.get_span_context(), span.parent
                f.write(
                    json.dumps(
                        {
                            "name": span.name,
                            "kind": span.kind.name,
                            "trace_id": f"{context.trace_id:032x}",
                            "span_id": f"{context.span_id:016x}",
                            "parent_id": f"{parent.span_id:016x}" if parent else None,
                            "attributes": dict(span.attributes or {}),
                        }
                    )
                    + "\n"
                )
        return SpanExportResult.SUCCESS


provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(JsonLines(os.environ["TRACED_SPANS"])))
trace.set_tracer_provider(provider)
here = os.path.dirname(os.path.abspath(__file__))
sys.argv = [os.path.join(here, "sdk_modern.py"), *sys.argv[1:]]
runpy.run_path(sys.argv[0], run_name="__main__")

"""A real MCP server (the official SDK's MCPServer) over stdio whose results carry audio.

server-everything has no audio tool; this one answers `tone` with a short WAV clip and a
caption, so that the notebook's rendering of audio content is tested against a real server.
Run: python tests/servers/media_server.py
"""

from __future__ import annotations

import base64
import io
import math
import struct
import wave

from mcp.server.mcpserver import MCPServer
from mcp_types import AudioContent, TextContent

server = MCPServer("media", version="0.1.0")


def _wav(hertz: float, seconds: float, rate: int = 8000) -> bytes:
    frames = b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * hertz * i / rate))) for i in range(int(rate * seconds))
    )
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)
    return out.getvalue()


@server.tool()
def tone(hertz: float = 440.0, seconds: float = 0.1) -> list[TextContent | AudioContent]:
    """A sine tone as a WAV clip."""
    clip = base64.b64encode(_wav(hertz, seconds)).decode()
    return [
        TextContent(type="text", text=f"{hertz:g} Hz for {seconds:g} s"),
        AudioContent(type="audio", data=clip, mime_type="audio/wav"),
    ]


if __name__ == "__main__":
    server.run()

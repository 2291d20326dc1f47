"""The bundled demo MCP server (needs the `demo` extra: ``pip install mcp-notebook[demo]``)."""

"""The HTTP transports: Streamable HTTP and the legacy HTTP+SSE one, their shared
half, event streams and reply bodies."""

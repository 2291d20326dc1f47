"""The MCP session and the protocol's rules: the JSON-RPC pipeline, the era handshake,
requests in flight, listings, notifications, input rounds, tasks, caching hints, headers."""

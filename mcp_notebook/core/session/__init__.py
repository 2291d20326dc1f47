"""The MCP client session: one pipeline every request goes through (sent on the loop, or
on a blocking caller's thread), the era handshake, requests in flight, listings, notification
listeners, the server's own requests and a modern server's input rounds."""

"""The stdio transport: a local server's process, its pipes (and the fast path
over them), how its command is found and how it is stopped."""

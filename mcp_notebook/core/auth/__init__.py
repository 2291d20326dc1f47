"""OAuth for remote servers: discovery, registration, the login's URL and answer, tokens
and where they are kept, the loopback redirect."""

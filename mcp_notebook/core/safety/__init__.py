"""What we show of what we do not trust: control characters escaped, secrets masked,
links checked."""

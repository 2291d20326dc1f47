"""What was sent and received: the history of calls, its tables, and a replay script."""

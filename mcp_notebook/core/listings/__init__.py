"""A server's listings kept and compared: snapshots (snapshot.py) and their differences,
breaking ones marked (compare.py)."""

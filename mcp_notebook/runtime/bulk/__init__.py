"""A tool called for every row of a table: the run, its rows and its progress."""

"""Server definitions and the files that hold them: the formats read (and their
JSON Schemas), the saved scopes, entries written back with secrets as references."""

"""Tools as Python functions: signatures and docstrings from their schemas."""

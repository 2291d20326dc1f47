"""The package's version, written once: pyproject.toml reads it from here (without importing
the package), the package root re-exports it, and the session sends it as ``clientInfo``.
It imports nothing, so that any module may take it without reaching the package root."""

__all__ = ["__version__"]

__version__ = "0.1.0"

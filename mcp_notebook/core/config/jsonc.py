"""VS Code's JSON with comments: ``//`` and ``/* */`` comments and trailing commas, taken
out so that the JSON parser reads the rest (line numbers kept for its errors)."""

from __future__ import annotations

__all__ = ["strip_jsonc"]


def strip_jsonc(text: str) -> str:
    """Remove // and /* */ comments and trailing commas outside strings (VS Code's JSONC)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            # Keep newlines so that error line numbers still match the file.
            out.append("\n" * text.count("\n", i, n if j < 0 else j))
            i = n if j < 0 else j + 2
            continue
        elif c == "," and _next_significant(text, i + 1) in ("}", "]"):
            pass  # a trailing comma (comments may come between it and the bracket)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _next_significant(text: str, i: int) -> str:
    """The first character at or after ``i`` that is not whitespace or in a comment."""
    n = len(text)
    while i < n:
        if text[i].isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        else:
            return text[i]
    return ""

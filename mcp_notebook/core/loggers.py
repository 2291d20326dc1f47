"""The package's loggers, one per layer, silent until you configure logging (a
``NullHandler`` on ``mcp_notebook``: nothing reaches Python's last-resort handler).

    mcp_notebook.core      DEBUG    each message sent (→) and received (←), secrets hidden, long ones cut
                           INFO     logins asked and done, tokens renewed or not
                           WARNING  what a config file has that is not supported (also a ConfigWarning)
    mcp_notebook.runtime   INFO     connects (transport, protocol, how the era was chosen), failed
                                    connects, reconnects
    mcp_notebook.notebook  INFO     each card's question and how it ended, by whom (not what was typed)

Turn them on as for any library::

    import logging
    logging.basicConfig(format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("mcp_notebook").setLevel(logging.DEBUG)

A line quotes what a server sent: its control characters are shown as escapes.

Logging only watches: a line that cannot be made (a value the redaction cannot read, a
filter of yours that raises) costs no message; it is said once, as a ``RuntimeWarning``
(``Once``), and the protocol goes on. The history and transcripts (history/) do the same.
"""

from __future__ import annotations

import json
import logging
import warnings
from typing import Any

from .safety.logs import mask_library_logs
from .safety.redact import shown
from .safety.text import clipped, printable

logging.getLogger("mcp_notebook").addHandler(logging.NullHandler())
mask_library_logs()  # httpx's INFO lines quote request URLs: masked like ours (safety/logs.py)
CORE = logging.getLogger("mcp_notebook.core")
RUNTIME = logging.getLogger("mcp_notebook.runtime")
NOTEBOOK = logging.getLogger("mcp_notebook.notebook")
CUT = 2000  # characters of a message's line logged; the rest is counted
DEBUG = logging.DEBUG


class Once:
    """A job done beside the protocol (a log line, a transcript row) that failed: said once,
    as a warning, whatever fails after; the work it watched goes on."""

    __slots__ = ("said", "what")

    def __init__(self, what: str) -> None:
        self.what = what
        self.said = False

    def __repr__(self) -> str:
        return f"<Once {self.what!r} said={self.said}>"

    def failed(self, error: BaseException) -> None:
        if self.said:
            return
        self.said = True
        why = clipped(f"{type(error).__name__}: {error}", 200)
        try:
            warnings.warn(f"{self.what} failed ({why}); the protocol goes on (said once)", RuntimeWarning, stacklevel=3)
        except Exception:  # warnings made errors (-W error): still never the protocol's failure
            pass


def wire(server: str, arrow: str, message: Any, once: Once) -> None:
    """Log one message at DEBUG (callers check ``CORE.isEnabledFor(DEBUG)`` first: this
    is on every request's path); a failure is ``once``'s to say, never the caller's."""
    try:
        text = printable(json.dumps(shown(message), ensure_ascii=False, default=repr))
        if len(text) > CUT:
            text = f"{text[:CUT]}… ({len(text):,} characters)"
        CORE.debug("%s %s %s", printable(server), arrow, text)
    except Exception as e:  # a value shown() cannot read, a filter that raises: not the protocol's
        once.failed(e)


__all__ = ["CORE", "CUT", "DEBUG", "NOTEBOOK", "RUNTIME", "Once", "wire"]

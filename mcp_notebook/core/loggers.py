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
"""

from __future__ import annotations

import json
import logging
from typing import Any

from .safety.redact import shown
from .safety.text import printable

logging.getLogger("mcp_notebook").addHandler(logging.NullHandler())
CORE = logging.getLogger("mcp_notebook.core")
RUNTIME = logging.getLogger("mcp_notebook.runtime")
NOTEBOOK = logging.getLogger("mcp_notebook.notebook")
CUT = 2000  # characters of a message's line logged; the rest is counted
DEBUG = logging.DEBUG


def wire(server: str, arrow: str, message: Any) -> None:
    """Log one message at DEBUG (callers check ``CORE.isEnabledFor(DEBUG)`` first: this
    is on every request's path)."""
    text = printable(json.dumps(shown(message), ensure_ascii=False, default=repr))
    if len(text) > CUT:
        text = f"{text[:CUT]}… ({len(text):,} characters)"
    CORE.debug("%s %s %s", printable(server), arrow, text)


__all__ = ["CORE", "CUT", "DEBUG", "NOTEBOOK", "RUNTIME", "wire"]

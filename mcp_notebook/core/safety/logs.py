"""Secrets masked in the log lines of the libraries we use: httpx logs each request's URL
at INFO, where a server URL's password or ``?api_key=`` would show; httpcore logs at DEBUG
through loggers of its own (``httpcore.http11``, ``httpcore.connection`` …).
``mask_library_logs()`` puts a ``MaskSecrets`` filter on each of those loggers
(core/loggers.py does, once, on import): a filter, not a level, so whether they log stays
the person's choice.

Why on each logger: a logger's filter sees only the records made on that logger, not those
of its children (``httpcore``'s filter never sees ``httpcore.http11``'s). A handler's filter
would see them all, but the handlers are the person's; a record factory
(``logging.setLogRecordFactory``) would touch every record of the process. So the filter
goes on each logger those libraries log through: the names they use, and any other already
made under them.
"""

from __future__ import annotations

import logging

from .detect import URL, mask_secrets
from .redact import redact_url

# The loggers httpx and httpcore log through (httpx: "httpx"; httpcore: one per module).
LIBRARIES = ("httpx", "httpcore", "httpcore.connection", "httpcore.http11", "httpcore.http2", "httpcore.proxy",
             "httpcore.socks")  # fmt: skip


class MaskSecrets(logging.Filter):
    """Masks a record's message before any handler sees it: each URL as ``redact_url`` shows
    a server's URL, then secrets found by their value (detect.py)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record that cannot be formatted: left for the handler to report
            return True
        masked = mask_secrets(URL.sub(lambda m: redact_url(m.group(0), paths=True), message))
        if masked != message:
            record.msg, record.args = masked, None
        return True

    def __repr__(self) -> str:
        return "<MaskSecrets>"


MASK_SECRETS = MaskSecrets()


def mask_library_logs() -> None:
    """Put ``MASK_SECRETS`` on the libraries' loggers, and on any logger already made under
    them (once: adding it again changes nothing)."""
    made = [n for n in list(logging.root.manager.loggerDict) if n.split(".", 1)[0] in ("httpx", "httpcore")]
    for name in {*LIBRARIES, *made}:
        logging.getLogger(name).addFilter(MASK_SECRETS)


__all__ = ["LIBRARIES", "MASK_SECRETS", "MaskSecrets", "mask_library_logs"]

"""A browser for the command line's logins (``BROWSER="python browse.py %s"``): it opens the
authorization page, which the demo's authorization server approves at once, follows the
redirect to the loopback listener and exits 0 if that page says the login is complete."""

from __future__ import annotations

import sys

import httpx

page = httpx.get(sys.argv[1], follow_redirects=True, timeout=30)
sys.exit(0 if page.status_code == 200 and "Login complete" in page.text else 1)

"""Running ``mcp-notebook`` as a shell or a CI job does: a process with nobody at its terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DEMO = [sys.executable, "-m", "mcp_notebook.demo"]


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``mcp-notebook ARGS`` with nobody at the terminal (stdin from /dev/null): its exit
    status, stdout and stderr; a run that hangs fails the test (the timeout), not the session."""
    done = subprocess.run(
        [sys.executable, "-m", "mcp_notebook", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None, code: int = 0) -> tuple[str, str]:
    """``run``'s stdout and stderr, after checking its exit status is ``code``."""
    status, out, err = run(*args, cwd=cwd, env=env)
    assert status == code, (status, out[-2000:], err[-2000:])
    return out, err


def data(*args: str, cwd: Path, env: dict[str, str] | None = None) -> object:
    return json.loads(cli("--format", "json", *args, cwd=cwd, env=env)[0])

"""IPython (or any program) in a pseudo-terminal, typed at as a person types: ``run`` types a
line and returns what it printed up to the next prompt."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pexpect
import pytest

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[=>]")


def plain(text: str) -> str:
    """What the person reads: without the terminal's control sequences."""
    return _ANSI.sub("", text).replace("\r\n", "\n")


def environment(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "MCP_NOTEBOOK_TOKEN_STORE": "memory",
        "IPYTHONDIR": str(tmp_path / "ipython"),  # its own history database
        "PROMPT_TOOLKIT_NO_CPR": "1",  # nobody answers the cursor position request here
        "TERM": "xterm",
    }


class Terminal:
    """A program in a pseudo-terminal; for IPython, ``run`` types a line and waits for the
    next prompt, returning what was printed in between."""

    def __init__(
        self, args: list[str], tmp_path: Path, ipython: bool = True, env: dict[str, str] | None = None
    ) -> None:
        self.child = pexpect.spawn(args[0], args[1:], cwd=str(tmp_path), env={**environment(tmp_path), **(env or {})},
                                   encoding="utf-8", timeout=90, dimensions=(50, 200))  # fmt: skip
        self.seen: list[str] = []
        self.child.logfile_read = _Recorder(self.seen)
        self.next = 1
        if ipython:
            self.wait_prompt()

    def wait_prompt(self, timeout: float = 90) -> str:
        self.child.expect(rf"In \[{self.next}\]", timeout=timeout)
        self.next += 1
        return plain(self.child.before)

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def run(self, line: str, timeout: float = 90) -> str:
        """Type ``line``; what it printed (after the line's echo) until the next prompt."""
        self.send(line)
        return self.wait_prompt(timeout).partition("\n")[2]

    def expect(self, pattern: str, timeout: float = 90) -> re.Match[str]:
        """Wait for ``pattern`` while a cell runs; fail at once if the cell ends first."""
        if self.child.expect([pattern, rf"In \[{self.next}\]"], timeout=timeout) == 1:
            pytest.fail(f"the cell ended without printing {pattern!r}: {plain(self.child.before)}")
        return self.child.match  # type: ignore[no-any-return]

    def output(self) -> str:
        return plain("".join(self.seen))

    def close(self) -> None:
        self.child.close(force=True)


class _Recorder:
    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    def write(self, data: str) -> None:
        self.seen.append(data)

    def flush(self) -> None:
        pass


def ipython(tmp_path: Path) -> Terminal:
    return Terminal([sys.executable, "-m", "IPython", "--no-banner", "--colors=NoColor"], tmp_path)

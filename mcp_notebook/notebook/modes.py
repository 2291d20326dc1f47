"""How a waiting cell can ask a person here: what the kernel and the frontend on its other
side allow, and the ``Mode`` chosen from that.

A widget click reaches the kernel as a comm message on the shell channel, which is busy
running the cell; whether it gets through depends on the kernel (measured):

- ipykernel 6: only if the cell itself processes UI events while it blocks (jupyter-ui-poll);
- ipykernel 7.0-7.3: a blocked or awaiting cell gets clicks the frontend sends on a
  subshell (JupyterLab >= 4.4, Notebook >= 7.4 do);
- ipykernel >= 7.4: an awaiting cell gets them; a blocked one never does.

So the mode is chosen per kernel and per context (a blocking call, or an ``await``): widgets
where clicks can arrive, ``input()`` on stdin where they cannot (it works in JupyterLab,
Notebook, VS Code, Colab and terminal IPython), and the headless policy where nobody can
answer, saying so in one line. The magics that can prompt are made awaitable on ipykernel 7
(see transform.py), so they use widgets there.

A frontend says whether it answers ``input()`` in each execute request (``allow_stdin``).
Whether it shows widgets it does not say; what it does is the signal. A widget manager
(JupyterLab's and Notebook 7's @jupyter-widgets/jupyterlab-manager, Voilà's) opens a comm
with target ``jupyter.widget.control`` when it connects to the kernel, to fetch the widgets'
states; ipywidgets' handler keeps that comm in ``Widget._control_comm``. A headless runner
never opens it. Measured here (ipywidgets 8.1.9, ipykernel 7.4, headless Chromium, a
kernel that logged every shell message):

- JupyterLab 4.6.6 opens it 0.2 s after the kernel starts, before the first cell. A fresh
  kernel has not imported ipywidgets then, has no handler for the target and closes the
  comm, forgotten (the manager then falls back to a comm_info_request). After a page
  reload it opens it again, and the kernel keeps it.
- Voilà 0.5.13 runs the notebook first (allow_stdin=False, no page connected: nobody could
  click) and opens it when the page's widget manager connects afterwards; a button's
  callback then runs on the comm_msg of its click. With --progressive_rendering=True the
  page connects while the cells run, and its open raced the first cell's execute request
  (after it in one run, 17 ms before it in another: then it was lost).
- nbclient 0.11 (so papermill, nbconvert --execute) sends allow_stdin=False and no comm
  message at all.

So ``listen()`` registers a handler for the target when the extension loads (ipywidgets
itself only does at its first import), and from then on a widget manager that connects is
heard. One that connected before is not (JupyterLab sends allow_stdin=True, so that does
not matter there); ``%config MCPMagics.prompt_mode = 'widgets'`` tells any other. A frontend
with no ``input()`` whose widget manager connected (Voilà) gets cards wherever clicks reach
the cell, and the headless policy, with a line saying what would show a card, where they
cannot (a blocking call on ipykernel >= 7.4).
"""

from __future__ import annotations

import contextvars
import enum
import os
import sys
from typing import Any

from IPython import get_ipython

from ..runtime.asking.terminal import stdin_is_terminal

__all__ = [
    "BLOCKED_NOTE",
    "OLD_KERNEL_NOTE",
    "CONTROL_TARGET",
    "OUTSIDE_CELLS",
    "UNASKED_IN_VOILA",
    "Mode",
    "choose_mode",
    "in_voila",
    "ipykernel_version",
    "listen",
    "voila_before_page",
    "widget_manager_connected",
]

CONTROL_TARGET = "jupyter.widget.control"
OLD_KERNEL_NOTE = (
    "mcp-notebook: ipykernel {version} can stop answering for good when a message reaches it while it sends a "
    "reply, and a card's click is then lost (ipykernel#1529, fixed in 7.4): pip install -U 'ipykernel>=7.4'"
)
BLOCKED_NOTE = (
    "mcp-notebook: this frontend shows widgets but has no input(), and on ipykernel >= 7.4 a blocking call gets no "
    "clicks, so the policy answers; in a cell, the %mcp magics or `await client[server].acall_tool(...)` show a card"
)


# Set in a task of the kernel's event loop that runs outside any cell (a form's Run, started
# by a click): nothing holds the shell there, so clicks reach it on every ipykernel.
OUTSIDE_CELLS: contextvars.ContextVar[bool] = contextvars.ContextVar("outside_cells", default=False)
# What the servers asked during a cell's call while Voilà ran the notebook, before its page
# could show a card (the policy answered): the magics set a list around a call, the asker adds.
UNASKED_IN_VOILA: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("unasked", default=None)


class Mode(str, enum.Enum):
    WIDGET_AWAIT = "widgets (awaiting cell)"
    WIDGET_BLOCK = "widgets (blocked cell, clicks on a subshell)"
    WIDGET_POLL = "widgets (polling UI events)"
    STDIN = "stdin"
    HEADLESS = "headless"
    HEADLESS_BLOCKED = "headless (widgets show, but a blocked cell gets no clicks and there is no stdin)"

    @property
    def headless(self) -> bool:
        return self in (Mode.HEADLESS, Mode.HEADLESS_BLOCKED)


def choose_mode(setting: str, in_async: bool) -> Mode:
    """The mechanism for this kernel and context; ``setting`` may force one."""
    forced = {"widgets": None, "stdin": Mode.STDIN, "headless": Mode.HEADLESS}.get(setting)
    if forced is not None:
        return forced
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    if kernel is None:  # terminal IPython, or plain Python: a person types only on a terminal
        return Mode.STDIN if stdin_is_terminal() else Mode.HEADLESS  # `ipython x.ipy < /dev/null`: headless
    if in_async and OUTSIDE_CELLS.get():
        return Mode.WIDGET_AWAIT
    version = ipykernel_version() or (6, 0)
    if not getattr(kernel, "_allow_stdin", False) and setting != "widgets":
        if not widget_manager_connected():
            return Mode.HEADLESS  # a headless runner: no frontend to click, no stdin to type
        if not in_async and version >= (7, 4):
            return Mode.HEADLESS_BLOCKED  # widgets show (Voilà), but no click reaches a blocked cell
    if version[0] < 7:
        return Mode.WIDGET_POLL
    if in_async:
        return Mode.WIDGET_AWAIT
    if version < (7, 4):
        return Mode.WIDGET_BLOCK
    return Mode.STDIN if setting != "widgets" else Mode.WIDGET_BLOCK


def ipykernel_version() -> tuple[int, int] | None:
    try:
        import ipykernel
    except ImportError:
        return None
    parts = ipykernel.__version__.split(".")
    return int(parts[0]), int(parts[1])


def listen() -> None:
    """Hear widget managers that connect from now on (in a kernel; elsewhere nothing)."""
    import comm

    manager = comm.get_comm_manager()
    if manager is not None and CONTROL_TARGET not in manager.targets:
        manager.register_target(CONTROL_TARGET, _control_opened)


def _control_opened(channel: Any, msg: dict[str, Any]) -> None:
    # ipywidgets answers the manager's request for the widgets' states and records the
    # comm; importing it also registers its own handlers for later opens.
    from ipywidgets import Widget

    Widget.handle_control_comm_opened(channel, msg)


def widgets_show(setting: str) -> bool:
    """Whether a widget a cell displays is seen (a tool's view needs no click to reach a
    waiting cell, only to be seen): a kernel whose frontend can type (JupyterLab, Notebook,
    VS Code; its widget manager may not have connected yet) or whose widget manager
    connected, or Voilà, whose page connects after it ran the notebook. Not on a terminal,
    not in a headless run, not when the setting says headless."""
    kernel = getattr(get_ipython(), "kernel", None)
    if setting == "headless" or kernel is None:
        return False
    return in_voila() or bool(getattr(kernel, "_allow_stdin", False)) or widget_manager_connected()


def in_voila() -> bool:
    """A Voilà page's kernel (Voilà sets these variables): it runs the notebook before the
    page connects its widget manager, then the page's widgets (a form's Run) reach it."""
    return "VOILA_SERVER_URL" in os.environ or "VOILA_BASE_URL" in os.environ


def voila_before_page() -> bool:
    """Voilà is running the notebook: its page has not connected yet, nobody can answer."""
    return in_voila() and not widget_manager_connected()


def widget_manager_connected() -> bool:
    """Whether a frontend's widget manager has connected to this kernel (and so can show
    cards and send clicks), as far as the kernel heard."""
    module = sys.modules.get("ipywidgets.widgets.widget")
    return module is not None and module.Widget._control_comm is not None

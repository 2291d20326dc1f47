"""What the frontend on the other side of the kernel does: type into ``input()``, show widgets.

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
not matter there); ``%config MCPMagics.prompt_mode = 'widgets'`` tells any other.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["CONTROL_TARGET", "listen", "widget_manager_connected"]

CONTROL_TARGET = "jupyter.widget.control"


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


def widget_manager_connected() -> bool:
    """Whether a frontend's widget manager has connected to this kernel (and so can show
    cards and send clicks), as far as the kernel heard."""
    module = sys.modules.get("ipywidgets.widgets.widget")
    return module is not None and module.Widget._control_comm is not None

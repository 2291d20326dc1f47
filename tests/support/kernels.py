"""Driving a real kernel as a frontend would: run cells, find widgets, click them.

Widget clicks are comm messages on the shell channel ({"method": "custom", "content":
{"event": "click"}}) and value changes are {"method": "update", "state": {...}}; they can
go on the main shell or on a subshell (create_subshell_request on the control channel,
then subshell_id in the comm message's header), as JupyterLab >= 4.4 sends them.

Each cell's shell reply is awaited before the next request goes out: ipykernel 7.0-7.3 can
strand a request that lands while it sends a reply (ipython/ipykernel#1529, fixed in 7.4),
after which that kernel never answers again. A kernel that stopped answering fails the
rest of its tests at once instead of each waiting out its timeout.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from queue import Empty
from typing import Any

import pytest

from .peers import ROOT

TIMEOUT = 60.0
KERNELS_DIR = ROOT / ".kernels"
# The kernels of other ipykernel versions scripts/setup makes in KERNELS_DIR (its
# `for version in ...`): clicks reach a waiting cell differently on 6.x and 7.4+. Not 7.0-7.3
# here (clicks on a subshell): driven message by message, they stranded a click or a cell
# under load, every thread idle, in about one run in three of the suite, and once alone
# (ipykernel#1529, fixed in 7.4); the extension tells users of those versions to upgrade.
OTHER_KERNELS = ["ipykernel-6.31"]
# In the browser, JupyterLab paces its messages as it does for a person: there 7.3 stays
# (tests/test_browser.py: a form and a reply), and never stranded one in any run.
BROWSER_KERNELS = ["ipykernel-6.31", "ipykernel-7.3"]
CONTROL_PROTOCOL_VERSION = "1.0.0"  # ipywidgets 8's jupyter.widget.control


def browser_kernel_names() -> list[str]:
    """The kernels the browser tests open notebooks on, besides this venv's."""
    return list(BROWSER_KERNELS)


def kernel_names() -> list[str]:
    """The test venv's kernel, and the ones scripts/setup makes. One of those missing fails
    its tests (Kernel says what to do): a kernel is never dropped without a word."""
    return ["python3", *OTHER_KERNELS]


def kernel_spec(kernel_name: str) -> Path:
    """The kernel.json of one of the kernels scripts/setup made; the test fails if it is missing."""
    spec = KERNELS_DIR / "share" / "jupyter" / "kernels" / kernel_name / "kernel.json"
    if not spec.exists():
        pytest.fail(f"no {kernel_name} kernel in {KERNELS_DIR}: run scripts/setup (without MCP_NOTEBOOK_SKIP_KERNELS), "
                    f"or deselect its tests with -k 'not {kernel_name}'", pytrace=False)  # fmt: skip
    return spec


def kernel_env(kernel_name: str) -> dict[str, str]:
    """Where a kernel other than this venv's is found (its spec checked first)."""
    if kernel_name == "python3":
        return {}
    kernel_spec(kernel_name)
    return {"JUPYTER_PATH": str(KERNELS_DIR / "share" / "jupyter")}


def ipykernel_version(kernel_name: str) -> tuple[int, int]:
    """Major and minor ipykernel version of a kernel: this venv's own for "python3", else
    read off the name of one scripts/setup made ("ipykernel-7.3")."""
    if kernel_name == "python3":
        import ipykernel

        text = ipykernel.__version__
    else:
        text = kernel_name.removeprefix("ipykernel-")
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


class Kernel:
    def __init__(self, kernel_name: str = "python3", cwd: str | None = None, extra_env: dict[str, str] | None = None):
        from jupyter_client.manager import start_new_kernel

        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        env.update(kernel_env(kernel_name))
        env.update(extra_env or {})
        # Kernel specs are looked up in this process: JUPYTER_PATH must be set here too.
        saved = os.environ.get("JUPYTER_PATH")
        if "JUPYTER_PATH" in env:
            os.environ["JUPYTER_PATH"] = env["JUPYTER_PATH"]
        try:
            self.km, self.kc = start_new_kernel(kernel_name=kernel_name, env=env, cwd=cwd)
            self.name = kernel_name
        finally:
            if saved is None:
                os.environ.pop("JUPYTER_PATH", None)
            else:
                os.environ["JUPYTER_PATH"] = saved
        self.widgets: dict[str, dict[str, Any]] = {}  # comm_id -> state
        self.subshell_id: str | None = None
        self.echoes: list[str] = []  # comm ids whose update the kernel acknowledged
        self.updates: dict[str, int] = {}  # comm id -> state updates the kernel sent
        self.silent: str | None = None  # set once the kernel failed to answer in time

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)

    # -- cells -------------------------------------------------------------------------

    def start(self, code: str, allow_stdin: bool = True) -> str:
        if self.silent:
            raise TimeoutError(f"this kernel stopped answering earlier ({self.silent})")
        return self.kc.execute(code, allow_stdin=allow_stdin)

    def outputs(self, msg_id: str, until_idle: bool = True, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        """iopub outputs of a cell, recording widgets as they open; until it is idle."""
        out: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while not self._take(msg_id, out, deadline):
            pass
        return out

    def outputs_while_running(self, msg_id: str, condition: Any, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        """A running cell's outputs so far, once ``condition(text_of(them))`` holds (what
        comes after: ``outputs``). A cell that ends first fails."""
        out: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while not condition(text_of(out)):
            if self._take(msg_id, out, deadline):
                raise AssertionError(f"the cell ended first: {text_of(out)}")
        return out

    def _take(self, msg_id: str, out: list[dict[str, Any]], deadline: float) -> bool:
        """The next iopub message: widgets recorded, cell ``msg_id``'s output added to
        ``out``; whether the cell is now idle (its shell reply taken too)."""
        msg = self._next(deadline)
        self._record(msg)
        if msg["parent_header"].get("msg_id") != msg_id:
            return False
        kind = msg["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            self._reply(msg_id, deadline)
            return True
        if kind in ("stream", "display_data", "execute_result", "error"):
            add_output(out, {"type": kind, **msg["content"]})
        return False

    def run(self, code: str, allow_stdin: bool = True) -> list[dict[str, Any]]:
        return self.outputs(self.start(code, allow_stdin))

    def _reply(self, msg_id: str, deadline: float) -> None:
        while True:
            try:
                reply = self.kc.get_shell_msg(timeout=max(deadline - time.monotonic(), 0.01))
            except Empty:
                self.silent = "no shell reply to a finished cell"
                raise TimeoutError(self.silent) from None
            if reply["parent_header"].get("msg_id") == msg_id:
                return

    def _next(self, deadline: float) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        try:
            if remaining <= 0:
                raise Empty
            return self.kc.get_iopub_msg(timeout=remaining)
        except Empty:
            self.silent = "it said nothing in time"
            raise TimeoutError("the kernel said nothing in time") from None

    def _record(self, msg: dict[str, Any]) -> None:
        content = msg["content"]
        if msg["msg_type"] == "comm_open" and content.get("target_name") == "jupyter.widget":
            self.widgets[content["comm_id"]] = dict(content["data"].get("state", {}))
        elif msg["msg_type"] == "comm_msg" and content["comm_id"] in self.widgets:
            data = content.get("data", {})
            if data.get("method") in ("update", "echo_update"):
                self.widgets[content["comm_id"]].update(data.get("state", {}))
                self.updates[content["comm_id"]] = self.updates.get(content["comm_id"], 0) + 1
            if data.get("method") == "echo_update":
                self.echoes.append(content["comm_id"])

    # -- widgets -----------------------------------------------------------------------

    def wait_for_widget(
        self, description: str, model: str | None = None, timeout: float = TIMEOUT, exact: bool = False
    ) -> str:
        """The comm id of an enabled widget whose description starts with (or, exact, is)
        ``description``."""
        deadline = time.monotonic() + timeout
        while True:
            for comm_id, state in self.widgets.items():
                shown = str(state.get("description", ""))
                if (shown == description if exact else shown.startswith(description)) and (
                    model is None or state.get("_model_name") == model
                ):
                    if not state.get("disabled"):
                        return comm_id
            self._record(self._next(deadline))

    def forget_widgets(self) -> None:
        self.widgets.clear()

    def like_jupyterlab(self) -> None:
        """Send widget events as JupyterLab >= 4.4 does: on a subshell where the kernel has
        them. Needed on ipykernel 7.0-7.3 (the test venv's kernel on Python 3.10), which
        delivers no clicks on the main shell to a waiting cell."""
        if (7, 0) <= ipykernel_version(self.name) < (7, 4):
            self.use_subshell()

    def use_subshell(self) -> None:
        msg = self.kc.session.msg("create_subshell_request", {})
        self.kc.control_channel.send(msg)
        reply = self.kc.control_channel.get_msg(timeout=TIMEOUT)
        self.subshell_id = reply["content"]["subshell_id"]

    def connect_widget_manager(self) -> None:
        """Do what a widget manager does when it connects to a kernel (measured in JupyterLab
        and Voilà): open a comm to jupyter.widget.control, ask for the widgets' states, close
        it once they came."""
        comm_id = uuid.uuid4().hex
        content = {"comm_id": comm_id, "target_name": "jupyter.widget.control", "data": {}}
        self.kc.shell_channel.send(
            self.kc.session.msg("comm_open", content, metadata={"version": CONTROL_PROTOCOL_VERSION})
        )
        self.kc.shell_channel.send(
            self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"method": "request_states"}})
        )
        deadline = time.monotonic() + TIMEOUT
        while True:
            msg = self._next(deadline)
            self._record(msg)
            content = msg["content"]
            if msg["msg_type"] == "comm_msg" and content.get("comm_id") == comm_id:
                if content["data"].get("method") == "update_states":
                    break
        close = self.kc.session.msg("comm_close", {"comm_id": comm_id, "data": {}})
        self.kc.shell_channel.send(close)
        # Handled before the next request goes out, as a frontend paces them: ipykernel 7.0-7.3
        # can strand a request that arrives while it is still busy with another (see above).
        while True:
            msg = self._next(deadline)
            self._record(msg)
            if msg["parent_header"].get("msg_id") == close["header"]["msg_id"] and msg["msg_type"] == "status":
                if msg["content"]["execution_state"] == "idle":
                    break

    def _comm(self, comm_id: str, data: dict[str, Any]) -> None:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        if self.subshell_id is not None:
            msg["header"]["subshell_id"] = self.subshell_id
        self.kc.shell_channel.send(msg)

    def click(self, description: str) -> None:
        comm_id = self.wait_for_widget(description, "ButtonModel")
        self._comm(comm_id, {"method": "custom", "content": {"event": "click"}})

    def set_value(self, description: str, value: Any, exact: bool = False) -> None:
        comm_id = self.wait_for_widget(description, exact=exact)
        state = self.widgets[comm_id]
        if "_options_labels" in state:  # a selection widget syncs index, not value
            labels = list(state["_options_labels"])
            if isinstance(value, (list, tuple)):
                update: dict[str, Any] = {"index": [labels.index(v) for v in value]}
            else:
                update = {"index": labels.index(value)}
        else:
            update = {"value": value}
        self.echoes.clear()
        self._comm(comm_id, {"method": "update", "state": update, "buffer_paths": []})
        # ipywidgets 8 echoes each update it applied: wait for that, so that a click sent
        # next cannot be handled before the value it depends on.
        deadline = time.monotonic() + TIMEOUT
        while comm_id not in self.echoes:
            self._record(self._next(deadline))

    def wait_until(self, condition: Any, timeout: float = TIMEOUT) -> None:
        """Until ``condition()`` holds, recording what the kernel sends meanwhile."""
        deadline = time.monotonic() + timeout
        while not condition():
            self._record(self._next(deadline))

    def wait_for_text(self, text: str, timeout: float = TIMEOUT) -> None:
        """Until some widget shows ``text`` (an error under a field, a status line)."""
        deadline = time.monotonic() + timeout
        while not any(text in str(state.get("value", "")) for state in self.widgets.values()):
            self._record(self._next(deadline))

    def answer_stdin(self, text: str, timeout: float = TIMEOUT) -> str:
        """Answer the next input() prompt; return the prompt text."""
        msg = self.kc.get_stdin_msg(timeout=timeout)
        self.kc.input(text)
        return str(msg["content"].get("prompt", ""))


def add_output(outputs: list[dict[str, Any]], output: dict[str, Any]) -> None:
    """Append ``output``, merged into the one before when both are text on the same stream,
    as a notebook shows them: a kernel flushes a busy cell's print() in pieces wherever its
    timer falls, even mid-line."""
    last = outputs[-1] if outputs else None
    if output["type"] == "stream" and last is not None and last["type"] == "stream" and last["name"] == output["name"]:
        outputs[-1] = {**last, "text": last["text"] + output["text"]}
    else:
        outputs.append(output)


def text_of(outputs: list[dict[str, Any]]) -> str:
    """What a person reads in the cell: stream text as one piece per run, other outputs on
    their own lines."""
    merged: list[dict[str, Any]] = []
    for output in outputs:
        add_output(merged, output)
    parts = []
    for out in merged:
        if out["type"] == "stream":
            parts.append(out["text"])
        elif out["type"] in ("display_data", "execute_result"):
            parts.append(out["data"].get("text/html", "") + out["data"].get("text/plain", ""))
        elif out["type"] == "error":
            parts.append(f"{out['ename']}: {out['evalue']}")
    return "\n".join(parts)


@contextlib.contextmanager
def kernel_with(
    name: str, folder: Path, setup: str, servers: Sequence[str] = (), clicks: str = "main", allow_stdin: bool = True
) -> Iterator[Kernel]:
    """Kernel ``name`` working in ``folder`` once it ran the cell ``setup`` (the extension
    loaded, servers added), each of ``servers`` having said "✓ NAME"; shut down after.
    ``clicks``: where widget events go: the "main" shell, a "subshell", or where JupyterLab
    sends them ("jupyterlab": a subshell on ipykernel 7.0-7.3)."""
    kernel = Kernel(name, cwd=str(folder))
    try:
        if clicks == "subshell":
            kernel.use_subshell()
        elif clicks == "jupyterlab":
            kernel.like_jupyterlab()
        text = text_of(kernel.run(setup, allow_stdin=allow_stdin))
        assert all(f"✓ {server}" in text for server in servers), text
        yield kernel
    finally:
        kernel.close()


def run_headless(cells: list[str], folder: Path, allow_errors: bool = False) -> Any:
    """The notebook of these code cells, run top to bottom by nbclient in this venv's kernel
    (as papermill runs one: no frontend, no stdin), working in ``folder``."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    resources = {"metadata": {"path": str(folder)}}
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=allow_errors, resources=resources).execute()
    return nb

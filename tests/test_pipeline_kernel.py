"""The awaited call path in real kernels shows what the blocking one shows.

On ipykernel 7 ``%mcp call`` is awaited (see mcp_notebook/notebook/transform.py), as is
``await server.acall_tool(...)`` in a cell; ``server.call_tool(...)`` blocks. Whichever a
person uses, the cell shows the page a server needs visited (error -32042) with the
one-line error, the server's log lines, and an interrupted call says which server it was.
Run in every ipykernel 7 kernel available (the test venv's 7.4; 7.0-7.3 are
not tested, see tests/support/kernels.py); tests/test_pipeline.py compares the two paths without a kernel.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.kernels import Kernel, ipykernel_version, kernel_names, kernel_with, text_of

pytestmark = pytest.mark.kernel

FAULTY = Path(__file__).resolve().parent / "servers" / "faulty.py"
PAGE = "https://auth.example/connect"  # the page faulty.py's needs_url names
NEEDS_PAGE = f"urls needs you to complete a step in your browser first ({PAGE}); then call again (code -32042)"

KERNELS = [k for k in kernel_names() if ipykernel_version(k) >= (7, 0)]


def forms(server: str, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, str]:
    """The three ways to call a tool from a cell, by name."""
    args = "".join(f" {k}={v}" for k, v in (arguments or {}).items())
    python = f", {arguments!r}" if arguments else ""
    return {
        "magic": f"r = %mcp call {server}.{tool}{args}",  # awaited on ipykernel 7
        "blocking": f"r = get_client()[{server!r}].call_tool({tool!r}{python})",
        "awaited": f"r = await get_client()[{server!r}].acall_tool({tool!r}{python})",
    }


AWAITED = ("magic", "awaited")


@pytest.fixture(scope="module", params=KERNELS)
def kernel(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    setup = (
        "%load_ext mcp_notebook\n"
        "from mcp_notebook import get_client\n"
        "%mcp add demo -- python -m mcp_notebook.demo\n"
        f"%mcp add urls -- {sys.executable} {FAULTY} ok"
    )
    with kernel_with(request.param, tmp_path_factory.mktemp("pipeline"), setup, ["demo", "urls"]) as k:
        yield k


def errors(outputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [o for o in outputs if o["type"] == "error"]


def new_widgets(kernel: Kernel, before: set[str]) -> list[dict[str, Any]]:
    return [state for comm_id, state in kernel.widgets.items() if comm_id not in before]


def url_cards(kernel: Kernel, before: set[str]) -> list[str]:
    """The HTML of the URL cards (notebook/cards.py UrlCard) that opened since ``before``."""
    return [
        str(state.get("value", ""))
        for state in new_widgets(kernel, before)
        if state.get("_model_name") == "HTMLModel" and "asks you to open a page" in str(state.get("value", ""))
    ]


@pytest.mark.parametrize("form", ["magic", "blocking", "awaited"])
def test_a_page_the_server_needs_shows_with_a_one_line_error(kernel: Kernel, form: str) -> None:
    """Error -32042: the awaited paths show the URL card in the cell (they can take its
    clicks), as the blocking path does where a blocked cell shows cards; where it cannot
    (ipykernel 7.4 asks a blocked cell on stdin) the page is printed in the cell."""
    before = set(kernel.widgets)
    outputs = kernel.run(forms("urls", "needs_url")[form])
    (error,) = errors(outputs)
    assert (error["ename"], error["evalue"]) == ("RPCError", NEEDS_PAGE)
    if form == "magic":
        assert len(error["traceback"]) == 1 and "\n" not in error["traceback"][0]  # one line, no traceback
    cards = url_cards(kernel, before)
    if form in AWAITED:
        displayed = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
        assert len(cards) == 1 and PAGE in cards[0] and len(displayed) == 1, (form, text_of(outputs))
    else:
        printed = [o["text"] for o in outputs if o["type"] == "stream"]
        assert any(PAGE in card for card in cards) or any(f"Connect your account: {PAGE}" in t for t in printed)


@pytest.mark.parametrize("form", ["magic", "blocking", "awaited"])
def test_the_servers_log_lines_show_in_the_cell(kernel: Kernel, form: str) -> None:
    """demo's fit_model logs one message per epoch: three lines in the cell, whichever path."""
    outputs = kernel.run(forms("demo", "fit_model", {"epochs": 3, "seconds_per_epoch": 0})[form] + "\nr.text")
    assert "fitted in 3 epochs" in text_of(outputs)
    lines = [line for o in outputs if o["type"] == "stream" for line in o["text"].splitlines()]
    assert [line for line in lines if line.startswith("[demo ")] == [
        "[demo info] epoch 1: loss 0.500",
        "[demo info] epoch 2: loss 0.333",
        "[demo info] epoch 3: loss 0.250",
    ], lines


@pytest.mark.parametrize("form", AWAITED)
def test_an_interrupted_awaited_call_names_its_server_in_one_line(kernel: Kernel, form: str) -> None:
    kernel.forget_widgets()
    # 50 epochs of 1 s: the call is still running when the interrupt lands, however busy the machine.
    cell = kernel.start(forms("demo", "fit_model", {"epochs": 50, "seconds_per_epoch": 1})[form])
    kernel.wait_for_widget("Cancel", "ButtonModel")  # its progress bar is up: the call runs
    kernel.km.interrupt_kernel()
    outputs = kernel.outputs(cell)
    (error,) = errors(outputs)
    assert error["ename"] == "RequestCancelled", text_of(outputs)
    assert "\n" not in error["evalue"] and "demo" in error["evalue"] and "the server was told" in error["evalue"]
    if form == "magic":
        assert len(error["traceback"]) == 1 and "\n" not in error["traceback"][0]
    # The connection is still usable.
    assert "fitted in 1 epochs" in text_of(
        kernel.run("r = %mcp call demo.fit_model epochs=1 seconds_per_epoch=0\nr.text")
    )

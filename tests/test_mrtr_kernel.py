"""Input-required rounds in real kernels: the official SDK's server asks at 2026-07-28 (an
elicitation in an input-required result, not a request of its own), and the form shows in
the cell that made the call, is answered through the widget comm as a frontend would, and
the cell returns the booked table; for ``%mcp call`` and ``server.call_tool`` alike, on
every kernel available (ipykernel 7.4: the test venv's; 6.31: .kernels)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import pytest
from support.kernels import TIMEOUT, Kernel, ipykernel_version, kernel_names, kernel_with, text_of
from support.peers import SERVERS

pytestmark = pytest.mark.kernel

SDK = SERVERS / "sdk_modern.py"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module", params=kernel_names())
def kernel(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    setup = f"%load_ext mcp_notebook\n%mcp add sdk -- {sys.executable} {SDK} --modern-only"
    with kernel_with(request.param, tmp_path_factory.mktemp("kernel"), setup, ["sdk"], "jupyterlab") as k:
        assert "2026-07-28" in text_of(
            k.run("from mcp_notebook import get_client\nget_client()['sdk'].protocol_version")
        )
        yield k


def card_shown_in(kernel: Kernel, cell: str) -> None:
    """Until a widget is displayed with ``cell`` as its parent: the card is in that cell."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        msg = kernel._next(deadline)
        kernel._record(msg)
        if msg["parent_header"].get("msg_id") == cell and msg["msg_type"] == "display_data":
            if WIDGET_VIEW in msg["content"].get("data", {}):
                return


def answer_the_form(kernel: Kernel, cell: str) -> None:
    card_shown_in(kernel, cell)
    kernel.set_value("Name", "Ada")
    kernel.set_value("Party", 6)
    kernel.click("Accept")


def test_magic_call_answers_the_round_in_its_cell(kernel: Kernel) -> None:
    kernel.forget_widgets()
    cell = kernel.start("r = %mcp call sdk.book_table day=monday\nr.text")
    answer_the_form(kernel, cell)
    assert "booked 6 for Ada monday" in text_of(kernel.outputs(cell))


def test_python_call_answers_the_round_in_its_cell(kernel: Kernel) -> None:
    """A blocking call: widgets where a blocked cell gets clicks (ipykernel 6 by polling),
    input() where it cannot (7.4); awaited, the card on every kernel."""
    kernel.forget_widgets()
    cell = kernel.start("get_client()['sdk'].call_tool('book_table', {'day': 'tuesday'}).text")
    if ipykernel_version(kernel.name) < (7, 4):
        answer_the_form(kernel, cell)
    else:
        assert "Accept / Decline / Cancel?" in kernel.answer_stdin("a")
        assert "Name" in kernel.answer_stdin("Ada")
        assert "Party" in kernel.answer_stdin("6")
    assert "booked 6 for Ada tuesday" in text_of(kernel.outputs(cell))
    kernel.forget_widgets()
    cell = kernel.start("r = await get_client()['sdk'].acall_tool('book_table', {'day': 'friday'})\nr.text")
    answer_the_form(kernel, cell)
    assert "booked 6 for Ada friday" in text_of(kernel.outputs(cell))


def test_headless_policy_declines_in_one_line(kernel: Kernel) -> None:
    outputs = kernel.run("r = %mcp call sdk.book_table day=monday\nr.text", allow_stdin=False)
    text = text_of(outputs)
    assert "asked for input and nobody can answer here: decline" in text and "decline" in text.splitlines()[-1]

"""Frontends that send allow_stdin=False: a headless runner (nbclient, papermill) and one that
shows widgets but has no input() (Voilà), told apart by whether a widget manager connected
(see mcp_notebook/notebook/modes.py). Real kernels, each ipykernel the suite covers; the
frontend's side is played by tests/support/kernels.py as a widget manager would."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from support.kernels import Kernel, ipykernel_version, kernel_names, kernel_with, text_of

pytestmark = pytest.mark.kernel

# Not ipykernel 7.0-7.3: a fresh one of those can strand the first click sent on a subshell
# while a cell runs (ipython/ipykernel#1529; here 1 run in 5 with the other core busy), and
# these tests need a fresh kernel each. Their widget modes are the ones 6.x and 7.4 use
# (polling, awaiting), plus the subshell clicks test_prompts_kernel.py covers on 7.3.
NAMES = [name for name in kernel_names() if not (7, 0) <= ipykernel_version(name) < (7, 4)]


@pytest.fixture(params=NAMES, ids=NAMES)
def kernel(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    """A fresh kernel with the demo server: nothing has connected a widget manager to it yet."""
    setup = "%load_ext mcp_notebook\n%mcp add demo -- python -m mcp_notebook.demo"
    folder = tmp_path_factory.mktemp("kernel")
    with kernel_with(request.param, folder, setup, ["demo"], "jupyterlab", allow_stdin=False) as k:
        yield k


def test_widget_manager_turns_headless_into_a_card(kernel: Kernel) -> None:
    # Without a widget manager (nbclient): nobody can answer, the policy says so in one line.
    text = text_of(kernel.run("%mcp call demo.delete_penguins species=Adelie", allow_stdin=False)).strip()
    assert "needs approval and nobody can answer here, so it was denied" in text and "\n" not in text
    # A widget manager connects (as Voilà's does after running the notebook): a card, and its click counts.
    kernel.connect_widget_manager()
    cell = kernel.start("r = %mcp call demo.delete_penguins species=Adelie\nr.text", allow_stdin=False)
    kernel.click("Approve")
    assert "deleted 152 Adelie penguins" in text_of(kernel.outputs(cell))


def test_blocking_call_without_stdin(kernel: Kernel) -> None:
    """A blocking call gets clicks before ipykernel 7.4 (polling on 6, a subshell on 7.0-7.3);
    on 7.4 it cannot, and with no input() either the policy answers, saying what shows a card."""
    kernel.connect_widget_manager()
    cell = kernel.start(
        "from mcp_notebook import get_client\n"
        "get_client()['demo'].call_tool('delete_penguins', {'species': 'Gentoo'}).text",
        allow_stdin=False,
    )
    if ipykernel_version(kernel.name) < (7, 4):
        kernel.click("Approve")
        assert re.search(r"deleted 124 Gentoo", text_of(kernel.outputs(cell)))
    else:
        text = text_of(kernel.outputs(cell))
        assert "needs approval and nobody can answer here, so it was denied" in text
        assert "in a cell, the %mcp magics or `await client[server].acall_tool(...)` show a card" in text
        assert not any(s.get("description") == "Approve" for s in kernel.widgets.values())  # no card to wait on

"""Tool calls a server runs as tasks, in a real kernel (each ipykernel the suite covers): the
status on a card until the result, what a task asks shown as a card, and its Cancel or an
interrupt telling the server (tasks/cancel). Without a kernel: tests/test_tasks.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.kernels import Kernel, kernel_names, kernel_with, text_of
from support.peers import EVERYTHING, TASKS_SERVER, node

pytestmark = pytest.mark.kernel


@pytest.fixture(scope="module", params=kernel_names())
def kernel(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    setup = (
        "%load_ext mcp_notebook\n"
        f"%mcp add everything -- {node()} {EVERYTHING} stdio\n"
        f"%mcp add tasks -- {' '.join(TASKS_SERVER)}"
    )
    # Clicks on a subshell where the kernel needs them there (7.0-7.3).
    folder = tmp_path_factory.mktemp("kernel")
    with kernel_with(request.param, folder, setup, ["everything", "tasks"], "jupyterlab") as k:
        yield k


def test_the_status_shows_on_a_card_until_the_result(kernel: Kernel) -> None:
    kernel.forget_widgets()
    cell = kernel.start("r = %mcp call everything.simulate-research-query topic=tides\nr.text")
    kernel.wait_for_text("simulate-research-query</code> task working: Gathering sources")  # the server's status
    assert "Research Report: tides" in text_of(kernel.outputs(cell))
    kernel.wait_for_text("simulate-research-query</code> done")


def test_what_a_task_asks_shows_as_a_card(kernel: Kernel) -> None:
    # 2026-07-28: inputRequests, answered with tasks/update.
    cell = kernel.start("r = %mcp call tasks.confirm_task item=a.txt\nr.text")
    kernel.set_value("Delete?", True)
    kernel.click("Accept")
    assert "deleted a.txt" in text_of(kernel.outputs(cell))
    # 2025-11-25: elicitation/create while tasks/result waits.
    kernel.forget_widgets()
    cell = kernel.start("r = %mcp call everything.simulate-research-query topic=python ambiguous=true\nr.text")
    kernel.set_value("Clarification", "Python snake species")
    kernel.click("Accept")
    assert "**Clarification**: snake" in text_of(kernel.outputs(cell))


@pytest.mark.parametrize("how", ["Cancel", "interrupt"])
def test_cancel_and_interrupt_send_tasks_cancel(kernel: Kernel, how: str) -> None:
    kernel.forget_widgets()
    cell = kernel.start("r = %mcp call tasks.slow_task seconds=60\nr.text")
    kernel.wait_for_widget("Cancel", "ButtonModel")  # the task's card is up: it runs
    if how == "Cancel":
        kernel.click("Cancel")
    else:
        kernel.km.interrupt_kernel()
    text = text_of(kernel.outputs(cell))
    assert "RequestCancelled" in text or "KeyboardInterrupt" in text, text
    check = (
        "import time, mcp_notebook\n"
        "c = mcp_notebook.get_client(); t = c.runtime.tasks.records('tasks')[-1]\n"
        "for _ in range(1000):\n"
        "    if t.status == 'cancelled': break\n"
        "    time.sleep(0.01)\n"
        "print('server says', c['tasks'].request('tasks/get', {'taskId': t.task_id})['status'])"
    )
    assert "server says cancelled" in text_of(kernel.run(check))
    assert "cancelled" in text_of(kernel.run("%mcp tasks tasks"))

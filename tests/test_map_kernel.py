"""``%mcp map`` in real kernels (ipykernel 7.4, where the magic is awaited so that clicks
reach the cell, and 6.31, where the blocked cell polls for them): a tool that asks first
gets ONE approval card for the whole map, naming the tool, the row count and the first
rows' arguments; Approve runs every row, Deny sends none. The progress bar's Cancel, or an
interrupt, ends the cell with the rows done, the rest marked cancelled, and the server is
told about the calls in flight."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator

import pytest
from support.kernels import Kernel, ipykernel_version, kernel_names, kernel_with, text_of

pytestmark = pytest.mark.kernel

KERNELS = [k for k in kernel_names() if ipykernel_version(k) in ((7, 4), (6, 31))]
ROWS = "rows = [{'species': s} for s in ['Adelie', 'Gentoo', 'Chinstrap', 'Adelie', 'Gentoo']]"
FAULTY = os.path.join(os.path.dirname(__file__), "servers", "faulty.py")
# faulty.wait answers the first two rows; the others wait until cancelled (2 at a time: 2 in
# flight, 2 never sent).
WAITS = "waits = [{'answer': 'a'}, {'answer': 'b'}] + [{}] * 4"


@pytest.fixture(scope="module", params=KERNELS)
def kernel(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    setup = (
        f"%load_ext mcp_notebook\n%mcp add demo -- {sys.executable} -m mcp_notebook.demo\n{ROWS}\n"
        f"%mcp add faulty -- {sys.executable} {FAULTY} ok\nfaulty = %mcp use faulty\n{WAITS}"
    )
    with kernel_with(request.param, tmp_path_factory.mktemp("map-kernel"), setup, ["demo", "faulty"]) as k:
        yield k


def approval_cards(kernel: Kernel) -> list[str]:
    return [
        str(state.get("value", ""))
        for state in kernel.widgets.values()
        if state.get("_model_name") == "HTMLModel" and "Approve a" in str(state.get("value", ""))
    ]


def counts(kernel: Kernel) -> str:
    return text_of(kernel.run(
        "a = %mcp call demo.query_penguins species=Adelie\n"
        "g = %mcp call demo.query_penguins species=Gentoo\n"
        "print('counts', a.structured['count'], g.structured['count'])"
    ))  # fmt: skip


@pytest.mark.parametrize("answer", ["Deny", "Approve"])  # Deny first: Approve deletes
def test_a_map_of_a_tool_that_asks_asks_once(kernel: Kernel, answer: str) -> None:
    kernel.forget_widgets()
    cell = kernel.start("out = %mcp map demo.delete_penguins $rows --concurrency 1\nprint(out['result'].tolist())")
    kernel.click(answer)
    outputs = kernel.outputs(cell)
    cards = approval_cards(kernel)
    assert len(cards) == 1, cards  # once per map, not once per row
    assert "Approve a map for 5 rows" in cards[0] and "demo.delete_penguins" in cards[0]
    shown = cards[0].split("<pre", 1)[1]  # the first rows' arguments
    assert shown.count("&quot;species&quot;") == 3 and "Chinstrap" in shown, shown
    text = text_of(outputs)
    if answer == "Deny":
        said = [line for line in text.splitlines() if "denied" in line]
        assert said == ["UsageError: demo.delete_penguins was denied; nothing was sent"], text  # one line
        assert "Traceback" not in text
        assert "counts 152 124" in counts(kernel)  # no row was sent: nothing deleted
    else:
        assert "deleted 152 Adelie" in text and "deleted 68 Chinstrap" in text and "deleted 0 Gentoo" in text, text
        assert text.count("deleted") == 5 and "FloatProgress" in text  # where a bar is seen, a bar


def test_a_headless_run_prints_text_not_a_bar(kernel: Kernel) -> None:
    """nbclient and papermill send no input() and connect no widget manager: a progress bar
    would be saved as a widget's repr. A quick map shows nothing (a long one, a line on
    stderr every few seconds at most: test_map_text.py)."""
    outputs = kernel.run("out = %mcp map demo.query_penguins $rows limit=1\nprint(len(out))", allow_stdin=False)
    assert [o["type"] for o in outputs] == ["stream"] and text_of(outputs).strip() == "5", outputs


def cancelled_map(kernel: Kernel, stop: str) -> tuple[str, list[str]]:
    """Run a map of faulty.wait; once two rows wait on the server, ``stop`` it ("Cancel":
    the progress bar's button; "interrupt": the kernel's). What the cell showed, and the ids
    of the requests that were waiting."""
    kernel.forget_widgets()
    cell = kernel.start(
        "out = %mcp map faulty.wait $waits --concurrency 2\n"
        "print('texts', out['text'].tolist()[:2], 'errors', out['error'].fillna('ok').tolist())"
    )
    shown = kernel.outputs_while_running(cell, lambda text: text.count("until cancelled") == 2)
    waiting = re.findall(r"waiting on request (\S+) until cancelled", text_of(shown))
    if stop == "Cancel":
        kernel.click("Cancel")
    else:
        kernel.km.interrupt_kernel()
    return text_of(shown + kernel.outputs(cell)), waiting


def bar_end(kernel: Kernel) -> tuple[float, float, str]:
    """The map's progress bar as it was left: its value, its maximum, its label."""
    bars = [s for s in kernel.widgets.values() if s.get("_model_name") == "FloatProgressModel"]
    labels = [str(s["value"]) for s in kernel.widgets.values() if "faulty.wait (map)" in str(s.get("value", ""))]
    assert len(bars) == 1 and len(labels) == 1, (bars, labels)
    return bars[0]["value"], bars[0]["max"], labels[0]


def told_the_server(kernel: Kernel, ids: list[str]) -> str:
    """What the server wrote to stderr once it saw ``notifications/cancelled`` for each of ``ids``."""
    wanted = [f"cancelled {rid} (" for rid in ids]
    return text_of(kernel.run(
        "import time\n"
        f"wanted = {wanted!r}\n"
        "deadline = time.monotonic() + 20\n"
        "while not all(w in faulty.stderr for w in wanted) and time.monotonic() < deadline:\n"
        "    time.sleep(0.02)\n"
        "print('told' if all(w in faulty.stderr for w in wanted) else faulty.stderr)"
    ))  # fmt: skip


PARTIAL = "texts ['a', 'b'] errors ['ok', 'ok', 'cancelled', 'cancelled', 'cancelled', 'cancelled']"


def test_cancel_on_the_progress_bar_returns_the_rows_done(kernel: Kernel) -> None:
    text, waiting = cancelled_map(kernel, "Cancel")
    assert PARTIAL in text and "Traceback" not in text, text  # the cell ends with the partial frame
    assert bar_end(kernel) == (2, 6, "<code>faulty.wait (map)</code> cancelled")  # not "done"
    assert len(waiting) == 2 and told_the_server(kernel, waiting).strip() == "told"


@pytest.mark.parametrize("kernel", [k for k in KERNELS if ipykernel_version(k) >= (7, 0)], indirect=True)
def test_an_interrupt_returns_the_rows_done(kernel: Kernel) -> None:
    text, waiting = cancelled_map(kernel, "interrupt")
    assert PARTIAL in text and "Traceback" not in text, text
    assert bar_end(kernel) == (2, 6, "<code>faulty.wait (map)</code> interrupted")
    assert len(waiting) == 2 and told_the_server(kernel, waiting).strip() == "told"


@pytest.mark.parametrize("kernel", [k for k in KERNELS if ipykernel_version(k) < (7, 0)], indirect=True)
def test_an_interrupted_map_returns_the_frame_so_far(kernel: Kernel) -> None:
    """Interrupt a blocking map (ipykernel 6; 7 awaits it: above): the calls in flight are cancelled and the
    cell gets the frame, every row marked cancelled, not an error."""
    kernel.forget_widgets()
    cell = kernel.start(
        "slow = [{'epochs': 50, 'seconds_per_epoch': 1}] * 4\n"
        "out = %mcp map demo.fit_model $slow --concurrency 2\n"
        "print('errors', out['error'].tolist())"
    )
    kernel.wait_for_widget("Cancel", "ButtonModel")  # the map's bar is up: it runs
    kernel.km.interrupt_kernel()
    text = text_of(kernel.outputs(cell))
    assert "errors ['cancelled', 'cancelled', 'cancelled', 'cancelled']" in text and "Traceback" not in text, text

"""Prompts in real kernels: approval, elicitation and sampling cards answered by simulated
clicks and value changes, on the main shell and on a subshell, for every kernel available
(the test venv's ipykernel, and the ones scripts/setup made)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest
from support.kernels import Kernel, ipykernel_version, kernel_names, kernel_with, text_of
from support.peers import EVERYTHING

pytestmark = pytest.mark.kernel


def _channels(name: str) -> list[str]:
    # ipykernel 6 has no subshells; 7.0-7.3 only deliver clicks on a subshell (measured).
    version = ipykernel_version(name)
    if version < (7, 0):
        return ["main"]
    if version < (7, 4):
        return ["subshell"]
    return ["main", "subshell"]


def _blocked_cell_gets_clicks(kernel: Kernel) -> bool:
    """A blocking call gets widget clicks before ipykernel 7.4 (polling on 6, a subshell
    on 7.0-7.3); on 7.4 it asks with input()."""
    return ipykernel_version(kernel.name) < (7, 4)


CASES = [(k, c) for k in kernel_names() for c in _channels(k)]


@pytest.fixture(scope="module", params=CASES, ids=[f"{k}-{c}" for k, c in CASES])
def kernel(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Kernel]:
    name, channel = request.param
    node = os.environ.get("MCP_NOTEBOOK_NODE", "node")
    setup = (
        "%load_ext mcp_notebook\n"
        "%mcp add demo -- python -m mcp_notebook.demo\n"
        f"%mcp add everything -- {node} {EVERYTHING} stdio"
    )
    with kernel_with(name, tmp_path_factory.mktemp("kernel"), setup, ["demo", "everything"], channel) as k:
        yield k


@pytest.fixture(autouse=True)
def fresh_approvals(kernel: Kernel) -> None:
    """Each test starts with no "Always allow" answers and no widgets seen."""
    kernel.run("import mcp_notebook; mcp_notebook.get_client().approval.always_allowed.clear()")
    kernel.forget_widgets()


def test_approve_runs_the_call(kernel: Kernel) -> None:
    cell = kernel.start("r = %mcp call demo.delete_penguins species=Chinstrap\nr.text")
    kernel.click("Approve")
    assert "deleted 68 Chinstrap penguins" in text_of(kernel.outputs(cell))


def test_deny_sends_nothing(kernel: Kernel) -> None:
    cell = kernel.start("%mcp call demo.delete_penguins species=Gentoo")
    kernel.click("Deny")
    text = text_of(kernel.outputs(cell))
    assert "was denied; nothing was sent" in text
    # Nothing was deleted: the Gentoo are all still there.
    check = text_of(kernel.run("r = %mcp call demo.query_penguins species=Gentoo\nr.structured['count']"))
    assert "124" in check


def test_always_allow_lasts(kernel: Kernel) -> None:
    cell = kernel.start("%mcp call demo.delete_penguins species=Adelie")
    kernel.click("Always allow")
    assert "deleted" in text_of(kernel.outputs(cell))
    kernel.forget_widgets()
    again = text_of(kernel.run("r = %mcp call demo.delete_penguins species=Adelie\nr.text"))
    assert "deleted 0 Adelie" in again  # no card this time: the cell finished on its own


def test_elicitation_form_accept(kernel: Kernel) -> None:
    cell = kernel.start("r = %mcp call demo.add_observation\nr.text")
    kernel.set_value("Species", "Gentoo")
    kernel.set_value("Island", "Dream")
    kernel.set_value("Body mass (g)", 5500)
    kernel.click("Accept")
    assert "recorded a female Gentoo of 5500 g on Dream" in text_of(kernel.outputs(cell))


def test_elicitation_decline(kernel: Kernel) -> None:
    cell = kernel.start("r = %mcp call demo.add_observation\nr.text")
    kernel.click("Decline")
    assert "nothing recorded (the user chose decline)" in text_of(kernel.outputs(cell))


def test_elicitation_everything_server(kernel: Kernel) -> None:
    cell = kernel.start("r = %mcp call everything.trigger-elicitation-request\nr.text")
    kernel.set_value("String *", "Ada Lovelace", exact=True)  # the one required field
    kernel.set_value("Titled Single Select Enum", "Wonder Woman")  # oneOf: the title shows, the const is sent
    kernel.set_value("Untitled Multiple Select Enum", ["Piano", "Drums"])
    kernel.click("Accept")
    text = text_of(kernel.outputs(cell))
    assert "Ada Lovelace" in text and "hero-3" in text and "Piano" in text
    assert "It was a dark and stormy night." in text  # a default, sent as pre-filled


def test_sampling_reply(kernel: Kernel) -> None:
    cell = kernel.start('r = %mcp call everything.trigger-sampling-request prompt="Say hi" maxTokens=20\nr.text')
    comm_id = kernel.wait_for_widget("", "TextareaModel")
    kernel._comm(comm_id, {"method": "update", "state": {"value": "hi from a person"}, "buffer_paths": []})
    kernel.click("Approve")
    assert "hi from a person" in text_of(kernel.outputs(cell))


def test_await_python_api(kernel: Kernel) -> None:
    cell = kernel.start(
        "from mcp_notebook import get_client\n"
        "r = await get_client()['demo'].acall_tool('delete_penguins', {'species': 'Gentoo'})\nr.text"
    )
    kernel.click("Approve")
    assert re.search(r"deleted \d+ Gentoo", text_of(kernel.outputs(cell)))


def test_headless_denies_in_one_line(kernel: Kernel) -> None:
    outputs = kernel.run("%mcp call demo.delete_penguins species=Gentoo", allow_stdin=False)
    text = text_of(outputs).strip()
    assert "needs approval and nobody can answer here, so it was denied" in text
    assert "approval_allow" in text and text.count("\n") == 0


def test_sync_python_api(kernel: Kernel) -> None:
    """A blocking call from a cell: widgets where a blocked cell gets clicks (ipykernel 6
    by polling, 7.0-7.3 on a subshell), input() where it cannot (7.4)."""
    cell = kernel.start(
        "from mcp_notebook import get_client\n"
        "get_client()['demo'].call_tool('delete_penguins', {'species': 'Adelie'}).text"
    )
    if _blocked_cell_gets_clicks(kernel):
        kernel.click("Approve")
    else:
        assert "[a]pprove / always [A]llow / [d]eny?" in kernel.answer_stdin("a")
    assert re.search(r"deleted \d+ Adelie", text_of(kernel.outputs(cell)))


def test_sync_elicitation_by_stdin_or_widgets(kernel: Kernel) -> None:
    cell = kernel.start("from mcp_notebook import get_client\nget_client()['demo'].call_tool('add_observation').text")
    if _blocked_cell_gets_clicks(kernel):
        kernel.set_value("Species", "Chinstrap")
        kernel.set_value("Island", "Torgersen")
        kernel.click("Accept")
    else:
        assert "Accept / Decline / Cancel?" in kernel.answer_stdin("a")
        assert "Species" in kernel.answer_stdin("Chinstrap")
        assert "Island" in kernel.answer_stdin("Torgersen")
        kernel.answer_stdin("")  # body mass: the default
        kernel.answer_stdin("")  # sex: the default
    assert "recorded a female Chinstrap of 4000 g on Torgersen" in text_of(kernel.outputs(cell))


def test_progress_bar(kernel: Kernel) -> None:
    kernel.forget_widgets()
    text = text_of(kernel.run("r = %mcp call demo.fit_model epochs=3 seconds_per_epoch=0.05\nr.text"))
    assert "fitted in 3 epochs" in text
    assert any(s.get("_model_name") == "FloatProgressModel" for s in kernel.widgets.values())


def test_inline_validation_keeps_the_form_open(kernel: Kernel) -> None:
    cell = kernel.start("r = %mcp call everything.trigger-elicitation-request\nr.text")
    kernel.set_value("String *", "Ada", exact=True)
    kernel.set_value("String with email format", "not-an-email")
    kernel.click("Accept")
    # The form stays: a marked field, no answer sent yet. Fix it and accept again.
    kernel.wait_for_text("not a valid email")
    kernel.set_value("String with email format", "ada@example.org")
    kernel.click("Accept")
    assert "ada@example.org" in text_of(kernel.outputs(cell))


def test_cancel_button_and_interrupt(kernel: Kernel) -> None:
    cell = kernel.start("r = %mcp call demo.fit_model epochs=50 seconds_per_epoch=1\nr.text")
    kernel.click("Cancel")
    text = text_of(kernel.outputs(cell))
    assert "RequestCancelled" in text and "the server was told" in text
    kernel.forget_widgets()
    cell = kernel.start("r = %mcp call demo.fit_model epochs=50 seconds_per_epoch=1\nr.text")
    kernel.wait_for_widget("Cancel", "ButtonModel")  # the progress bar is up: the call runs
    kernel.km.interrupt_kernel()
    interrupted = text_of(kernel.outputs(cell))
    assert "KeyboardInterrupt" in interrupted or "RequestCancelled: interrupted" in interrupted
    assert _disabled(kernel, "Cancel")  # the progress bar's Cancel went with the call
    # The connection is still usable.
    assert "fitted in 1 epochs" in text_of(kernel.run("r = %mcp call demo.fit_model epochs=1\nr.text"))


def _disabled(kernel: Kernel, description: str) -> bool:
    buttons = [s for s in kernel.widgets.values() if s.get("_model_name") == "ButtonModel"]
    return all(s.get("disabled") for s in buttons if s.get("description") == description)


def test_interrupt_closes_the_card_and_sends_nothing(kernel: Kernel) -> None:
    kernel.run("%mcp restart demo")  # the full dataset again: earlier tests deleted some
    before = text_of(kernel.run("r = %mcp call demo.query_penguins species=Chinstrap\nr.structured['count']"))
    assert "68" in before
    cell = kernel.start("%mcp call demo.delete_penguins species=Chinstrap")
    kernel.wait_for_widget("Approve", "ButtonModel")
    kernel.km.interrupt_kernel()
    text = text_of(kernel.outputs(cell))
    assert "KeyboardInterrupt" in text or "interrupted" in text
    assert _disabled(kernel, "Approve") and _disabled(kernel, "Deny")  # the card no longer asks
    after = text_of(kernel.run("r = %mcp call demo.query_penguins species=Chinstrap\nr.structured['count']"))
    assert after == before  # nothing was deleted


def test_sampler_drafts_the_reply(kernel: Kernel) -> None:
    call = 'r = %mcp call everything.trigger-sampling-request prompt="Say hi" maxTokens=20\nr.text'
    interaction = "import mcp_notebook; interaction = mcp_notebook.get_client().interaction\n"
    kernel.run(interaction + "interaction.sampler = lambda params: 'drafted by code'")
    try:
        # The draft fills the card; the person still approves it.
        cell = kernel.start(call)
        draft = kernel.wait_for_widget("", "TextareaModel")
        assert kernel.widgets[draft]["value"] == "drafted by code"
        kernel.click("Approve")
        assert "drafted by code" in text_of(kernel.outputs(cell))
        # Unasked, when so configured: no card, the cell just finishes.
        kernel.forget_widgets()
        kernel.run("%config MCPMagics.sampling_needs_approval = False")
        assert "drafted by code" in text_of(kernel.run(call))
        assert not any(s.get("description") == "Approve" for s in kernel.widgets.values())
    finally:
        kernel.run(interaction + "interaction.sampler = None\n%config MCPMagics.sampling_needs_approval = True")

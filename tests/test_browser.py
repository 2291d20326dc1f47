"""The cards in JupyterLab and Notebook 7 in a real (headless) Chromium, answered as a person
answers them: choices changed, numbers corrected, text typed key by key, then the button.
Each test reads back what the server received (the tool's own reply, printed by the cell),
never the widget's state. One Jupyter server and one browser for the module; one notebook
(so one kernel) per test.

Screenshots for the README: MCP_NOTEBOOK_SCREENSHOTS=docs.
Needs Debian's chromium, playwright, jupyterlab and notebook (.ci/run installs them): the
browser tier (tests/support/tiers.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.frontends import NotebookPage, jupyter_server
from support.kernels import browser_kernel_names
from support.peers import EVERYTHING, SERVERS
from support.processes import free_port, wait_for_port

pytestmark = pytest.mark.browser
DARK = bool(os.environ.get("MCP_NOTEBOOK_SCREENSHOTS"))  # the dark theme's shots too, when refreshing docs/
FAULTY = SERVERS / "faulty.py"

SECRET = "sk-test-0123456789abcdef"  # in the Jupyter server's environment, so in the kernel's
SETUP = ["%load_ext mcp_notebook", "%mcp add demo -- python -m mcp_notebook.demo"]
EVERYTHING_ADD = f"%mcp add everything -- node {EVERYTHING} stdio"
# What the server received, on one line the test reads back.
ELICITED = (
    "import json\nr = %mcp call everything.trigger-elicitation-request\n"
    "print('RECEIVED', json.dumps(json.loads(r.text.split('Raw result:')[1])))"
)
SAMPLED = (
    "import json\nr = %mcp call everything.trigger-sampling-request prompt=greet\n"
    "print('RECEIVED', json.dumps(json.loads(r.text.split('LLM sampling result:')[1])))"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("notebooks")
    for url in jupyter_server(folder, SECRET):
        yield url, folder


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots go: a temporary folder; MCP_NOTEBOOK_SCREENSHOTS=docs refreshes the README's."""
    if os.environ.get("MCP_NOTEBOOK_SCREENSHOTS"):
        folder = Path(os.environ["MCP_NOTEBOOK_SCREENSHOTS"])
        folder.mkdir(exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("shots")


def received(text: str) -> Any:
    """The JSON after RECEIVED in a cell's output: what the server got."""
    match = re.search(r"RECEIVED (.*)", text)
    assert match, f"the cell printed no RECEIVED line: {text!r}"
    return json.loads(match.group(1))


def wait_for_saved(path: Path, cell: int) -> Any:
    """The notebook as saved, once cell ``cell`` has its outputs on disk."""
    deadline = time.monotonic() + 60
    while True:
        try:
            saved = json.loads(path.read_text())
            if saved["cells"][cell]["outputs"]:
                return saved
        except (OSError, ValueError, KeyError, IndexError):
            pass  # not written yet, or half written
        assert time.monotonic() < deadline, f"{path.name} was not saved with its outputs within 60 s"
        time.sleep(0.1)


def answer_demo_observation(nb: NotebookPage, i: int) -> None:
    """The demo's observation form, filled by someone who changes their mind: a species
    chosen, then another; a body mass over the maximum, then corrected."""
    species = nb.cells.nth(i).locator(".widget-dropdown", has_text="Species").locator("select")
    species.wait_for(timeout=60_000)
    species.select_option(label="Gentoo")
    species.select_option(label="Chinstrap")
    nb.cells.nth(i).locator(".widget-dropdown", has_text="Island").locator("select").select_option(label="Dream")
    mass = nb.cells.nth(i).locator(".widget-text", has_text="Body mass").locator("input")
    nb.type_into(mass, "9000")
    mass.press("Tab")
    error = nb.cells.nth(i).locator(".widget-html", has_text="at most 7000")
    error.wait_for(timeout=60_000)  # shown as the person leaves the field, before any click
    nb.type_into(mass, "5200")
    mass.press("Tab")
    error.wait_for(state="detached", timeout=60_000)


def test_approval_and_a_form_changed_twice_in_jupyterlab(shots: Path, notebook: Any, server: tuple[str, Path]) -> None:
    nb = notebook(
        [
            "%load_ext mcp_notebook",
            # A secret the server gets from the environment: never in the saved notebook.
            "import os\n"
            '%mcp add demo --env API_TOKEN={os.environ["MCP_NOTEBOOK_TEST_SECRET"]} -- python -m mcp_notebook.demo',
            "r = %mcp call demo.delete_penguins species=Adelie\nr.text",
            "r = %mcp call demo.add_observation\nr.text",
            "%mcp status demo",
        ]
    )
    nb.run_all(0, 1)
    assert "✓ demo" in nb.output(1)
    nb.run(2)
    approve = nb.button(2, "Approve")
    nb.shoot(2, shots / "approval.png", dark=DARK)
    approve.click()
    nb.finished(2)
    assert "deleted 152 Adelie" in nb.output(2)

    nb.run(3)
    answer_demo_observation(nb, 3)
    nb.shoot(3, shots / "elicitation.png", dark=DARK)
    nb.button(3, "Accept").click()
    nb.finished(3)
    assert "recorded a female Chinstrap of 5200 g on Dream" in nb.output(3)
    nb.run_all(4)

    # Saved, each card is the record of what was asked and answered, as nbconvert shows it.
    path = server[1] / nb.name
    nb.save()
    saved = wait_for_saved(path, 4)
    assert SECRET not in json.dumps(saved)
    records = [o["data"] for cell in saved["cells"][2:4] for o in cell["outputs"] if "data" in o]
    plain = "\n".join(str(d.get("text/plain", "")) for d in records)
    assert "Approve a tool call? demo.delete_penguins" in plain and "→ approved by you" in plain
    assert '"species": "Chinstrap"' in plain and '"body_mass_g": 5200' in plain and "→ sent by you" in plain
    assert not any("application/vnd.jupyter.widget-view+json" in d for d in records)  # no widget left to fail
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter().from_filename(str(path))
    assert "approved by you" in html and "sent by you" in html and "VBox(" not in html
    assert SECRET not in html


def test_every_field_kind_and_a_typed_reply_in_jupyterlab(shots: Path, notebook: Any) -> None:
    """server-everything's form has a field of each kind; its sampling tool returns the reply."""
    nb = notebook([*SETUP[:1], EVERYTHING_ADD, ELICITED, SAMPLED])
    nb.run_all(0, 1)
    assert "✓ everything" in nb.output(1)
    nb.run(2)
    cell = nb.cells.nth(2)
    name = cell.get_by_label("String *", exact=True)
    name.wait_for(timeout=60_000)
    nb.type_into(name, "Ada")
    nb.type_into(name, "Ada Lovelace")  # typed again over the first
    email = cell.get_by_label("String with email format", exact=True)
    nb.type_into(email, "ada@")
    email.press("Tab")
    error = cell.locator(".widget-html", has_text="not a valid email")
    error.wait_for(timeout=60_000)
    nb.type_into(email, "ada@example.org")
    email.press("Tab")
    # Gone once the kernel has the new address; the fields below move up as it goes.
    error.wait_for(state="detached", timeout=60_000)
    cell.get_by_label("Boolean", exact=True).check()
    integer = cell.get_by_label("Integer", exact=True)
    nb.type_into(integer, "7")
    integer.press("Tab")
    number = cell.get_by_label("Number in range 1-1000", exact=True)
    nb.type_into(number, "2.5")
    number.press("Tab")
    single = cell.get_by_label("Untitled Single Select Enum", exact=True)
    single.select_option(label="Joey")
    single.select_option(label="Phoebe")
    multi = cell.get_by_label("Untitled Multiple Select Enum", exact=True)
    multi.select_option(label=["Piano", "Drums"])
    cell.get_by_label("Titled Single Select Enum", exact=True).select_option(label="Wonder Woman")
    cell.get_by_label("Legacy Titled Single Select Enum", exact=True).select_option(label="Fish")
    nb.button(2, "Accept").click()
    nb.finished(2)
    got = received(nb.output(2))
    assert got["action"] == "accept"
    content = got["content"]
    assert content["name"] == "Ada Lovelace"
    assert content["email"] == "ada@example.org"
    assert content["check"] is True
    assert content["integer"] == 7 and content["number"] == 2.5
    assert content["untitledSingleSelectEnum"] == "Phoebe"
    assert content["untitledMultipleSelectEnum"] == ["Piano", "Drums"]
    assert content["titledSingleSelectEnum"] == "hero-3"
    assert content["legacyTitledEnum"] == "pet-4"

    nb.run(3)
    reply = nb.cells.nth(3).locator("textarea")
    reply.wait_for(timeout=60_000)
    nb.type_into(reply, "Bonjour !")
    nb.shoot(3, shots / "sampling.png", dark=DARK)
    nb.button(3, "Approve").click()
    nb.finished(3)
    assert received(nb.output(3))["content"]["text"] == "Bonjour !"


# ipykernel 6.31 (clicks by polling) and 7.3 (clicks on a subshell) in JupyterLab; Notebook 7.
ELSEWHERE = [(k, "lab") for k in browser_kernel_names()] + [("python3", "notebooks")]


@pytest.mark.parametrize(("kernel", "app"), ELSEWHERE, ids=[f"{k}-{a}" for k, a in ELSEWHERE])
def test_a_form_and_a_reply_on_other_kernels_and_in_notebook_7(notebook: Any, kernel: str, app: str) -> None:
    nb = notebook([*SETUP, "r = %mcp call demo.add_observation\nr.text", EVERYTHING_ADD, SAMPLED], kernel, app)
    nb.run_all(0, 1)
    nb.run(2)
    answer_demo_observation(nb, 2)
    nb.button(2, "Accept").click()
    nb.finished(2)
    assert "recorded a female Chinstrap of 5200 g on Dream" in nb.output(2)
    nb.run_all(3)
    nb.run(4)
    reply = nb.cells.nth(4).locator("textarea")
    reply.wait_for(timeout=60_000)
    nb.type_into(reply, "Bonjour !")
    nb.button(4, "Approve").click()
    nb.finished(4)
    assert received(nb.output(4))["content"]["text"] == "Bonjour !"


@pytest.fixture(scope="module")
def protected_demo() -> Iterator[str]:
    """The demo server behind its own authorization server (which approves at once)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port), "--oauth"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    wait_for_port(port, proc, "the demo server with --oauth", 30)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.kill()
    proc.wait()


def test_login_card_in_jupyterlab(shots: Path, notebook: Any, protected_demo: str) -> None:
    """The login card's link opens the authorization page in a new tab; it approves and sends
    the browser back to the kernel's listener; the cell goes on."""
    nb = notebook(["%load_ext mcp_notebook", f"%mcp add secure {protected_demo}"])
    nb.run_all(0)
    nb.run(1)
    link = nb.cells.nth(1).locator("a", has_text="Log in")
    link.wait_for(timeout=60_000)
    nb.shoot(1, shots / "login.png", dark=DARK)
    with nb.page.expect_popup() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert "Login complete" in tab.content()
    nb.finished(1)
    assert "✓ secure" in nb.output(1) and "logged in" in nb.output(1)


def test_form_run_shows_its_result_and_asks_for_approval_in_jupyterlab(shots: Path, notebook: Any) -> None:
    """%mcp form: Run shows the result below the form; a tool that needs approval shows its
    card in the form, and the approved call's result replaces it."""
    nb = notebook([*SETUP, "%mcp form demo.query_penguins", "%mcp form demo.delete_penguins -o gone", "gone.text"])
    nb.run_all(0, 1, 2)
    cell = nb.cells.nth(2)
    cell.get_by_label("species", exact=True).select_option(label="Gentoo")
    limit = cell.get_by_label("limit", exact=True)
    nb.type_into(limit, "3")
    limit.press("Tab")
    nb.button(2, "Run").click()
    cell.locator(".widget-output", has_text="Gentoo").wait_for(timeout=60_000)
    assert "✓ done" in nb.output(2)

    nb.run_all(3)
    cell = nb.cells.nth(3)
    species = cell.locator("select").first
    species.select_option(label="Adelie")
    species.select_option(label="Chinstrap")  # a change of mind
    nb.button(3, "Run").click()
    approve = nb.button(3, "Approve")  # the card, in the form
    nb.shoot(3, shots / "form.png", dark=DARK)
    approve.click()
    cell.locator(".widget-html", has_text="✓ done").wait_for(timeout=60_000)
    assert "deleted 68 Chinstrap" in nb.output(3)
    nb.run_all(4)
    assert "deleted 68 Chinstrap" in nb.output(4)


def test_url_elicitation_and_map_cancel_in_jupyterlab(shots: Path, notebook: Any) -> None:
    """A page to open: the card shows the address, Accept says so to the server. A map's one
    bar: Cancel ends it with the rows done."""
    url = "https://example.org/finish-setup"
    waits = "waits = [{'answer': 'a'}, {'answer': 'b'}] + [{}] * 4"  # two answered, four wait until cancelled
    nb = notebook(
        [
            "%load_ext mcp_notebook",
            EVERYTHING_ADD,
            f"r = %mcp call everything.trigger-url-elicitation url={url}\nprint(r.text)",
            f"%mcp add faulty -- python {FAULTY} ok\n{waits}",
            "out = %mcp map faulty.wait $waits --concurrency 2\nprint('errors', out['error'].fillna('ok').tolist())",
        ]
    )
    nb.run_all(0, 1)
    nb.run(2)
    card = nb.cells.nth(2)
    card.locator("code", has_text=url).wait_for(timeout=60_000)  # the whole address, before any click
    assert card.locator("a", has_text="open it in a new tab").get_attribute("href") == url
    nb.shoot(2, shots / "url.png", dark=DARK)
    nb.button(2, "Accept").click()
    nb.finished(2)
    assert "User completed the URL elicitation flow" in nb.output(2) and "→ accepted" in nb.output(2)

    nb.run_all(3)
    nb.run(4)
    cell = nb.cells.nth(4)
    cell.locator(".widget-html", has_text="faulty.wait (map)").wait_for(timeout=60_000)
    cell.locator(".jp-Cell-outputArea", has_text="until cancelled").wait_for(timeout=60_000)  # rows wait
    assert cell.locator("button.jupyter-button", has_text="Cancel").count() == 1  # one bar: the map's
    nb.shoot(4, shots / "map.png", dark=DARK)
    nb.button(4, "Cancel").click()
    nb.finished(4)
    assert "errors ['ok', 'ok', 'cancelled', 'cancelled', 'cancelled', 'cancelled']" in nb.output(4)


def test_login_by_pasting_the_address_in_jupyterlab(notebook: Any, protected_demo: str) -> None:
    """Where the browser cannot reach the kernel's listener (a remote kernel), the person
    copies the address the login ended on into the card: typed, then Use this address."""
    import httpx

    nb = notebook(["%load_ext mcp_notebook", f"%mcp add secure {protected_demo}"])
    nb.run_all(0)
    nb.run(1)
    link = nb.cells.nth(1).locator("a", has_text="Log in")
    link.wait_for(timeout=60_000)
    # The authorization server approves at once and sends the browser to the redirect address:
    # taken here without following it, as if that page had not loaded.
    landed = httpx.get(str(link.get_attribute("href")), follow_redirects=False).headers["location"]
    box = nb.cells.nth(1).get_by_label("Landed on")
    box.fill(landed)  # pasted
    nb.button(1, "Use this address").click()
    nb.finished(1)
    assert "✓ secure" in nb.output(1) and "→ address pasted by you" in nb.output(1)

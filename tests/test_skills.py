"""Skills (the io.modelcontextprotocol/skills extension, SEP-2640) against a server on the
official SDK's Extension mechanism (tests/servers/sdk_skills.py), in both eras: listed
page by page without reading a file; a SKILL.md shown as Markdown that cannot run or link
anywhere but https; only listed files read, each checked against its entry."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import pandas as pd
import pytest
from IPython.core.error import UsageError
from support.peers import SERVERS
from support.shells import extension_loaded, line

from mcp_notebook import ArgumentError, Client, ProtocolError, Server

SKILLS = str(SERVERS / "sdk_skills.py")


def reads(server: Server) -> dict[str, int]:
    """The resources/read requests the server got, by URI."""
    return dict(server.call_tool("reads").structured or {})


@pytest.fixture(params=["auto", "legacy"])
def skilled(request: pytest.FixtureRequest, client: Client) -> Iterator[Server]:
    yield client.add("sk", sys.executable, [SKILLS], protocol=request.param)


def test_skills_are_listed_page_by_page_in_both_eras_and_nothing_is_read(skilled: Server) -> None:
    assert skilled.protocol_version == ("2026-07-28" if skilled.config.protocol == "auto" else "2025-11-25")
    listed = skilled.list_skills()
    assert [(s.name, s.uri) for s in listed] == [
        ("penguin-report", "skill://penguin-report/SKILL.md"),
        ("field-notes", "skill://acme/field-notes/SKILL.md"),
    ]  # two pages, one skill each
    report, notes = listed
    assert report.frontmatter["license"] == "CC0-1.0" and report.frontmatter["metadata"] == {
        "author": "mcp-notebook tests"
    }
    assert [report.relative(f) for f in report.files or ()] == ["SKILL.md", "reference.md", "scripts/plot.py"]
    assert notes.files is None and "dynamic" in repr(notes)
    assert skilled.skills == listed
    assert reads(skilled) == {}  # listing reads no file


def test_a_skill_shows_safely_and_only_its_listed_files_are_read(skilled: Server) -> None:
    document = skilled.get_skill("penguin-report")
    shown = document._repr_html_()
    assert "&lt;script&gt;" in shown and "<script>" not in shown and "&lt;b&gt;reference.md" in shown
    assert '<a href="https://allisonhorst.github.io/palmerpenguins/">palmerpenguins</a>' in shown  # https: a link
    assert "[old mirror](http://insecure.example/penguins)" in shown and 'href="http:' not in shown  # text
    assert "<code>scripts/plot.py</code></td><td>32</td>" in shown and document.body.startswith("# Penguin report")
    assert skilled.read_skill_file("penguin-report", "scripts/plot.py").text.startswith("import matplotlib")
    with pytest.raises(ArgumentError, match=r"lists no file 'unlisted.md' \(it lists: SKILL.md, reference.md"):
        skilled.read_skill_file("penguin-report", "unlisted.md")
    with pytest.raises(ArgumentError, match="lists no files \\(it is dynamic\\)"):
        skilled.get_skill("field-notes")
    hidden = skilled.get_skill("skill://hidden-skill/SKILL.md")  # not listed: skills/get
    assert hidden.skill.name == "hidden-skill" and hidden.body.startswith("Hidden.")
    with pytest.raises(ArgumentError, match="has no skill named 'nope' \\(it lists: field-notes, penguin-report\\)"):
        skilled.get_skill("nope")
    with pytest.raises(ArgumentError, match=r"has no skill at skill://nope/SKILL\.md"):
        skilled.get_skill("skill://nope/SKILL.md")
    assert reads(skilled) == {
        "skill://penguin-report/SKILL.md": 1,
        "skill://penguin-report/scripts/plot.py": 1,
        "skill://hidden-skill/SKILL.md": 1,
    }  # never the unlisted file, nor the dynamic skill's


@pytest.mark.parametrize(
    ("flag", "call", "says"),
    [
        ("--tamper", lambda s: s.read_skill_file("penguin-report", "reference.md"),
         r"reference.md is not what skill 'penguin-report' lists \(.* bytes, sha256:.*\): discarded"),
        ("--drift", lambda s: s.get_skill("penguin-report"),
         r"SKILL.md's frontmatter differs from its entry's \(description\): discarded"),
    ],
    ids=["digest", "frontmatter"],
)  # fmt: skip
def test_content_that_is_not_what_its_entry_lists_is_discarded(client: Client, flag: str, call, says: str) -> None:  # type: ignore[no-untyped-def]
    server = client.add("sk", sys.executable, [SKILLS, flag])
    with pytest.raises(ProtocolError, match=says):
        call(server)


def test_the_magics_and_a_server_without_skills(client: Client) -> None:
    with extension_loaded() as ip:
        from mcp_notebook.runtime.client import get_client

        own = get_client()
        own.add("sk", sys.executable, [SKILLS])
        own.add("plain", sys.executable, [str(SERVERS / "sdk_modern.py")])
        try:
            frame = line(ip, "skills")  # every server that declares the extension: not plain
            assert isinstance(frame, pd.DataFrame) and list(frame["name"]) == ["penguin-report", "field-notes"]
            assert list(frame["files"].astype(object).where(frame["files"].notna(), None)) == [3, None]
            assert "<script>" not in line(ip, "skill sk penguin-report")._repr_html_()
            assert line(ip, "skill sk penguin-report reference.md").text.startswith("# Reference")
            with pytest.raises(UsageError, match="server 'plain' offers no skills"):
                line(ip, "skills plain")
            with pytest.raises(UsageError, match=r"lists no file 'secret\.md'"):
                line(ip, "skill sk penguin-report secret.md")
        finally:
            own.remove("sk")
            own.remove("plain")


@pytest.mark.parametrize(
    "text",
    [
        "[x][1]\n\n[1]: javascript:alert(1)",
        "[click\nme](javascript:alert(1))",
        "[![i](https://ok.example/i.png)](javascript:alert(1))",
        "[x](javascript:alert`1`)",
        "\\`<img src=x onerror=alert(1)>\\`",
        "```\ncode\n  ```\n<img src=x onerror=alert(1)>",
        "<script>alert(1)</script> <a href='javascript:x'>a</a> [d](data:text/html,x) ![p](http://e.example/p.png)",
    ],
)
def test_a_servers_markdown_renders_without_markup_or_links_but_https(text: str) -> None:
    from mcp_notebook.core.safety.markdown import markdown_html

    shown = markdown_html(text)
    assert "<script" not in shown and "<img src=x" not in shown and "<a href='javascript" not in shown
    assert 'href="javascript' not in shown and 'href="data' not in shown and 'src="http:' not in shown


@pytest.fixture
def hostile(client: Client) -> Server:
    return client.add("sk", sys.executable, [SKILLS, "--hostile"])


def test_yaml_aliases_in_a_frontmatter_are_refused_before_they_expand(hostile: Server) -> None:
    # 380 bytes whose aliases expand tenfold a level, seven levels: refused, not expanded.
    with pytest.raises(ProtocolError) as refused:
        hostile.get_skill("alias-bomb")
    said = str(refused.value)
    assert "\n" not in said and "sk: skill://alias-bomb/SKILL.md" in said
    assert "YAML alias" in said and "refused" in said
    assert hostile.get_skill("penguin-report").body.startswith("# Penguin report")  # the connection is fine
    assert reads(hostile)["skill://alias-bomb/SKILL.md"] == 1


def test_a_60000_digit_integer_in_a_frontmatter_is_refused_in_one_line(hostile: Server) -> None:
    # Python refuses to turn over 4,300 digits into an int (a ValueError from the YAML loader).
    with pytest.raises(ProtocolError) as refused:
        hostile.get_skill("huge-number")
    said = str(refused.value)
    assert "\n" not in said, said
    assert "sk: skill://huge-number/SKILL.md's frontmatter holds a value it cannot read" in said, said
    assert len(said) < 400
    assert hostile.get_skill("penguin-report").body.startswith("# Penguin report")  # the connection is fine


def test_a_huge_skill_shows_a_capped_view_with_a_note_and_keeps_its_whole_text(hostile: Server) -> None:
    document = hostile.get_skill("big-skill")
    assert len(document.text) > 5_000_000 and document.text.endswith(
        "Line 59999: *penguins* and <b>more</b> penguins, [link](https://example.org/59999).\n"
    )
    shown = document._repr_html_()
    assert len(shown) < 500_000 and "<em>penguins</em>" in shown and "Line 59999" not in shown
    assert "&lt;b&gt;more" in shown and "<b>more" not in shown
    note = r"Cut: only its first 99,\d{3} of 5,0\d\d,\d{3} characters are shown"  # cut at a line's end
    assert re.search(note, shown) and "get_skill(&#x27;big-skill&#x27;).text" in shown
    with extension_loaded() as ip:
        from mcp_notebook.runtime.client import get_client

        own = get_client()
        own.add("sk", sys.executable, [SKILLS, "--hostile"])
        try:
            assert re.search(note, line(ip, "skill sk big-skill")._repr_html_())
        finally:
            own.remove("sk")


@pytest.mark.parametrize(
    ("frontmatter", "says"),
    [
        ("name: x\nd: " + "[" * 5000 + "]" * 5000, "is nested too deep: refused"),
        ("name: x\nd: " + "y" * 70_000, "is 70,012 characters, over 65,536: refused, not parsed"),
        ("name: &n x\ndescription: *n", r"uses a YAML alias \(\*n\): refused, not expanded"),
    ],
    ids=["deep", "long", "alias"],
)
def test_a_frontmatter_that_is_more_than_one_can_need_is_refused_in_one_line(frontmatter: str, says: str) -> None:
    from mcp_notebook.core.protocol.skills import frontmatter_of

    with pytest.raises(ProtocolError, match=f"^s: skill://x/SKILL.md's frontmatter {says}") as refused:
        frontmatter_of(f"---\n{frontmatter}\n---\nbody\n", "s: skill://x/SKILL.md")
    assert "\n" not in str(refused.value)
    assert frontmatter_of("---\nname: &n x\n---\n") == {"name": "x"}  # an anchor alone expands nothing

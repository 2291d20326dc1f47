"""The tiers: markers for the tests that are slow or need more than the test venv (the
markers are registered in pyproject.toml, with --strict-markers). CI runs every tier; a
developer leaves one out with ``-m "not NAME"``. A test whose tier needs a tool that is
missing fails with one line saying what to install or which ``-m`` leaves it out: never a
silent skip.

- kernel: drives real Jupyter kernels (tests/support/kernels.py, nbclient).
- browser: JupyterLab, Notebook 7 or Voilà in Debian's Chromium (playwright drives it).
- voila: Voilà serving a dashboard (also browser).
- conformance: the official MCP conformance suite (Node >= 22).
- cluster: a Dask LocalCluster.
- build: builds the package or Binder's environment in a fresh venv (minutes).
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest

from . import frontends, peers


def _browser() -> str | None:
    if not Path(frontends.CHROMIUM).exists():
        return f"no {frontends.CHROMIUM}: apt-get install chromium"
    if importlib.util.find_spec("playwright") is None:
        return "no playwright: pip install -e '.[test]'"
    return None


def _voila() -> str | None:
    if frontends.voila_command() is None:
        return "no voila: pip install -e '.[test]', or MCP_NOTEBOOK_VOILA=/path/to/voila"
    return None


def _conformance() -> str | None:
    if not peers.CONFORMANCE.exists():
        return f"no {peers.CONFORMANCE.relative_to(peers.ROOT)}: npm ci (scripts/setup runs it)"
    if peers.node22() is None:
        return "the conformance suite needs Node >= 22: npm ci installs it on Linux x64, elsewhere install Node 22"
    return None


def _cluster() -> str | None:
    if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
        return "no dask and distributed: pip install -e '.[test]'"
    return None


NEEDS: dict[str, Callable[[], str | None]] = {
    "browser": _browser,
    "voila": _voila,
    "conformance": _conformance,
    "cluster": _cluster,
}


@functools.cache
def missing(tier: str) -> str | None:
    """What tier ``tier`` lacks on this machine (looked at once), or None."""
    need = NEEDS.get(tier)
    return need() if need else None


def check(item: pytest.Item) -> None:
    """Fail a test at setup if one of its tiers lacks its tool, saying what to do."""
    for mark in item.iter_markers():
        lack = missing(mark.name)
        if lack:
            pytest.fail(f"{lack}; or leave these tests out: -m 'not {mark.name}'", pytrace=False)

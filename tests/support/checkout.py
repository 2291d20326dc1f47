"""A copy of the checkout as a fresh clone would have it: the tracked files (and new ones
not yet committed, minus what .gitignore excludes), nothing built or installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .peers import ROOT


def copy_checkout(dest: Path) -> None:
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, files.decode().split("\0")):
        source = ROOT / name
        if not source.is_file():  # deleted in the work tree, not yet in git; or a symlink to a folder
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)

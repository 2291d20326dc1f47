"""The demo's data: the Palmer penguins, loaded once per server process (the tools change
this copy: a deletion or an observation lasts until the server restarts)."""

from __future__ import annotations

import csv
from importlib import resources
from typing import Any, Literal

Species = Literal["Adelie", "Chinstrap", "Gentoo"]
Island = Literal["Biscoe", "Dream", "Torgersen"]
Measure = Literal["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
NUMERIC = ("bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g", "year")


def _load() -> list[dict[str, Any]]:
    text = resources.files("mcp_notebook.demo").joinpath("data/penguins.csv").read_text(encoding="utf-8")
    rows = []
    for raw in csv.DictReader(text.splitlines()):
        row: dict[str, Any] = {}
        for key, value in raw.items():
            if value == "NA":
                row[key] = None
            elif key in NUMERIC:
                row[key] = float(value) if "." in value else int(value)
            else:
                row[key] = value
        rows.append(row)
    return rows


ROWS = _load()

"""The relay in a card: each edit of the card's fields reaches the kernel as it is made.

A widget's value reaches the kernel as a state update, and ipywidgets' front end sends a
model's next update only once the kernel reported idle for the one before. A kernel busy in
the cell that waits for the card may never report it (ipykernel 7.4 handles a comm message
beside an awaiting cell with no busy/idle status), so a person's first change arrived and
every later one stayed in the browser: Accept sent what the person saw first, not last.

A ``Relay`` (an anywidget, shown hidden in the card) listens to its fields' models in the
browser and sends each change as a custom message, which ipywidgets never holds back; the
kernel applies it to the field as a front end's update would, without echoing it back (a
late echo would overwrite what the person typed since). Messages of one frontend arrive in
order, so an edit is applied before the click that follows it. Once the relay is wired to a
field it also sends the field's value as it is then: an edit made before the relay was
ready (a busy page) arrives too.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets.widgets.widget as widget_module
import traitlets

__all__ = ["Relay"]

log = logging.getLogger(__name__)

REF = "anywidget:"  # anywidget's reference to another widget's model, as its front end reads it
KEYS = ("value", "index")  # what a field's model syncs for the person's choice (index: a dropdown's)


class Relay(anywidget.AnyWidget):
    """Relays ``fields``' edits from the browser to the kernel, each as it is made."""

    _esm = Path(__file__).with_name("static") / "relay.js"
    fields = traitlets.List(traitlets.Unicode()).tag(sync=True)

    def __init__(self, fields: list[Any]) -> None:
        super().__init__(fields=[f"{REF}{f.model_id}" for f in fields])
        self._by_id = {f.model_id: f for f in fields}
        self.on_msg(self._edited)

    def _edited(self, _: Any, content: Any, buffers: Any) -> None:
        if not isinstance(content, dict) or content.get("event") != "edit":
            return
        ref, state = content.get("field"), content.get("state")
        field = self._by_id.get(ref[len(REF) :]) if isinstance(ref, str) and ref.startswith(REF) else None
        if field is None or not isinstance(state, dict) or getattr(field, "disabled", False):
            return
        state = {k: v for k, v in state.items() if k in KEYS and k in field.keys}
        if not state:
            return
        # As a front end's update (deserialized, and not sent back as an update), but with no
        # echo: set_state echoes what it applies, and the browser takes an echo of a message
        # it does not know as another front end's change. Arriving late (a busy kernel), the
        # echo of "Bonjour" would overwrite "Bonjour !" typed since. The switch is ipywidgets'
        # own (JUPYTER_WIDGETS_ECHO), read inside set_state; this runs on the kernel's one
        # thread for widgets, with nothing awaited in between.
        echo = widget_module.JUPYTER_WIDGETS_ECHO
        widget_module.JUPYTER_WIDGETS_ECHO = False
        try:
            field.set_state(state)
        except Exception as e:  # a value the field cannot hold: as ipywidgets would, keep the old one
            log.debug("relay: %s refused %r: %s", type(field).__name__, state, e)
        finally:
            widget_module.JUPYTER_WIDGETS_ECHO = echo

    def __repr__(self) -> str:
        return f"<Relay of {len(self.fields)} field(s)>"

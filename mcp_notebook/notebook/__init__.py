"""The notebook layer: magics, tables, rich display and completion for IPython/Jupyter."""

from __future__ import annotations

from typing import Any

from IPython import get_ipython

from ..core.protocol import apps
from ..core.session.session import current_server
from ..runtime.asking.interaction import ConsoleInteraction
from . import completion, modes, transform
from .magics import MCPMagics
from .questions import Elicitation, Sampling, UrlElicitation

__all__ = ["MCPMagics", "load_ipython_extension", "unload_ipython_extension"]

_COMPLETION_KEYS = ("%mcp", "%%mcp_call")


def _awaiting_cells() -> bool:
    """ipykernel 7 delivers widget clicks to awaiting cells (see modes.py)."""

    shell = get_ipython()
    version = modes.ipykernel_version()
    return getattr(shell, "kernel", None) is not None and version is not None and version[0] >= 7


def load_ipython_extension(shell: Any) -> None:
    magics = MCPMagics(shell)
    shell.register_magics(magics)
    complete = completion.make_completer(lambda: magics.client)
    for key in _COMPLETION_KEYS:
        shell.set_hook("complete_command", complete, str_key=key)
    transformer = transform.make_transformer(make_async=_awaiting_cells())
    transformer.mcp_notebook = True  # type: ignore[attr-defined]
    shell.input_transformers_cleanup.append(transformer)
    shell.user_ns[transform.LINE_RUNNER] = magics.run_line_async
    shell.user_ns[transform.CELL_RUNNER] = magics.run_cell_async
    shell.user_ns_hidden.update({transform.LINE_RUNNER: None, transform.CELL_RUNNER: None})
    _install_handlers(magics)
    if getattr(shell, "kernel", None) is not None:
        modes.listen()  # a widget manager that connects from now on is heard
        version = modes.ipykernel_version()
        if version is not None and (7, 0) <= version < (7, 4):
            print(modes.OLD_KERNEL_NOTE.format(version=".".join(map(str, version))))


_APPS = {apps.EXTENSION: {"mimeTypes": [apps.MIME_TYPE]}}


def _install_handlers(magics: MCPMagics) -> None:
    """Elicitation and sampling go to the waiting cell. Servers connected from now on
    declare these capabilities. No roots are offered until the person names some (a server
    offered roots may take them in place of the folders its own arguments name)."""
    client = magics.client
    interaction = magics.interaction

    async def elicit(params: dict[str, Any]) -> Any:
        kind = UrlElicitation if params.get("mode") == "url" else Elicitation
        return await interaction.ask_from_server(kind(current_server.get(), params))

    async def sample(params: dict[str, Any]) -> Any:
        return await interaction.ask_from_server(Sampling(current_server.get(), params))

    elicit.capability = {"form": {}, "url": {}}  # type: ignore[attr-defined]
    client.handlers.elicitation = elicit
    client.handlers.sampling = sample
    # MCP Apps: declared to a server when its connection opens where views can show.
    client.handlers.extensions = lambda: _APPS if interaction.shows_apps(awaiting=True) else None
    client.tagged_listeners.append(interaction.notification)


def unload_ipython_extension(shell: Any) -> None:
    manager = shell.magics_manager
    manager.magics["line"].pop("mcp", None)
    manager.magics["cell"].pop("mcp_call", None)
    shell.input_transformers_cleanup[:] = [
        t for t in shell.input_transformers_cleanup if not getattr(t, "mcp_notebook", False)
    ]
    for name in (transform.LINE_RUNNER, transform.CELL_RUNNER):
        shell.user_ns.pop(name, None)
        shell.user_ns_hidden.pop(name, None)
    for magics in [c for c in shell.configurables if isinstance(c, MCPMagics)]:
        client = magics.client
        client.interaction = ConsoleInteraction()
        client.handlers.elicitation = client.handlers.sampling = client.handlers.extensions = None
        client.tagged_listeners.clear()
    shell.configurables[:] = [c for c in shell.configurables if not isinstance(c, MCPMagics)]
    dispatch = shell.strdispatchers.get("complete_command")
    if dispatch is not None:
        for key in _COMPLETION_KEYS:
            dispatch.strs.pop(key, None)

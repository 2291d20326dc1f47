"""``Server``: the client's handle to one named MCP server.

(A handle, not a server: the module is named for that. The package's own MCP server is
``mcp_notebook.demo.server``.) A ``Server`` shows what its ``Connection`` knows and
carries every operation a person uses on it. Each operation is written once, as
``async def _x(self, steps, ...)`` that prepares, sends and finishes; ``x`` is its
blocking method and ``ax`` its awaitable one, differing only in their steps (steps.py).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from ..core.arguments.validation import arguments_check, check_prompt_arguments, check_structured_output
from ..core.backoff import Backoff
from ..core.config.servers import ServerConfig
from ..core.protocol import apps
from ..core.protocol.constants import HEADER_MISMATCH
from ..core.protocol.tasks import augment, created_task, offers_tasks
from ..core.safety.text import printable
from ..core.session.session import ProgressCallback
from ..core.types import CallResult, Prompt, PromptResult, ReadResult, Resource, ResourceTemplate, Status, Tool
from ..errors import ArgumentError, MCPError, ProtocolError, RequestCancelled, RPCError
from .asking.interaction import VIEW_CALL, AppCall
from .asking.progress import MapProgress
from .bulk.rows import RowSource, every_row, parameters
from .bulk.run import GRACE_S, MapRun, OnError, check_explode, check_options, displayed, map_frame, result_fields
from .calls import Finish, ToolPlan, asks_old_way, call_progress, legacy_asker, url_required, watched, watching
from .connection import Connection
from .context import DEFAULT, Runtime
from .entries import Entries
from .functions.functions import Tools
from .functions.schemas import tool_schema
from .listening import Listener
from .params import complete_params, log_level_params, prompt_params, resource_uri, tool_arguments
from .sessionlink import SessionLink
from .skills import SkillOps
from .steps import GrantedSteps, Steps, awaitable, blocking
from .tasks import TaskDeadline, follow_call

JSON = dict[str, Any]
R = TypeVar("R")


class Server(SkillOps):
    """The client's handle to a named MCP server. Get one from ``Client.add`` / ``Client.load`` / ``client[name]``.

    Every operation has an awaitable twin with an ``a`` prefix (``await server.acall_tool(...)``)."""

    def __init__(self, runtime: Runtime, config: ServerConfig, *, startup_timeout: float | None = None) -> None:
        self.runtime = runtime  # shared with the Client and its other servers
        self.connection = Connection(runtime, config, startup_timeout=startup_timeout)
        self._entries = Entries(self.connection)  # its tools and prompts by name
        self.tools = Tools(self)
        """The tools as Python functions: ``server.tools.NAME(...)``; ``await server.tools.NAME.acall(...)``."""
        # Each tool's arguments as last sent (a form starts from them: %mcp form).
        self.last_arguments: dict[str, JSON] = {}

    def __repr__(self) -> str:
        info = self.server_info
        detail = f" {info.get('name')} {info.get('version')}" if info else ""
        why = f" ({self.error})" if self.error and self.status is Status.FAILED else ""
        return printable(f"<Server {self.name!r} {self.transport_name} {self.status.value}{detail}{why}>")

    # -- lifecycle ---------------------------------------------------------------------

    async def _connect(self, steps: Steps) -> Server:
        """Connect (closing an open connection first)."""
        await steps.run(self.connection.connect(), self.name)
        return self

    async def _close(self, steps: Steps) -> None:
        """Close the connection (the server stays registered; ``restart`` reconnects)."""
        await steps.run(self.connection.close(), self.name)

    async def _restart(self, steps: Steps, protocol: str | None = None) -> Server:
        """Close the connection and connect again; ``protocol``: in that era from now on."""
        await steps.run(self.connection.restart(protocol), self.name)
        return self

    async def _login(self, steps: Steps, scopes: str | None = None) -> Server:
        """Log in now (OAuth), then connect if not connected: the login card (or terminal
        prompt) shows here. ``scopes``: ask for these."""
        await steps.run(self.connection.login(scopes), self.name)
        return self

    connect, aconnect = blocking(_connect), awaitable(_connect)
    close, aclose = blocking(_close), awaitable(_close)
    restart, arestart = blocking(_restart), awaitable(_restart)
    login, alogin = blocking(_login), awaitable(_login)

    def logout(self) -> None:
        """Forget this server's tokens and client registration (here and in the store)."""
        self.connection.logout()

    def on_notification(self, callback: Listener) -> Callable[[], None]:
        """Call ``callback(method, params)`` for every notification from this server.

        It runs on the background loop: keep it quick and use only the async API there.
        Returns a function that removes it.
        """
        listeners = self.connection.listeners
        listeners.append(callback)
        return lambda: listeners.remove(callback) if callback in listeners else None

    # -- listings ----------------------------------------------------------------------

    async def _list_tools(self, steps: Steps, *, refresh: bool = False, all: bool = False) -> list[Tool]:
        """The tools, but those the server's tool lists leave out (``all=True``: those too,
        each with ``excluded`` saying why)."""
        raws = await steps.run(self.connection.listing("tools", refresh), self.name)
        names, config = self.runtime.tool_names, self.connection.config
        tools = [
            Tool.from_raw(self.name, names.add(self.name, r.get("name", "")), r, config.tool_excluded(r)) for r in raws
        ]
        return tools if all else [tool for tool in tools if tool.excluded is None]

    async def _list_resources(self, steps: Steps, *, refresh: bool = False) -> list[Resource]:
        raws = await steps.run(self.connection.listing("resources", refresh), self.name)
        return [Resource.from_raw(self.name, raw) for raw in raws]

    async def _list_resource_templates(self, steps: Steps, *, refresh: bool = False) -> list[ResourceTemplate]:
        raws = await steps.run(self.connection.listing("resourceTemplates", refresh), self.name)
        return [ResourceTemplate.from_raw(self.name, raw) for raw in raws]

    async def _list_prompts(self, steps: Steps, *, refresh: bool = False) -> list[Prompt]:
        raws = await steps.run(self.connection.listing("prompts", refresh), self.name)
        return [Prompt.from_raw(self.name, raw) for raw in raws]

    list_tools, alist_tools = blocking(_list_tools), awaitable(_list_tools)
    list_resources, alist_resources = blocking(_list_resources), awaitable(_list_resources)
    list_resource_templates = blocking(_list_resource_templates)
    alist_resource_templates = awaitable(_list_resource_templates)
    list_prompts, alist_prompts = blocking(_list_prompts), awaitable(_list_prompts)

    def dropped_tools_notice(self) -> str | None:
        """Once per tools listing that left tools out (their x-mcp-header annotations are
        invalid, the spec's rule for HTTP): one line saying how many and why."""
        session = self.connection.session
        return session.listings.dropped_notice() if session else None

    def tool_schemas(self, format: str = "openai") -> list[JSON]:
        """The tools as function-calling schemas for a model SDK: ``"openai"`` (``{"type":
        "function", "function": {...}}``) or ``"anthropic"`` (``{"name", "description",
        "input_schema"}``), named ``mcp__<server>__<tool>`` (``split_qualified_name`` reads
        a model's choice back). Not the tools only the server's app calls (MCP Apps)."""
        return [tool_schema(tool, format) for tool in self.list_tools() if not tool.app_only]

    def get_tool(self, name: str) -> Tool:
        """One tool, from the cached listing when there is one; UnknownTool if none."""
        entries = self._entries
        raw = entries.cached_tool(name) or self.runtime.run(entries.find_tool(name, required=True), self.name)
        assert raw is not None
        return Tool.from_raw(self.name, self.runtime.tool_names.add(self.name, name), raw)

    # -- calls -------------------------------------------------------------------------

    async def _call_tool(
        self,
        steps: Steps,
        name: str,
        arguments: JSON | None = None,
        *,
        timeout: float | None = DEFAULT,
        validate: bool | None = None,
        on_progress: ProgressCallback | None = None,
        task: bool | None = None,
    ) -> CallResult:
        """Call a tool. Arguments are checked against its inputSchema first unless
        ``validate=False``; the approval policy may ask a person first (ToolDenied if they
        say no: nothing is sent); ``timeout`` restarts whenever the server reports progress;
        ``on_progress(progress, total, message)`` runs on the background loop.

        A call the server runs as a task is followed to its end (its status shows as the
        call's progress; Cancel or an interrupt cancels the task): a tool whose
        ``execution.taskSupport`` is ``required`` is called as a task, an ``optional`` one
        when ``task=True``; a 2026-07-28 server decides for itself."""
        arguments = dict(tool_arguments(name, arguments))  # as sent (the history keeps it): not the caller's dict
        plan = await self._plan(steps, name, validate, task, on_progress)
        call, hooks = (
            self._call_planned(steps, plan, arguments, timeout, True, CallResult.from_raw),
            self.runtime.call_hooks,
        )
        result = await (watched(hooks, self.name, name, arguments, call) if hooks else call)
        link = None if plan.listing is None else apps.link_of(plan.listing)
        if link is not None and plan.listing is not None and not VIEW_CALL.get():
            await self._with_view(steps, plan.listing, link.uri, arguments, result)
        return result

    async def _with_view(self, steps: Steps, tool: JSON, uri: str, arguments: JSON, result: CallResult) -> None:
        """A tool with a view (MCP Apps): where views show, its document is read and shown
        with the result (``result.app``); elsewhere a line says it has one."""
        interaction = self.runtime.interaction
        name = str(tool.get("name"))
        if not interaction.shows_apps(steps.awaiting):
            where = "views show where widgets do (JupyterLab, Notebook 7, Voilà)"
            interaction.app_not_shown(self.name, name, uri, where)
            return
        try:
            read = await self._read_resource(steps, uri)  # the server's caching hints, as for any read
            listed = next((r for r in self.connection.cached("resources") or [] if r.get("uri") == uri), None)
            document = apps.document_of(read.raw, listed)
        except (MCPError, ValueError) as e:
            interaction.app_not_shown(self.name, name, uri, f"its document could not be shown: {printable(str(e))}")
            return
        policy = apps.content_security_policy(document.ui)
        view = AppCall(self, tool, arguments, result, document, policy)
        result.__dict__["app"] = interaction.show_app(view)

    async def _plan(
        self,
        steps: Steps,
        name: str,
        validate: bool | None,
        task: bool | None,
        on_progress: ProgressCallback | None,
        bar: bool = True,
    ) -> ToolPlan:
        """A call's per-tool step: what every call of ``name`` shares (see calls.py).
        ``bar``: a call's progress shows as its bar (a map's rows do not: the map has one)."""
        runtime = self.runtime
        self.connection.config.check_tool(name)
        check = runtime.settings.validate if validate is None else validate
        tool = self._entries.cached_tool(name)
        if tool is None and (
            check or runtime.approval.mode != "never" or (not self.modern and offers_tasks(self.capabilities))
        ):
            tool = await steps.run(self._entries.find_tool(name, required=check), self.name)
        modern = self.modern  # read after the listing, which may have opened a new session (of another era)
        legacy_tasks = not modern and offers_tasks(self.capabilities)
        as_task = legacy_tasks and augment(tool, self.capabilities, task)
        progress = call_progress(runtime.interaction, self.name, name, on_progress) if bar else on_progress
        checks = arguments_check(tool) if check and tool is not None else None
        return ToolPlan(name, tool, checks, as_task, progress, self.connection, modern, self.name)

    async def _call_planned(
        self, steps: Steps, plan: ToolPlan, arguments: JSON, timeout: Any, ask: bool, finish: Finish[R]
    ) -> R:
        """A call's per-call step: validate, ask (unless asked already: a map), send, follow
        a task to its end, check the structured output; then ``finish(server, tool, result,
        output_error)``: a ``CallResult``, or (a map's row) its frame row."""
        name, tool = plan.name, plan.listing
        if plan.check is not None:
            plan.check(arguments)
        if ask:
            request = self.runtime.approval_request(self.name, name, tool, arguments, self.connection.config)
            if request is not None:
                self.runtime.take_answer(request, await steps.approve(request))
        params: JSON = {"name": name, "arguments": arguments}  # a map's rows are fresh dicts, a call's a copy
        self.last_arguments[name] = arguments
        if plan.as_task:
            params["task"] = {}
        modern = plan.modern
        started = time.monotonic()
        try:
            try:
                raw = await steps.send(plan.link, "tools/call", params, timeout, plan.progress)
            except RPCError as e:
                if e.code != HEADER_MISMATCH:
                    raise
                # Refused for headers the server no longer expects (-32020: its tool changed):
                # list the tools again and try once more (nothing ran: it was refused).
                await steps.run(self.connection.listing("tools", True), self.name)
                raw = await steps.send(plan.link, "tools/call", params, timeout, plan.progress)
            created = created_task(raw, modern) if modern or plan.as_task else None
            if created is not None:  # the server runs it as a task: followed to its end
                own = self.connection.config.request_timeout
                deadline = TaskDeadline.for_call(self.runtime, timeout, own, started, steps.awaiting)
                follow = follow_call(self.runtime, self.connection, self.name, name, created, modern, deadline)
                raw = await steps.run(follow, self.name)
        except RPCError as e:
            e = url_required(self.runtime.interaction, self.name, e, steps.awaiting)
            raise legacy_asker(self.name, e) if modern else e from None
        if modern and raw.get("isError") is True:
            asks_old_way(self.runtime.interaction, self.name, raw)
        structured = raw.get("structuredContent")  # mostly none: no call to check it
        output_error = check_structured_output(tool, structured) if tool and structured is not None else None
        return finish(plan.server, name, raw, output_error)

    call_tool, acall_tool = blocking(_call_tool), awaitable(_call_tool)

    async def _map(
        self,
        steps: Steps,
        tool: str,
        rows: Any,
        /,
        *,
        concurrency: int = 8,
        timeout: float | None = None,
        retries: int = 0,
        on_error: OnError = "record",
        columns: Mapping[str, str] | None = None,
        retry_unsafe: bool = False,
        on_progress: Callable[[MapProgress], None] | None = None,
        explode: str | None = None,
        constants: Mapping[str, Any] | None = None,
        backoff: Backoff | None = None,
        **arguments: Any,
    ) -> Any:
        """Call ``tool`` for every row of ``rows`` (a DataFrame, a list of dicts, any
        iterable of dicts), ``concurrency`` at a time; a pandas DataFrame aligned to the
        input's index comes back: a structured result's fields as columns (a field named
        is_error/error/elapsed_s as ``result_<name>``), else ``text``; then ``is_error``,
        ``error`` and ``elapsed_s``. ``explode="field"``: a row per item of that list field
        (a record's keys as columns), the input's index repeated.

        A DataFrame's columns are matched to the tool's parameters by name (others are
        ignored; ``columns={"column": "parameter"}`` renames). Every row also gets the other
        keywords and ``constants={"name": value}`` (any name, e.g. a parameter ``timeout``);
        missing values are left out. Rows are read as slots free up (an iterator on the
        background thread: materialise one bound to yours, a sqlite cursor, with
        ``list(rows)``); a row that is not a dict is that row's error. Approval, when the
        policy asks, is asked once for the map. ``timeout``: each call's. ``retries``: a call
        refused as busy (HTTP 429/503) or never sent (connection refused) goes again after
        ``backoff`` (core.backoff.Backoff); one that may have run, only for a tool annotated
        ``idempotentHint``, or ``retry_unsafe``. ``on_error="raise"``: the first failed row
        ends the map. ``on_progress(progress)`` runs on the loop at the start, after each row
        and at the end; ``progress.cancel()`` or Ctrl-C cancels what is in flight and returns
        the frame so far, the rest marked ``cancelled`` (``not sent`` after a server exits)."""
        check_options(concurrency, retries, on_error, explode)
        runtime = self.runtime
        listing = await steps.run(self._entries.find_tool(tool, required=True), self.name)
        if listing is not None and not apps.for_model(listing):
            raise ValueError(f"{self.name}.{tool} is called only by its server's app (MCP Apps visibility): not mapped")
        check_explode(tool, listing, explode)
        source = RowSource(tool, rows, parameters(listing), columns, every_row(tool, constants, arguments))
        head = source.head(3)
        if head:  # asked once, for every row (shown: the first rows that can be sent)
            examples = tuple(a for a in head if isinstance(a, dict))
            request = runtime.approval_request(self.name, tool, listing, (examples or ({},))[0], self.connection.config)
            if request is not None:
                request = dataclasses.replace(request, rows=source.total, examples=examples)
                runtime.take_answer(request, await steps.approve(request))
        # The rows' requests go through a link resolved once (over stdio, the session itself).
        via = self.connection.steady()
        granted = GrantedSteps(via=via)
        plan = await self._plan(steps, tool, None, None, None, bar=False)
        per_call = DEFAULT if timeout is None else timeout
        # Over stdio the session is the map's for good: the tool's entry is looked up again only
        # when its listings moved (a remote connection's sessions and tokens change: every row).
        listings = via.session.listings if isinstance(via, SessionLink) else None
        looked = -1

        async def replanned(arguments: JSON) -> JSON:
            nonlocal plan  # the tool's listing changed mid-map: later rows follow the new one
            plan = await self._plan(granted, tool, None, None, None, bar=False)
            return await self._call_planned(granted, plan, arguments, per_call, False, result_fields)

        def call(arguments: JSON) -> Awaitable[JSON]:
            nonlocal looked
            if listings is None or listings.version != looked:
                if self._entries.cached_tool(tool) is not plan.listing:
                    return replanned(arguments)
                looked = -1 if listings is None else listings.version  # the plan is the listing's
            return self._call_planned(granted, plan, arguments, per_call, False, result_fields)  # asked above

        annotations = (listing or {}).get("annotations") or {}
        run = MapRun(
            watching(runtime.call_hooks, self.name, tool, call),
            source,
            concurrency=concurrency,
            limit=(self.name, self.connection.config.max_concurrency),
            retries=retries,
            may_repeat=retry_unsafe or annotations.get("idempotentHint") is True,
            on_error=on_error,
            on_progress=displayed(runtime.interaction, self.name, tool, on_progress),
            backoff=backoff,
        )
        try:
            await steps.run(run.run(), self.name)
        except (KeyboardInterrupt, RequestCancelled):
            # Ctrl-C cancelled the run; it ends with the rows so far (the grace: a run that
            # cannot end promptly is left, and the interrupt stands).
            if not await steps.run(run.settled(GRACE_S), self.name):
                raise
        return map_frame(run, getattr(getattr(rows, "index", None), "name", None), explode)

    map, amap = blocking(_map), awaitable(_map)

    async def _read_resource(
        self, steps: Steps, /, uri: str, *, timeout: float | None = DEFAULT, refresh: bool = False, **values: Any
    ) -> ReadResult:
        """A resource's contents (a template's, filled from ``values``). A modern server may say they
        stay fresh a while (``ttlMs``): read again within it, they come from the cache unless ``refresh``."""
        uri = resource_uri(uri, values)
        connection = self.connection
        raw = None if refresh else connection.reads.get(uri)
        if raw is None:
            raw = await steps.send(connection, "resources/read", {"uri": uri}, timeout)
            connection.reads.keep(uri, raw, modern=self.modern)
        return ReadResult.from_raw(self.name, uri, raw)

    read_resource, aread_resource = blocking(_read_resource), awaitable(_read_resource)

    async def _get_prompt(self, steps: Steps, name: str, arguments: dict[str, Any] | None = None) -> PromptResult:
        """A prompt's messages. Its arguments are checked against its listing first (unless
        validation is off): a missing required one or an unknown one is an ArgumentError."""
        params = prompt_params(name, arguments)  # converted first: a missing value counts as not given
        if self.runtime.settings.validate and "prompts" in self.capabilities:
            prompt = self._entries.cached_prompt(name)
            if prompt is None:
                prompt = await steps.run(self._entries.find_prompt(name), self.name)
            check_prompt_arguments(prompt, params.get("arguments", {}))
        raw = await steps.send(self.connection, "prompts/get", params, DEFAULT)
        return PromptResult.from_raw(self.name, name, raw)

    get_prompt, aget_prompt = blocking(_get_prompt), awaitable(_get_prompt)

    async def _complete(
        self, steps: Steps, ref: JSON, argument: str, value: str = "", context: dict[str, str] | None = None
    ) -> list[str]:
        """Completion values for one argument of a prompt (``{"type": "ref/prompt",
        "name": …}``) or a resource template (``{"type": "ref/resource", "uri": …}``)."""
        raw = await steps.send(
            self.connection, "completion/complete", complete_params(ref, argument, value, context), DEFAULT
        )
        values = (raw.get("completion") or {}).get("values")
        if not isinstance(values, list):
            raise ProtocolError(f"server {self.name!r} sent a completion result without values")
        return [str(v) for v in values]

    complete, acomplete = blocking(_complete), awaitable(_complete)

    async def _set_log_level(self, steps: Steps, level: str) -> None:
        """Ask the server to send log messages at ``level`` and above: ``logging/setLevel``
        to a legacy server; a modern one is told on every request from now on (``_meta``)."""
        params = log_level_params(level)
        connection = self.connection
        session = connection.connected()
        if session.modern:
            connection.log_level = session.log_level = level
            return
        await steps.send(connection, "logging/setLevel", params, DEFAULT)
        connection.log_level = level

    set_log_level, aset_log_level = blocking(_set_log_level), awaitable(_set_log_level)

    async def _subscribe(self, steps: Steps, uri: str, callback: Listener | None = None) -> None:
        """Ask for ``notifications/resources/updated`` on ``uri``; ``callback(uri, params)``
        runs on each (on the background loop)."""
        await steps.run(self.connection.subscribe(resource_uri(uri), callback), self.name)

    async def _unsubscribe(self, steps: Steps, uri: str) -> None:
        """Stop the updates on ``uri``."""
        await steps.run(self.connection.unsubscribe(resource_uri(uri)), self.name)

    subscribe, asubscribe = blocking(_subscribe), awaitable(_subscribe)
    unsubscribe, aunsubscribe = blocking(_unsubscribe), awaitable(_unsubscribe)

    async def _ping(self, steps: Steps) -> None:
        """Check that the server answers."""
        await steps.send(self.connection, "ping", None, DEFAULT)

    ping, aping = blocking(_ping), awaitable(_ping)

    async def _request(
        self, steps: Steps, method: str, params: JSON | None = None, *, timeout: float | None = DEFAULT
    ) -> JSON:
        """Send any request and return the raw result (for methods without a helper; not
        ``tools/call``: ``call_tool`` applies the tool lists and the approval policy).
        ``server.connection.request(...)`` is the layer below, unchecked: it sends what it is
        given (the checked calls are built on it)."""
        if method == "tools/call":  # sent raw, it would skip the tool lists and the approval policy
            use = "use server.call_tool(name, arguments), which applies them (its .raw is the result as sent)"
            raise ArgumentError(f"server {self.name!r}: request('tools/call') is refused: {use}")
        return await steps.send(self.connection, method, params, timeout)

    request, arequest = blocking(_request), awaitable(_request)


__all__ = ["Server"]

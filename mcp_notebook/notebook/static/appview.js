// A tool's view (MCP Apps) in a sandboxed frame, and the host's side of its protocol.
//
// The frame has an opaque origin (sandbox without allow-same-origin): the app cannot reach
// the notebook page, its cookies, storage or the kernel's comms. Its document carries the
// Content-Security-Policy the kernel built (first element of the document). Everything the
// app sends is checked here (its source, shape, size and rate) before anything else: the
// handshake, pings, size and display-mode requests are answered here; what needs the server
// or the person (tools/call, resources/read, links, messages, logs) goes to the kernel.

const MAX_BYTES = 1 << 20; // a message from the app, serialized
const RATE = 50; // messages a second, on average
const BURST = 100; // messages at once
const MAX_HEIGHT = 4000; // px the frame may ask for
const PROTOCOL = "2026-01-26";
const LOCAL = new Set(["ui/initialize", "ui/notifications/initialized", "ping",
  "ui/notifications/size-changed", "ui/request-display-mode"]);
const TO_KERNEL = new Set(["tools/call", "tools/list", "resources/read", "ui/open-link", "ui/message",
  "ui/update-model-context", "notifications/message"]);

function theme() {
  const light = document.body?.dataset?.jpThemeLight;
  return light === "false" ? "dark" : "light";
}

function wellFormed(msg) {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return false;
  if (msg.jsonrpc !== "2.0" || typeof msg.method !== "string" || msg.method.length > 100) return false;
  if ("id" in msg && typeof msg.id !== "string" && typeof msg.id !== "number") return false;
  if ("params" in msg && (typeof msg.params !== "object" || msg.params === null || Array.isArray(msg.params))) {
    return false;
  }
  return true;
}

export default {
  render({ model, el }) {
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts allow-forms");
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.setAttribute("title", model.get("title"));
    const allow = model.get("allow");
    if (allow) frame.setAttribute("allow", allow);
    frame.className = "mcp-notebook-app";
    frame.style.width = "100%";
    frame.style.height = "150px";
    frame.style.border = model.get("border") ? "1px solid var(--jp-border-color1, #ccc)" : "none";
    frame.style.display = "block";

    // This frame among the view's renders: its requests' cards are its own, and when it goes
    // the kernel denies the approvals they still wait for (nobody is left to answer them).
    const render = `${Math.random().toString(36).slice(2)}`;
    let initialized = false;
    let loads = 0;
    let sentInput = false;
    let sentResult = false;
    const pending = [];
    let tokens = BURST;
    let last = performance.now();
    let dropped = 0;
    const replies = new Map(); // our id for the kernel -> the app's id

    const post = (msg) => frame.contentWindow?.postMessage(msg, "*");
    const reply = (id, result) => post({ jsonrpc: "2.0", id, result });
    const fail = (id, code, message) => post({ jsonrpc: "2.0", id, error: { code, message } });
    const notify = (method, params) => {
      const msg = { jsonrpc: "2.0", method, params };
      if (initialized) post(msg);
      else pending.push(msg);
    };
    const context = () => ({
      ...model.get("host_context"),
      theme: theme(),
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      containerDimensions: { maxHeight: MAX_HEIGHT },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: "web",
    });
    const sendInputAndResult = () => {
      if (!initialized) return;
      if (!sentInput) {
        sentInput = true;
        post({ jsonrpc: "2.0", method: "ui/notifications/tool-input",
          params: { arguments: model.get("tool_input") } });
      }
      const result = model.get("tool_result");
      if (!sentResult && result) {
        sentResult = true;
        post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result });
      }
    };

    const onMessage = (event) => {
      if (event.source !== frame.contentWindow) return; // only this view's own frame
      const now = performance.now();
      tokens = Math.min(BURST, tokens + ((now - last) / 1000) * RATE);
      last = now;
      if (tokens < 1) {
        if (dropped++ === 0) setTimeout(() => { model.send({ event: "dropped", count: dropped }); dropped = 0; }, 1000);
        return;
      }
      tokens -= 1;
      let size;
      try {
        size = JSON.stringify(event.data).length;
      } catch {
        return;
      }
      const msg = event.data;
      if (size > MAX_BYTES) {
        model.send({ event: "oversized", bytes: size });
        if (msg && (typeof msg.id === "number" || typeof msg.id === "string")) fail(msg.id, -32600, "message too large");
        return;
      }
      if (!wellFormed(msg)) {
        // Replies to our own requests (teardown) carry no method; anything else is dropped.
        return;
      }
      const { id, method } = msg;
      const params = msg.params || {};
      if (method === "ui/initialize") {
        reply(id, {
          protocolVersion: PROTOCOL,
          hostInfo: { name: "mcp-notebook", version: model.get("version") },
          hostCapabilities: model.get("host_capabilities"),
          hostContext: context(),
        });
      } else if (method === "ui/notifications/initialized") {
        initialized = true;
        pending.splice(0).forEach(post);
        sendInputAndResult();
      } else if (method === "ping") {
        if (id !== undefined) reply(id, {});
      } else if (method === "ui/notifications/size-changed") {
        const height = Number(params.height);
        if (Number.isFinite(height) && height >= 0) frame.style.height = `${Math.min(Math.ceil(height), MAX_HEIGHT)}px`;
      } else if (method === "ui/request-display-mode") {
        if (id !== undefined) reply(id, { mode: "inline" });
      } else if (TO_KERNEL.has(method)) {
        const ours = `${Math.random().toString(36).slice(2)}`;
        if (id !== undefined) replies.set(ours, id);
        model.send({ id: id === undefined ? null : ours, method, params, render });
      } else if (id !== undefined) {
        fail(id, -32601, `the notebook does not answer ${method.slice(0, 100)}`);
      }
    };

    const onKernel = (content) => {
      if (!content || typeof content !== "object") return;
      const id = replies.get(content.id);
      if (id === undefined) return;
      replies.delete(content.id);
      if (content.error) fail(id, content.error.code ?? -32000, String(content.error.message ?? "failed"));
      else reply(id, content.result ?? {});
    };

    const onLoad = () => {
      // The document loaded once; a second load is the app navigating its own frame
      // (a way to carry data out that the policy cannot stop): it ends the view.
      loads += 1;
      if (loads > 1) {
        frame.removeAttribute("srcdoc");
        frame.src = "about:blank";
        frame.remove();
        model.send({ event: "navigated", render });
      }
    };

    const themeWatch = new MutationObserver(() => notify("ui/notifications/host-context-changed", { theme: theme() }));
    if (document.body) themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });

    window.addEventListener("message", onMessage);
    model.on("msg:custom", onKernel);
    model.on("change:tool_result", sendInputAndResult);
    // The document and the load listener before the frame joins the page: its first load
    // is then the document's own (no about:blank counted as one).
    frame.srcdoc = model.get("html");
    frame.addEventListener("load", onLoad);
    el.appendChild(frame);

    return () => {
      // The output is cleared, the cell run again or the page closed: the app is told, where
      // its frame is still there. JupyterLab and Notebook 7 remove it before calling this
      // (seen in Chromium), so there the view never gets the message (docs/apps.md).
      if (initialized) post({ jsonrpc: "2.0", id: "teardown", method: "ui/resource-teardown", params: { reason: "closed" } });
      themeWatch.disconnect();
      window.removeEventListener("message", onMessage);
      model.off("msg:custom", onKernel);
      model.off("change:tool_result", sendInputAndResult);
      try {
        model.send({ event: "closed", render });
      } catch {
        // the page is going: its kernel connection with it
      }
    };
  },
};

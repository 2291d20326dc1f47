// Runs first in a view's document, before anything of the server's (appview.py puts it
// there, after the policy). WebRTC reaches any host, and Chromium applies no
// Content-Security-Policy to it, so:
// - the view's window loses RTCPeerConnection and its relatives, made undefined for good
//   (the view cannot put them back);
// - a frame the view makes to run code of its own in a fresh window (srcdoc, javascript:,
//   about:blank: a window with WebRTC again) is taken out before it loads; a frame from an
//   https: address (a declared frame domain) stays.
// What this keeps is captured here, before the view can replace any of it.
// docs/security.md says what remains.
(() => {
  const NAMES = ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCSessionDescription",
    "RTCIceCandidate", "RTCRtpSender", "RTCRtpReceiver", "RTCRtpTransceiver", "RTCDtlsTransport",
    "RTCIceTransport", "RTCSctpTransport", "RTCCertificate", "RTCDTMFSender", "RTCStatsReport",
    "RTCTrackEvent", "RTCDataChannelEvent", "RTCPeerConnectionIceEvent", "RTCPeerConnectionIceErrorEvent",
    "RTCErrorEvent", "RTCError", "RTCEncodedAudioFrame", "RTCEncodedVideoFrame", "RTCRtpScriptTransform"];
  for (const name of NAMES) {
    try {
      Object.defineProperty(window, name, { value: undefined, writable: false, enumerable: false, configurable: false });
    } catch {
      // not there in this browser
    }
  }

  const apply = Reflect.apply;
  const getter = (proto, key) => Object.getOwnPropertyDescriptor(proto, key).get;
  const addedNodes = getter(MutationRecord.prototype, "addedNodes");
  const target = getter(MutationRecord.prototype, "target");
  const type = getter(MutationRecord.prototype, "type");
  const length = getter(NodeList.prototype, "length");
  const nodeType = getter(Node.prototype, "nodeType");
  const { item } = NodeList.prototype;
  const { matches, getAttribute, hasAttribute, remove, querySelectorAll } = Element.prototype;
  const test = RegExp.prototype.test;
  const HTTPS = /^\s*https:\/\//i;
  const FRAMES = "iframe, frame, object, embed";

  const allowed = (el) => {
    const src = apply(getAttribute, el, ["src"]) ?? apply(getAttribute, el, ["data"]) ?? "";
    return !apply(hasAttribute, el, ["srcdoc"]) && apply(test, HTTPS, [src]);
  };
  const check = (el) => {
    if (apply(matches, el, [FRAMES]) && !allowed(el)) apply(remove, el, []);
  };
  const sweep = (node) => {
    if (apply(nodeType, node, []) !== 1) return;
    check(node);
    const found = apply(querySelectorAll, node, [FRAMES]);
    for (let i = 0, n = apply(length, found, []); i < n; i++) check(apply(item, found, [i]));
  };
  // Called before any script the page runs next (a microtask): a frame added or pointed
  // elsewhere is gone before its document could load.
  const observer = new MutationObserver((records) => {
    for (let r = 0; r < records.length; r++) {
      const record = records[r];
      if (apply(type, record, []) === "attributes") sweep(apply(target, record, []));
      const added = apply(addedNodes, record, []);
      for (let i = 0, n = apply(length, added, []); i < n; i++) sweep(apply(item, added, [i]));
    }
  });
  const observe = observer.observe;
  const watch = (root) => apply(observe, observer, [root, { childList: true, subtree: true, attributes: true,
    attributeFilter: ["src", "srcdoc", "data"] }]);
  watch(document);
  // Shadow roots the view attaches are watched as well.
  const attachShadow = Element.prototype.attachShadow;
  Object.defineProperty(Element.prototype, "attachShadow", {
    configurable: false,
    writable: false,
    value: function (...args) {
      const root = apply(attachShadow, this, args);
      watch(root);
      return root;
    },
  });
})();

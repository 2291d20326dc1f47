// Preloaded (node --require) into a Node server that binds every interface and has no
// option to choose (supergateway 4.0.0): it listens on 127.0.0.1 only.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" && (args.length === 1 || typeof args[1] === "function")) {
    args.splice(1, 0, "127.0.0.1"); // listen(port[, callback]): add the host
  } else if (args[0] && typeof args[0] === "object" && args[0].host === undefined && args[0].path === undefined) {
    args[0] = { ...args[0], host: "127.0.0.1" }; // listen({port}): the same
  }
  return listen.apply(this, args);
};

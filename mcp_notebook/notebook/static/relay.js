// The card's relay: every edit of one of its fields goes to the kernel as a custom message
// the moment the person makes it. ipywidgets holds a model's later state updates until the
// kernel reports idle for the first one, which a kernel busy in the waiting cell does not do
// (ipykernel 7.4 handles a comm message beside an awaiting cell and reports no status for
// it); custom messages are never held back, so the kernel sees each change, in order,
// before the click that follows it.
const KEYS = ["value", "index"];

function wire(value) {
  if (value instanceof Date) {
    return { year: value.getUTCFullYear(), month: value.getUTCMonth(), date: value.getUTCDate() };
  }
  return value;
}

async function render({ model, el, host }) {
  el.style.display = "none";
  const stops = [];
  // Every field at once; and once a field is wired, its value as it is now: an edit made
  // before the relay was ready (a busy page) reaches the kernel too.
  const fields = await Promise.all(model.get("fields").map(async (ref) => [ref, await host.getModel(ref)]));
  for (const [ref, field] of fields) {
    for (const key of KEYS) {
      if (field.get(key) === undefined) continue;
      const send = () => model.send({ event: "edit", field: ref, state: { [key]: wire(field.get(key)) } });
      field.on(`change:${key}`, send);
      stops.push(() => field.off(`change:${key}`, send));
      send();
    }
  }
  return () => stops.forEach((stop) => stop());
}

export default { render };

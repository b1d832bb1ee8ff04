// The result screen's work off the page's thread: a dedicated worker runs
// its own instance of the same sim.wasm (which it fetches and compiles)
// and answers one request, {sim (its URL), visit, norm}, with two
// messages: {rule} (the catalog's entry of norm as JSON, "" for none), then
// {baselines} (JSON: [{name, record}|{name, err}] for every built-in
// baseline of the module's info, each record without its actions and
// events, which the screen does not show). Running the baselines takes
// about a second of CPU: on the page's thread it froze the result screen.
import { WASI } from "./{{SHIM}}/index.js";
import { instantiate } from "./{{BRIDGE}}";

self.onmessage = async (e) => {
  const { visit, norm } = e.data;
  try {
    const module = await WebAssembly.compileStreaming(fetch(e.data.sim)).catch(async () => {
      const r = await fetch(e.data.sim); // hosts that do not send application/wasm
      if (!r.ok) throw new Error(e.data.sim + ": HTTP " + r.status);
      return WebAssembly.compile(await r.arrayBuffer());
    });
    const sim = await instantiate(module, WASI);
    let rule = "";
    if (norm) {
      const all = JSON.parse(sim.call("norms", ""));
      const n = Array.isArray(all) ? all.find((x) => x.id === norm) : null;
      if (n) rule = JSON.stringify(n);
    }
    self.postMessage({ rule });
    const info = JSON.parse(sim.call("info", ""));
    const out = [];
    for (const name of info.agents || []) {
      const rec = JSON.parse(sim.call("run", JSON.stringify({ visit, agent: name })));
      if (rec.error) {
        out.push({ name, err: rec.error });
        continue;
      }
      delete rec.actions;
      delete rec.events;
      out.push({ name, record: rec });
    }
    self.postMessage({ baselines: JSON.stringify(out) });
  } catch (err) {
    self.postMessage({ error: String(err && err.message ? err.message : err) });
  }
};

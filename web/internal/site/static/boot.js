// NormGym's loader and the bridge between the Go UI (app.wasm, GOOS=js)
// and the simulation (sim.wasm, a WASI reactor run by browser_wasi_shim).
// The bridge is one synchronous function, normgymSim.call(export, json)
// (bridge.js, wasm/ABI.md). File names are filled in by the build and
// carry content hashes, so a page never mixes two builds.
//
// sim.wasm is fetched, compiled and instantiated only when a mode needs
// it: at once when the address names a visit, a suite, Watch, Model or a
// study; otherwise when the app asks (normgymSim.start()). The site's
// sealed play, stepped on the server, never has the sim, its catalog or
// its suites in the page, and does not even download it before its visit
// is over; its result screen runs the sim in a worker (offThread).
import { instantiate } from "./{{BRIDGE}}";

const SIM = new URL("{{SIM}}", import.meta.url), APP = new URL("{{APP}}", import.meta.url);
const WORKER = new URL("{{WORKER}}", import.meta.url);
const SHIM = "./{{SHIM}}/index.js";
performance.mark("normgym-boot");

function compile(url) {
  return WebAssembly.compileStreaming(fetch(url)).catch(async () => {
    // Hosts that do not send application/wasm: compile from bytes.
    const r = await fetch(url);
    if (!r.ok) throw new Error(url + ": HTTP " + r.status);
    return WebAssembly.compile(await r.arrayBuffer());
  });
}

// simModule compiles sim.wasm once, when first asked.
let simCompiled = null;
const simModule = () => (simCompiled ??= compile(SIM));

// eager reports whether the address names a mode that runs the sim at
// once (the route's keys, web/internal/ui/route.go): then sim.wasm
// downloads and compiles in parallel with the app.
function eager(hash) {
  const h = new URLSearchParams(hash.replace(/^#/, ""));
  const mode = h.get("mode") || "play";
  return h.has("visit") || h.has("suite") || h.has("study") || (mode !== "play" && mode !== "join");
}
if (eager(location.hash)) simModule();
const appModule = compile(APP);

function fail(err) {
  const box = document.getElementById("boot");
  box.setAttribute("role", "alert");
  box.textContent = "NormGym could not start: " + (err && err.message ? err.message : err) +
    ". It needs a browser with WebAssembly (any recent Chrome, Firefox, Safari or Edge).";
  document.body.dataset.stage = "error";
}

async function instantiateSim() {
  const [{ WASI }, module] = await Promise.all([import(SHIM), simModule()]);
  return instantiate(module, WASI);
}

// offThread runs the result screen's work in a dedicated worker over its
// own instance of sim.wasm (worker.js), which it fetches and compiles, so
// that the page's thread never blocks for it: it returns {rule, baselines}, two promises of JSON text
// (the catalog's entry of norm, "" for none; every baseline's outcome on
// visit). The worker ends when it has answered.
function offThread(visit, norm) {
  let ruleDone, ruleFail, runsDone, runsFail;
  const rule = new Promise((ok, no) => { ruleDone = ok; ruleFail = no; });
  const baselines = new Promise((ok, no) => { runsDone = ok; runsFail = no; });
  const failed = (err) => { ruleFail(err); runsFail(err); };
  let w;
  try {
    w = new Worker(WORKER, { type: "module" });
  } catch (err) {
    failed(err); // no module workers here: the app runs the sim itself
    return { rule, baselines };
  }
  w.onmessage = (e) => {
    const d = e.data;
    if (d.error !== undefined) { failed(new Error(d.error)); w.terminate(); return; }
    if (d.rule !== undefined) ruleDone(d.rule);
    if (d.baselines !== undefined) { runsDone(d.baselines); w.terminate(); }
  };
  w.onerror = (e) => { failed(new Error(e.message || "the worker failed")); w.terminate(); };
  // The worker fetches and compiles sim.wasm itself: the page's thread
  // does none of that work.
  w.postMessage({ sim: SIM.href, visit, norm });
  return { rule, baselines };
}

// The bridge: start() instantiates sim.wasm once (a promise); call()
// answers an error until it has.
let sim = null, starting = null;
globalThis.normgymSim = {
  sha256: document.querySelector('meta[name="normgym-sim-sha256"]').content,
  start() {
    starting ??= instantiateSim().then((b) => { sim = b; });
    return starting;
  },
  call(name, json) {
    if (!sim) return JSON.stringify({ error: "bridge: sim.wasm is not started (normgymSim.start())" });
    return sim.call(name, json);
  },
  offThread,
};

try {
  const go = new Go();
  const app = await WebAssembly.instantiate(await appModule, go.importObject);
  go.run(app).then(() => fail(new Error("the app stopped")));
} catch (e) {
  console.error(e);
  fail(e);
}

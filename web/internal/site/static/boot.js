// NormGym's loader and the bridge between the Go UI (app.wasm, GOOS=js)
// and the simulation (sim.wasm, a WASI reactor run by browser_wasi_shim).
// The bridge is one synchronous function, normgymSim.call(export, json),
// that writes the request into the module's input buffer, calls the export
// and reads its JSON answer (wasm/ABI.md). File names are filled in by the
// build and carry content hashes, so a page never mixes two builds.
//
// sim.wasm is compiled at once but instantiated only when the app asks
// (normgymSim.start()): a sealed visit, played on the server, never has
// the sim, its catalog or its suites in the page's memory.
const SIM = new URL("{{SIM}}", import.meta.url), APP = new URL("{{APP}}", import.meta.url);
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

// Both modules download and compile in parallel with the shim's import.
const simModule = compile(SIM), appModule = compile(APP);

function fail(err) {
  const box = document.getElementById("boot");
  box.setAttribute("role", "alert");
  box.textContent = "NormGym could not start: " + (err && err.message ? err.message : err) +
    ". It needs a browser with WebAssembly (any recent Chrome, Firefox, Safari or Edge).";
  document.body.dataset.stage = "error";
}

async function instantiateSim() {
  const { WASI } = await import(SHIM);
  const wasi = new WASI([], [], [], { debug: false });
  const inst = await WebAssembly.instantiate(await simModule, { wasi_snapshot_preview1: wasi.wasiImport });
  wasi.initialize(inst);
  const ex = inst.exports, enc = new TextEncoder(), dec = new TextDecoder();
  const noInput = new Set(["info", "norms"]);
  let broken = "";
  return {
    call(name, json) {
      if (broken) return JSON.stringify({ error: "bridge: sim.wasm stopped after an earlier failure (" + broken + "); reload the page" });
      const f = ex[name];
      if (typeof f !== "function" || name === "in_ptr" || name === "out_ptr") {
        return JSON.stringify({ error: "bridge: sim.wasm has no export " + name });
      }
      try {
        let n;
        if (noInput.has(name)) {
          n = f();
        } else {
          const b = enc.encode(json || "");
          const p = ex.in_ptr(b.length);
          if (p === 0) return JSON.stringify({ error: "bridge: request of " + b.length + " bytes refused" });
          // A fresh view each time: memory.grow detaches old ones.
          new Uint8Array(ex.memory.buffer, p, b.length).set(b);
          n = f(b.length);
        }
        return dec.decode(new Uint8Array(ex.memory.buffer, ex.out_ptr(), n));
      } catch (e) {
        broken = String(e);
        return JSON.stringify({ error: "bridge: sim.wasm trapped: " + broken });
      }
    },
  };
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
};

try {
  const go = new Go();
  const app = await WebAssembly.instantiate(await appModule, go.importObject);
  go.run(app).then(() => fail(new Error("the app stopped")));
} catch (e) {
  console.error(e);
  fail(e);
}

// The synchronous bridge to an instance of sim.wasm (wasm/ABI.md), shared
// by the page (boot.js) and the worker that runs the result screen's work
// off the page's thread (worker.js): call(export, json) writes the request
// into the module's input buffer, calls the export and reads its JSON
// answer. A trap marks the bridge broken rather than calling into a dead
// Go runtime.
export function bridge(ex) {
  const enc = new TextEncoder(), dec = new TextDecoder();
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

// instantiate starts sim.wasm (a compiled WebAssembly.Module) as a WASI
// reactor with the shim's WASI class, and returns its bridge.
export async function instantiate(module, WASI) {
  const wasi = new WASI([], [], [], { debug: false });
  const inst = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi.wasiImport });
  wasi.initialize(inst);
  return bridge(inst.exports);
}

// NormGym's Worker (serve/worker): the main module that wrangler.jsonc
// names. `make worker` copies it into build/ beside the Go program
// (app.wasm) and the Go shim (wasm_exec.js) that
// github.com/syumai/workers/cmd/workers-assets-gen writes there.
//
// Two kinds of Go runtime run the same app.wasm (see RATIONALE.md):
//
//   - a Worker request's: started for one request and dropped after it,
//     as syumai/workers' own shim does (fetch, scheduled);
//   - a Session Durable Object's: started once for the object's life, so
//     that the visits of its sessions stay live between requests, which
//     makes a step cost the same at the end of a visit as at its start.
//
// fetch sends the requests that act on a session to the session's object
// (named by the SHA-256 of its token) and a WebSocket upgrade of /ws to an
// object of its own; everything else, opening sessions included, goes to
// a Worker request's runtime.

import "./wasm_exec.js";
import mod from "./app.wasm";

// The Go code of syumai/workers calls it.
globalThis.tryCatch = (fn) => {
  try {
    return { result: fn() };
  } catch (e) {
    return { error: e };
  }
};

// Shared by every Go runtime of this isolate (serve/worker/runtime.go).
const isolate = {};

// start runs app.wasm with a runtime context and waits until its Go code
// is ready; exited resolves when the runtime ends (it is wrapped in an
// object: an async function's result that is a promise would be waited
// for).
async function start(context) {
  const go = new Go();
  let ready;
  const isReady = new Promise((resolve) => {
    ready = resolve;
  });
  const instance = new WebAssembly.Instance(mod, {
    ...go.importObject,
    workers: { ready: () => ready() },
  });
  const exited = go.run(instance, context);
  await Promise.race([isReady, failOn(exited)]);
  return { exited };
}

// failOn is a promise that rejects when the runtime ends.
function failOn(exited) {
  return exited.then(() => {
    throw new Error("worker: the Go runtime exited");
  });
}

// A session token (serve/session.ValidToken).
const TOKEN = /^sess_[A-Za-z0-9_-]{43}$/;

// The largest body read here to find a session: serve/server's bound on
// a session's request (sessionBody). A longer or unsized body goes to a
// request's runtime, which refuses or serves it.
const MAX_SESSION_BODY = 1024;

// SESSION_QUERY finds a session by its token's SHA-256 (TestEntryQueries
// runs it on the store's schema).
const SESSION_QUERY = "SELECT 1 AS found FROM sessions WHERE token_sha256 = ?";

function bearer(req) {
  const h = req.headers.get("Authorization") || "";
  return h.length > 7 && h.slice(0, 7).toLowerCase() === "bearer " ? h.slice(7).trim() : "";
}

async function sha256hex(s) {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// sessionToken returns the token a request acts with ("" for none) and
// the request to send on (its body read here, if it was).
async function sessionToken(req, url) {
  const get = req.method === "GET" || req.method === "HEAD";
  switch (url.pathname) {
    case "/api/session":
    case "/api/session/trail":
      return { token: get ? bearer(req) : "", req };
    case "/api/session/step":
    case "/api/session/answer":
      return { token: req.method === "POST" ? bearer(req) : "", req };
    case "/state":
      return { token: get ? url.searchParams.get("session_id") || bearer(req) : "", req };
    case "/step":
    case "/reset": {
      const n = Number(req.headers.get("Content-Length"));
      if (req.method !== "POST" || !(n > 0 && n <= MAX_SESSION_BODY)) {
        return { token: "", req };
      }
      const body = await req.arrayBuffer();
      let j = null;
      try {
        j = JSON.parse(new TextDecoder().decode(body));
      } catch {
        // The runtime that gets it answers the error.
      }
      const named = j && typeof j === "object" ? j.session_id : "";
      const token = typeof named === "string" && named !== "" ? named : url.pathname === "/step" ? bearer(req) : "";
      return { token, req: new Request(req, { body }) };
    }
  }
  return { token: "", req };
}

// HASH is the header in which fetch passes an object the SHA-256 of the
// token a request acts with (set here on every request sent to an
// object, whatever the client sent).
const HASH = "X-NormGym-Token-SHA256";

// known holds the hashes of tokens that D1 has named a session, for this
// isolate: a token's next requests skip the look-up. A token that stops
// naming its session (a key's session resumed under a new one) is caught
// by its object, which checks a key's token on every request (durable.go).
const known = new Map();
const KNOWN_MAX = 10000;

function remember(hash) {
  if (known.size >= KNOWN_MAX) {
    known.delete(known.keys().next().value);
  }
  known.set(hash, true);
}

// route returns the Durable Object that serves a request (null: a
// request's runtime does) and the request to send it.
async function route(req, env) {
  const url = new URL(req.url);
  if (url.pathname === "/ws" && req.method === "GET" && /websocket/i.test(req.headers.get("Upgrade") || "")) {
    const r = new Request(req);
    r.headers.delete(HASH);
    return { id: env.SESSIONS.newUniqueId(), req: r };
  }
  const t = await sessionToken(req, url);
  if (!TOKEN.test(t.token)) {
    return { id: null, req: t.req };
  }
  const hash = await sha256hex(t.token);
  if (!known.has(hash)) {
    let found = null;
    try {
      found = await env.DB.prepare(SESSION_QUERY).bind(hash).first();
    } catch {
      // A schema not yet applied: the request's runtime applies it.
    }
    if (!found) {
      // An unknown token never reaches an object: none is made for it.
      return { id: null, req: t.req };
    }
    remember(hash);
  }
  const r = new Request(t.req);
  r.headers.set(HASH, hash);
  return { id: env.SESSIONS.idFromName(hash), req: r };
}

// serveOnce answers a request with a Go runtime of its own.
async function serveOnce(req, env, ctx) {
  const binding = {};
  await start({ env, ctx, binding, isolate });
  return binding.handleRequest(req);
}

// WARM is the path of the request that starts a session's object
// before the session's first step: a Worker's URL that fetch never sends
// to an object, so no client reaches it.
const WARM = "/__warm";

// warm starts the object of a session that a request has just opened
// (POST /api/sessions, POST /reset): its Go runtime starts and loads the
// session while the client reads the first screen, not when it sends its
// first action.
async function warm(req, res, env) {
  const path = new URL(req.url).pathname;
  if (req.method !== "POST" || (path !== "/api/sessions" && path !== "/reset") || (res.status !== 200 && res.status !== 201)) {
    return;
  }
  const body = await res.json();
  const token = path === "/reset" ? body.metadata && body.metadata.session_id : body.session;
  if (typeof token === "string" && TOKEN.test(token)) {
    const hash = await sha256hex(token);
    remember(hash);
    const id = env.SESSIONS.idFromName(hash);
    const w = await env.SESSIONS.get(id).fetch(new Request(new URL(WARM, req.url), { headers: { Authorization: "Bearer " + token } }));
    await w.arrayBuffer();
  }
}

export default {
  async fetch(req, env, ctx) {
    const r = await route(req, env);
    if (r.id) {
      return env.SESSIONS.get(r.id).fetch(r.req);
    }
    const res = await serveOnce(r.req, env, ctx);
    ctx.waitUntil(warm(r.req, res.clone(), env).catch(() => {}));
    return res;
  },

  // The Cron Trigger computes the baseline rows (serve/worker/baselines.go).
  async scheduled(event, env, ctx) {
    const binding = {};
    await start({ env, ctx, binding, isolate });
    return binding.runScheduler(event);
  },
};

// Session is the Durable Object of one session token, or of one /ws
// connection: a Go runtime that lives as long as the object and serves
// every request sent to it (serve/worker/durable.go).
export class Session {
  constructor(state, env) {
    this.state = state;
    this.env = env;
    this.runtime = null;
  }

  // go returns the object's runtime, started once (and again if it
  // ended): its binding, and call, which waits for a promise of the
  // runtime and fails if the runtime ends first.
  go() {
    if (!this.runtime) {
      const binding = {};
      const ctx = { env: this.env, ctx: this.state, binding, isolate, durable: true };
      this.runtime = start(ctx).then(
        ({ exited }) => {
          const pending = new Set();
          exited.then(() => {
            this.runtime = null;
            for (const reject of pending) {
              reject(new Error("worker: the Go runtime exited"));
            }
          });
          const call = (p) =>
            new Promise((resolve, reject) => {
              pending.add(reject);
              p.then(resolve, reject).finally(() => pending.delete(reject));
            });
          return { binding, call };
        },
        (e) => {
          this.runtime = null;
          throw e;
        },
      );
    }
    return this.runtime;
  }

  async fetch(req) {
    const { binding, call } = await this.go();
    if (new URL(req.url).pathname === WARM) {
      await call(binding.warm(bearer(req)));
      return new Response(null, { status: 204 });
    }
    const get = req.method === "GET" || req.method === "HEAD";
    const body = get ? null : new Uint8Array(await req.arrayBuffer());
    const hash = req.headers.get(HASH) || "";
    const headers = [...req.headers].filter(([k]) => k.toLowerCase() !== HASH.toLowerCase());
    const res = await call(binding.serve(req.method, req.url, headers, body, hash));
    const out = new Headers(res.headers);
    if (res.status === 101) {
      return this.accept(binding, call, res, out);
    }
    const empty = req.method === "HEAD" || res.status === 204 || res.status === 304;
    return new Response(empty ? null : res.body, { status: res.status, headers: out });
  }

  // accept takes the WebSocket of an upgrade the Go server accepted and
  // hands it each message, one at a time, in order.
  accept(binding, call, res, headers) {
    const [client, server] = Object.values(new WebSocketPair());
    server.accept();
    let queue = Promise.resolve();
    let idle = null;
    let open = true;
    const end = (code, reason) => {
      clearTimeout(idle);
      if (open) {
        open = false;
        binding.wsClose(res.ws);
        try {
          server.close(code, reason);
        } catch {
          // closed already
        }
      }
    };
    const wake = () => {
      clearTimeout(idle);
      idle = setTimeout(() => end(1000, "idle"), res.idleMs);
    };
    wake();
    server.addEventListener("message", (ev) => {
      wake();
      queue = queue
        .then(async () => {
          if (!open) {
            return;
          }
          const text = typeof ev.data === "string";
          const data = text ? ev.data : new Uint8Array(ev.data);
          const size = text ? new TextEncoder().encode(data).length : data.length;
          if (size > res.maxMessage) {
            end(1009, "message too big");
            return;
          }
          const r = await call(binding.wsMessage(res.ws, data, text));
          if (r.close) {
            end(1000, "");
          } else if (open) {
            server.send(r.reply);
          }
        })
        .catch(() => end(1011, "internal error"));
    });
    server.addEventListener("close", () => end(1000, ""));
    server.addEventListener("error", () => end(1011, "error"));
    return new Response(null, { status: 101, webSocket: client, headers });
  }
}

#!/usr/bin/env python3
"""A NormGym client in plain Python (the standard library only).

NormGym's server speaks OpenEnv's environment protocol: a WebSocket
session at /ws (reset, step, state and close messages; observation,
state and error replies), which NormGymEnv speaks with nothing else, and
the same over HTTP (POST /reset, /step, GET /state), whose reset and step
are stateless as OpenEnv's: NormGymHTTP uses NormGym's stateful extension
(reset with session=True, then session_id in each step). This file has a
tiny RFC 6455 WebSocket client of its own, so that it needs nothing but
python3:

    from normgym_client import NormGymEnv
    with NormGymEnv("http://127.0.0.1:8080") as env:
        result = env.reset(suite="mini", seed=3, episode_id="ep-1")  # practice
        while not result["done"]:
            obs = result["observation"]
            if obs["stage"] == "probe":               # the visit is over
                result = env.step({"answer": 0})      # pick the rule
            else:
                result = env.step({"action": "wait"})
        print(result["reward"])                       # joint success: 1.0 or 0.0
        print(result["metadata"]["probe_correct"])    # the probe answered right?
        print(env.state())                            # {"episode_id": "ep-1", "step_count": ...}

seed draws the visit from the suite (train by default), stratified by
norm and condition: seeds 0, 1, 2... meet every norm before any twice.
result["observation"]["text"] is what the sim renders for a language model,
result["observation"]["json"] the same observation as structured data; the
reward is 0.0 at every step and the joint success at the end. With a
submitter key (env.reset(suite=..., key=...)) the visit is the key's next
sealed one and the server stores the run under the key's label. Run this
file to play a visit with a fixed policy and print its actions and the
server's trajectory hash as JSON:

    python3 normgym_client.py http://127.0.0.1:8080 --visit VISIT [--key KEY] [--http]
"""

import base64
import hashlib
import json
import os
import socket
import struct
import sys
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["NormGymEnv", "NormGymHTTP", "NormGymError"]


class NormGymError(RuntimeError):
    """An error answer of the server: its message, code and status."""

    def __init__(self, data):
        self.data = data
        super().__init__("%s (%s, %s)" % (data.get("message"), data.get("code"), data.get("status")))


class _WebSocket:
    """A minimal RFC 6455 client: text messages, masked frames, no extensions."""

    GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    def __init__(self, url, timeout=60.0):
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("ws", "http"):
            raise ValueError("only ws:// (plain) URLs: use a TLS-terminating proxy's http URL otherwise")
        host, port = u.hostname, u.port or 80
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        path = u.path or "/"
        req = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n") % (path, host, port, key)
        self.sock.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the server closed the connection during the handshake")
            head += chunk
        head, self.buf = head.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        if " 101 " not in lines[0] + " ":
            raise ConnectionError("handshake refused: " + lines[0])
        want = base64.b64encode(hashlib.sha1((key + self.GUID).encode()).digest()).decode()
        accept = [l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("sec-websocket-accept:")]
        if accept != [want]:
            raise ConnectionError("bad Sec-WebSocket-Accept")

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send_frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + body)

    def send(self, text):
        self._send_frame(0x1, text.encode())

    def recv(self):
        """Returns the next text message (None once the server closes)."""
        parts = []
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:  # close
                return None
            if opcode == 0x9:  # ping
                self._send_frame(0xA, payload)
                continue
            if opcode in (0x0, 0x1, 0x2):
                parts.append(payload)
                if b0 & 0x80:
                    return b"".join(parts).decode()

    def close(self):
        try:
            self._send_frame(0x8, struct.pack("!H", 1000))
        except OSError:
            pass
        self.sock.close()


class NormGymEnv:
    """OpenEnv's WebSocket session (/ws) with NormGym's server.

    reset(**params) sends OpenEnv's reset (seed, episode_id, and NormGym's
    suite, visit, key; session_id=TOKEN resumes a session) and returns the
    first result; step(action) takes {"action": "north"} (or {"answer": k}
    after the visit) and returns the next; state() returns OpenEnv's State
    ({"episode_id", "step_count", ...}). A result is OpenEnv's:
    {"observation": {...}, "reward": float or None, "done": bool,
    "metadata": {"episode_id": ..., "session_id": ...}}.
    """

    def __init__(self, base_url, timeout=60.0):
        u = urllib.parse.urlsplit(base_url)
        self.url = urllib.parse.urlunsplit(("ws", u.netloc, u.path.rstrip("/") + "/ws", "", ""))
        self.timeout = timeout
        self.ws = None
        self.session_id = None

    def _call(self, message):
        if self.ws is None:
            self.ws = _WebSocket(self.url, self.timeout)
        self.ws.send(json.dumps(message))
        raw = self.ws.recv()
        if raw is None:
            raise ConnectionError("the server closed the session")
        reply = json.loads(raw)
        if reply.get("type") == "error":
            raise NormGymError(reply.get("data", {}))
        return reply

    def reset(self, **params):
        data = self._call({"type": "reset", "data": params})["data"]
        self.session_id = data.get("metadata", {}).get("session_id")
        return data

    def step(self, action):
        return self._call({"type": "step", "data": action})["data"]

    def state(self):
        return self._call({"type": "state"})["data"]

    def close(self):
        if self.ws is not None:
            try:
                self.ws.send(json.dumps({"type": "close"}))
                self.ws.recv()
            except (OSError, ConnectionError):
                pass
            self.ws.close()
            self.ws = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class NormGymHTTP:
    """The same session over HTTP: POST /reset, POST /step, GET /state.

    OpenEnv's HTTP reset and step are stateless (a fresh environment per
    request); this client keeps a session with NormGym's stateful extension:
    reset with session=True returns its token as metadata.session_id, and
    each step and state names it.
    """

    def __init__(self, base_url, timeout=60.0):
        self.base = base_url.rstrip("/")
        self.timeout = timeout
        self.session_id = None

    def _do(self, method, path, body=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            try:
                err = json.loads(e.read())
            except ValueError:
                err = {}
            raise NormGymError({"message": err.get("error", str(e)), "code": err.get("code"), "status": e.code}) from None

    def reset(self, key=None, **params):
        headers = {"Authorization": "Bearer " + key} if key else None
        data = self._do("POST", "/reset", dict(params, session=True), headers)
        self.session_id = data["metadata"]["session_id"]
        return data

    def step(self, action):
        return self._do("POST", "/step", {"action": action, "session_id": self.session_id})

    def state(self):
        return self._do("GET", "/state?session_id=" + urllib.parse.quote(self.session_id))


def _policy(obs, k):
    """A fixed policy for the example: a walk that cycles through moves."""
    return ["north", "east", "south", "west", "wait", "pick", "use", "bow"][k % 8]


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description="Play one NormGym visit with a fixed policy and print the trajectory.")
    ap.add_argument("url", help="the server, e.g. http://127.0.0.1:8080")
    ap.add_argument("--visit", help="the visit to play (practice; default: a practice visit the server draws)")
    ap.add_argument("--suite", help="the suite: with --seed a practice draw from it; with --key the key's next sealed visit of it (stored under its label)")
    ap.add_argument("--key", help="a submitter key: its sealed suite visits are stored under its label")
    ap.add_argument("--http", action="store_true", help="use POST /reset and /step instead of the WebSocket")
    ap.add_argument("--seed", type=int, help="draw the visit from --suite (practice)")
    ap.add_argument("--episode", help="the episode_id to name the episode (echoed in the state)")
    ap.add_argument("--trace", help="write every observation the server sent, whole, as a JSON line to this file")
    args = ap.parse_args(argv)
    params = {}
    if args.seed is not None:
        params["seed"] = args.seed
    if args.episode:
        params["episode_id"] = args.episode
    if args.visit:
        params["visit"] = args.visit
    if args.suite:
        params["suite"] = args.suite
    env = NormGymHTTP(args.url) if args.http else NormGymEnv(args.url)
    if args.key:
        params["key"] = args.key
    result = env.reset(**params)
    trace = open(args.trace, "w") if args.trace else None
    actions, k = [], 0
    while True:
        if trace:
            trace.write(json.dumps(result["observation"]) + "\n")
        if result["done"]:
            break
        obs = result["observation"]
        if obs["stage"] == "probe":
            result = env.step({"answer": 0})
            continue
        a = _policy(obs, k)
        k += 1
        try:
            result = env.step({"action": a})
        except NormGymError as e:
            print("refused:", e, file=sys.stderr)
            return 1
        actions.append(a)
    if trace:
        trace.close()
    state = env.state()
    if isinstance(env, NormGymEnv):
        env.close()
    res = result["observation"]["result"] or {}
    print(json.dumps({"visit": result["observation"].get("visit", ""), "actions": actions, "hash": res.get("hash", ""),
                      "reward": result["reward"], "run_id": res.get("run_id", ""), "step_count": state["step_count"],
                      "episode_id": state["episode_id"], "probe_correct": result["metadata"].get("probe_correct"),
                      "session_id": result["metadata"]["session_id"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

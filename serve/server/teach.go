package server

import (
	"io"
	"net/http"
)

// teachPage handles GET /teach: the classroom page for teachers. It
// creates a room (POST /api/rooms), keeps the teacher token in the
// browser's storage only, and shows the room's dashboard live (polling
// /api/rooms/CODE/dashboard) with a CSV export. It needs no install and
// no account; all data is rendered as text, never as markup.
func (s *Server) teachPage(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err := io.WriteString(w, teachHTML)
	return err
}

const teachHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>NormGym for classrooms</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d1d1d}
h1{margin-bottom:.2rem}section{border:1px solid #ccc;border-radius:8px;padding:1rem 1.2rem;margin:1.2rem 0}
label{display:block;margin:.4rem 0}input,select,button{font:inherit;padding:.35rem .6rem}
button{background:#1b3a6b;color:#fff;border:0;border-radius:6px;cursor:pointer}button:focus{outline:3px solid #f0b400}
code,.mono{font-family:ui-monospace,monospace;background:#f3f3f3;padding:.1rem .3rem;border-radius:4px}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:right}
th:first-child,td:first-child{text-align:left}.big{font-size:1.6rem;font-weight:bold}.muted{color:#555}.err{color:#a00000;font-weight:bold}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));gap:.8rem}.right{color:#0a6b2a;font-weight:bold}
</style></head><body><main>
<h1>NormGym for classrooms</h1>
<p class="muted">Your students join a small community with an unwritten rule and try to work it out. No accounts: students get a pseudonym, you see the class live. <a href="/">Try it yourself</a> · <a href="/leaderboard">leaderboard</a></p>
<section id="create"><h2>Create a room</h2>
<label>Room name (optional) <input id="name" maxlength="60" placeholder="e.g. Period 3"></label>
<label>Teacher key <input id="teacherKey" type="password" autocomplete="off" placeholder="from this site's operator"></label>
<p class="muted">Creating a room needs a teacher key from whoever runs this site, unless the site lets anyone create rooms. Rooms take students for a limited time (the site says how long when you create one).</p>
<label>Visit set <select id="suite"><option value="mini">mini (60 short visits)</option><option value="standard">standard (752 visits)</option><option value="heldout">heldout (120 visits)</option></select></label>
<button id="make">Create room</button> <span id="createMsg" role="status"></span></section>
<section id="open"><h2>Open a room's dashboard</h2>
<label>Join code <input id="code" maxlength="20" class="mono" autocomplete="off" placeholder="ABCD-EFGH-JKMN"></label>
<label>Teacher token <input id="token" type="password" autocomplete="off"></label>
<button id="go">Open dashboard</button> <span id="openMsg" role="status"></span></section>
<section id="dash" hidden><h2 id="dashTitle">Room</h2>
<p>Students open <a id="joinLink" class="mono"></a> (or go to the site and add <code id="joinHash"></code> to the address).
Keep your teacher token secret: it is stored only in this browser.</p>
<div class="grid" aria-live="polite">
<div><div class="muted">students</div><div class="big" id="participants">0</div></div>
<div><div class="muted">visits played</div><div class="big" id="runs">0</div></div>
<div><div class="muted">joint success</div><div class="big" id="joint">–</div></div>
<div><div class="muted">task done</div><div class="big" id="task">–</div></div>
<div><div class="muted">no violations (test day)</div><div class="big" id="compliance">–</div></div>
<div><div class="muted">violations per visit (practice / test)</div><div class="big" id="viol">–</div></div>
</div>
<h3>Students</h3><table><thead><tr><th>pseudonym</th><th>visits</th><th>joint</th><th>task</th><th>compliant</th><th>probe right</th><th>last played</th></tr></thead><tbody id="students"></tbody></table>
<h3>Which rule did they name?</h3><div id="probes"></div>
<p><button id="csv">Download CSV</button> <span class="muted" id="updated"></span> <span class="err" id="dashErr" role="alert"></span></p>
</section>
</main>
<script src="/teach.js" defer></script>
</body></html>
`

// teachScript handles GET /teach.js: the teacher page's script, served as
// a file so that the Content-Security-Policy needs no inline script.
func (s *Server) teachScript(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err := io.WriteString(w, teachJS)
	return err
}

const teachJS = `"use strict";
const $ = id => document.getElementById(id);
const tokens = JSON.parse(localStorage.getItem("normgym.teacher") || "{}");
const pct = r => r && r.n ? Math.round(100 * r.rate) + "% (n=" + r.n + ")" : "–";
function cell(tr, text) { const td = document.createElement("td"); td.textContent = text; tr.appendChild(td); }
async function api(path, opts) {
  const res = await fetch(path, opts);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error || ("the server answered " + res.status));
  return body;
}
$("make").onclick = async () => {
  $("createMsg").textContent = "creating…";
  try {
    const headers = {"Content-Type": "application/json"};
    const key = $("teacherKey").value.trim();
    if (key) headers.Authorization = "Bearer " + key;
    const room = await api("/api/rooms", {method: "POST", headers,
      body: JSON.stringify({name: $("name").value.trim(), suite: $("suite").value})});
    tokens[room.code] = room.teacher_token;
    localStorage.setItem("normgym.teacher", JSON.stringify(tokens));
    const until = room.expires ? " It takes students until " + new Date(room.expires).toLocaleDateString() + "." : "";
    $("createMsg").textContent = "Room " + room.code + " created." + until + " Its teacher token (keep it to open the dashboard in another browser): " + room.teacher_token;
    location.hash = room.code;
    open(room.code);
  } catch (e) { $("createMsg").textContent = e.message; }
};
$("go").onclick = () => {
  const code = normCode($("code").value);
  if ($("token").value) { tokens[code] = $("token").value.trim(); localStorage.setItem("normgym.teacher", JSON.stringify(tokens)); }
  if (!tokens[code]) { $("openMsg").textContent = "Enter the room's teacher token."; return; }
  location.hash = code; open(code);
};
// normCode reads a join code as the server does: any case, spaces and
// dashes ignored, O for 0, I and L for 1, shown in groups of four.
function normCode(s) {
  const c = s.toUpperCase().replace(/[\s-]+/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  return c.length === 12 ? c.match(/.{4}/g).join("-") : s.trim().toUpperCase();
}
let timer = null;
function open(code) {
  $("dash").hidden = false;
  const join = location.origin + "/#room=" + code;
  $("joinLink").textContent = join; $("joinLink").href = join; $("joinHash").textContent = "#room=" + code;
  if (timer) clearInterval(timer);
  const load = async () => {
    try {
      const d = await api("/api/rooms/" + encodeURIComponent(code) + "/dashboard", {headers: {Authorization: "Bearer " + tokens[code]}});
      render(d); $("dashErr").textContent = "";
      $("updated").textContent = "updated " + new Date().toLocaleTimeString() + " · refreshes every 5 s";
    } catch (e) { $("dashErr").textContent = e.message; }
  };
  load(); timer = setInterval(load, 5000);
}
function render(d) {
  const s = d.stats;
  $("dashTitle").textContent = "Room " + d.code + (d.name ? " — " + d.name : "");
  $("participants").textContent = s.participants; $("runs").textContent = s.runs;
  $("joint").textContent = pct(s.joint); $("task").textContent = pct(s.task); $("compliance").textContent = pct(s.compliance);
  $("viol").textContent = (s.violations_per_day || []).map(v => v.toFixed(2)).join(" / ") || "–";
  const tb = $("students"); tb.textContent = "";
  for (const st of d.students || []) {
    const tr = document.createElement("tr");
    cell(tr, st.participant); cell(tr, st.runs); cell(tr, st.joint); cell(tr, st.task); cell(tr, st.compliance);
    cell(tr, st.probe_correct + " of " + st.probe_answered); cell(tr, st.last ? new Date(st.last).toLocaleString() : "");
    tb.appendChild(tr);
  }
  const pr = $("probes"); pr.textContent = "";
  for (const p of d.probes || []) {
    const total = (p.answers || []).reduce((a, b) => a + b, 0);
    const box = document.createElement("div"); const h = document.createElement("p");
    h.textContent = p.question + " (" + total + " answers)"; box.appendChild(h);
    const ul = document.createElement("ul");
    (p.options || []).forEach((o, k) => {
      const li = document.createElement("li");
      li.textContent = o + " — " + ((p.answers || [])[k] || 0);
      if (k === p.correct) { li.className = "right"; li.textContent += "  ✓ the rule"; }
      ul.appendChild(li);
    });
    box.appendChild(ul); pr.appendChild(box);
  }
}
$("csv").onclick = async () => {
  const code = location.hash.slice(1);
  try {
    const res = await fetch("/api/rooms/" + encodeURIComponent(code) + "/export.csv", {headers: {Authorization: "Bearer " + tokens[code]}});
    if (!res.ok) throw new Error("the server answered " + res.status);
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement("a"); a.href = url; a.download = "normgym-room-" + code + ".csv"; a.click();
    URL.revokeObjectURL(url);
  } catch (e) { $("dashErr").textContent = e.message; }
};
const start = location.hash ? normCode(decodeURIComponent(location.hash.slice(1))) : "";
if (start && tokens[start]) open(start); else if (start) $("code").value = start;
`

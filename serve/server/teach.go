package server

import (
	"io"
	"net/http"
)

// teachPage handles GET /teach: the classroom page for teachers. It
// creates a room (POST /api/rooms), keeps the teacher token in the
// browser's storage only, and shows the room's dashboard live (polling
// /api/rooms/CODE/dashboard) with a CSV export, and, when the teacher asks,
// the reveal for the class's discussion (/api/rooms/CODE/reveal). It needs
// no install and no account; all data is rendered as text, never as
// markup.
//
// The page is made to be projected: it shows the join code large, the
// students by the nicknames they chose (never a pseudonym), and the
// teacher token only behind a "Show" button; each student's results are
// folded away, and the rule only on the reveal, after a warning while
// students still play.
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
body{font:18px/1.5 system-ui,sans-serif;margin:1.5rem auto;max-width:66rem;padding:0 1rem;color:#1d1d1d;background:#fff}
h1{margin-bottom:.2rem}section{border:1px solid #ccc;border-radius:8px;padding:1rem 1.2rem;margin:1.2rem 0}
label{display:block;margin:.4rem 0}input,select,button{font:inherit;padding:.35rem .6rem}
fieldset{border:1px solid #ccc;border-radius:6px;margin:.6rem 0}fieldset label{font-weight:normal}
button{background:#1b3a6b;color:#fff;border:0;border-radius:6px;cursor:pointer;min-height:2.4rem}button:focus{outline:3px solid #f0b400}
button.quiet{background:#fff;color:#1b3a6b;border:2px solid #1b3a6b}
code,.mono{font-family:ui-monospace,monospace;background:#f3f3f3;padding:.1rem .3rem;border-radius:4px;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:right}
th:first-child,td:first-child{text-align:left}.big{font-size:1.8rem;font-weight:bold}.muted{color:#555}.err{color:#a00000;font-weight:bold}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(9.5rem,1fr));gap:.8rem;margin:.6rem 0 1rem}.right{color:#0a6b2a;font-weight:bold}
.join{background:#f3f5fb;border-left:6px solid #1b3a6b;padding:.6rem 1rem;border-radius:6px}
.code{font:bold 2.6rem/1.2 ui-monospace,monospace;letter-spacing:.08em;display:block;margin:.2rem 0}
.st-playing{color:#7a4b00;font-weight:bold}.st-done{color:#0a6b2a;font-weight:bold}
.rule{font-size:2rem;font-weight:bold;margin:.3rem 0 .8rem;padding:.5rem 1rem;background:#fff6d6;border:2px solid #c9a400;border-radius:8px}
.bar{display:grid;grid-template-columns:minmax(10rem,2fr) 3fr 3rem;gap:.6rem;align-items:center;margin:.3rem 0}
.bar .fill{height:1.3rem;background:#1b3a6b;border-radius:3px;min-width:2px}.bar.correct .fill{background:#0a6b2a}
.bar.correct .opt{font-weight:bold;color:#0a6b2a}.warn{background:#fff1e0;border:2px solid #b35c00;border-radius:8px;padding:.6rem 1rem}
article.visit{border-top:2px solid #ddd;padding-top:.8rem;margin-top:.8rem}article.visit:first-child{border-top:0;margin-top:0;padding-top:0}
details summary{cursor:pointer;font-weight:bold}
.chips{list-style:none;padding:0;margin:.4rem 0 1rem;display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:.5rem}
.chips li{border:2px solid #ccc;border-radius:8px;padding:.35rem .7rem;display:flex;flex-direction:column}
.chips li b{font-size:1.15rem;overflow-wrap:anywhere}.chips li.playing{border-color:#b35c00}.chips li.done{border-color:#0a6b2a}
</style></head><body><main>
<h1>NormGym for classrooms</h1>
<p class="muted">Your students join a small community with an unwritten rule and try to work it out. No accounts: each student picks a nickname (or a seat number) and you see the class live. <a href="/">Try it yourself</a> · <a href="/leaderboard">leaderboard</a></p>
<section id="create" aria-labelledby="create-h"><h2 id="create-h">Create a room</h2>
<label>Room name (optional) <input id="name" maxlength="60" placeholder="e.g. Period 3"></label>
<label>Teacher key <input id="teacherKey" type="password" autocomplete="off" placeholder="from this site's operator"></label>
<p class="muted">Creating a room needs a teacher key from whoever runs this site, unless the site lets anyone create rooms. Rooms take students for a limited time (the site says how long when you create one).</p>
<fieldset><legend>Who plays what</legend>
<label><input type="radio" name="mode" value="same" checked> Everyone plays the same visit: one rule for the whole class to discuss afterwards</label>
<label><input type="radio" name="mode" value="each"> Each student gets a different visit: the class covers many rules (as the research does)</label>
</fieldset>
<label>Visit set <select id="suite"><option value="mini">mini (60 short visits)</option><option value="standard">standard (752 visits)</option><option value="heldout">heldout (120 visits)</option></select></label>
<button id="make">Create room</button> <span id="createMsg" role="status"></span></section>
<section id="open" aria-labelledby="open-h"><h2 id="open-h">Open a room's dashboard</h2>
<label>Join code <input id="code" maxlength="20" class="mono" autocomplete="off" placeholder="ABCD-EFGH-JKMN"></label>
<label>Teacher token <input id="token" type="password" autocomplete="off"></label>
<button id="go">Open dashboard</button> <span id="openMsg" role="status"></span></section>
<section id="dash" hidden aria-labelledby="dashTitle"><h2 id="dashTitle">Room</h2>
<div class="join"><p>Students: open <strong id="joinSite" class="mono"></strong>, choose <strong>Join a class</strong> and type the code</p>
<span class="code" id="joinCode"></span>
<p>or open the link <a id="joinLink" class="mono"></a>. Each student picks a nickname or a seat number: not their real name.</p></div>
<p id="modeNote" class="muted"></p>
<h3 id="students-h">Students</h3><ul id="students" class="chips" aria-labelledby="students-h"></ul>
<div class="grid" aria-live="polite">
<div><div class="muted">students joined</div><div class="big" id="members">0</div></div>
<div><div class="muted">playing now</div><div class="big" id="playing">0</div></div>
<div><div class="muted">visits sent</div><div class="big" id="runs">0</div></div>
<div><div class="muted">task done and no rule broken</div><div class="big" id="joint">–</div></div>
<div><div class="muted">task done</div><div class="big" id="task">–</div></div>
<div><div class="muted">no rule broken (test day)</div><div class="big" id="compliance">–</div></div>
</div>
<details id="results"><summary>Each student's results (for your screen, not the projector)</summary>
<table><thead><tr><th scope="col">nickname</th><th scope="col">task done</th><th scope="col">no rule broken</th><th scope="col">both</th><th scope="col">rule named</th><th scope="col">last sent</th></tr></thead><tbody id="results-rows"></tbody></table></details>
<p><button id="revealBtn">Reveal the rule</button> <button id="csv" class="quiet">Download CSV</button> <span class="muted" id="updated"></span> <span class="err" id="dashErr" role="alert"></span></p>
<div id="revealWarn" class="warn" hidden><p id="revealWarnText"></p><p><button id="revealAnyway">Reveal anyway</button> <button id="revealCancel" class="quiet">Not yet</button></p></div>
<p><button id="showToken" class="quiet" aria-expanded="false" aria-controls="tokenBox">Show teacher token</button>
<span id="tokenBox" hidden>Teacher token: <code id="tokenText"></code> (it opens this dashboard in another browser: keep it secret)</span></p>
<p><button id="otherRoom" class="quiet">Create or open another room</button></p>
</section>
<section id="reveal" hidden aria-labelledby="revealTitle"><h2 id="revealTitle" tabindex="-1">The rule</h2>
<div id="revealBody"></div>
<p><button id="backBtn" class="quiet">Back to the dashboard</button> <span class="err" id="revealErr" role="alert"></span></p></section>
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
const of = (k, n) => n ? k + " of " + n : "–";
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
function cell(tr, text, cls) { tr.appendChild(el("td", text, cls)); }
async function api(path, opts) {
  let res;
  try { res = await fetch(path, opts); } catch (e) { throw Object.assign(new Error(e.message), {code: "offline"}); }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw Object.assign(new Error(body.error || ("the server answered " + res.status)), {code: body.code || ""});
  return body;
}
// words says what went wrong in words for a teacher, and what to do on
// this page: the server's messages are written for programs too (they
// name the Authorization header). where is "create" or "room".
function words(where, e) {
  const say = {
    offline: "The server could not be reached: check the connection, then try again.",
    rate_limited: "Too many requests from this network just now: wait a minute, then try again.",
    unauthorized: where === "create"
      ? "Creating a room needs a teacher key from whoever runs this site: type it in the Teacher key box above, then press Create room again."
      : "This browser does not have this room's teacher token: type it under Open a room's dashboard.",
  }[e.code];
  if (say) return say;
  const m = String(e.message || e);
  return m.charAt(0).toUpperCase() + m.slice(1) + (/[.!?]$/.test(m) ? "" : ".");
}
function keep() { localStorage.setItem("normgym.teacher", JSON.stringify(tokens)); }
$("make").onclick = async () => {
  $("createMsg").textContent = "creating…";
  try {
    const headers = {"Content-Type": "application/json"};
    const key = $("teacherKey").value.trim();
    if (key) headers.Authorization = "Bearer " + key;
    const same = document.querySelector('input[name="mode"]:checked').value === "same";
    const room = await api("/api/rooms", {method: "POST", headers,
      body: JSON.stringify({name: $("name").value.trim(), suite: $("suite").value, same_visit: same})});
    tokens[room.code] = room.teacher_token;
    keep();
    const until = room.expires ? " It takes students until " + new Date(room.expires).toLocaleDateString() + "." : "";
    // The token is not printed: the page may be on a projector (Show teacher token).
    $("createMsg").textContent = "Room " + room.code + " created." + until + " Its teacher token is kept in this browser.";
    location.hash = room.code;
    open(room.code);
  } catch (e) { $("createMsg").textContent = words("create", e); }
};
$("go").onclick = () => {
  const code = normCode($("code").value);
  if ($("token").value.trim()) { tokens[code] = $("token").value.trim(); keep(); }
  $("token").value = "";
  if (!tokens[code]) { $("openMsg").textContent = "Enter the room's teacher token."; return; }
  location.hash = code; open(code);
};
// normCode reads a join code as the server does: any case, spaces and
// dashes ignored, O for 0, I and L for 1, shown in groups of four.
function normCode(s) {
  const c = s.toUpperCase().replace(/[\s-]+/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  return c.length === 12 ? c.match(/.{4}/g).join("-") : s.trim().toUpperCase();
}
let timer = null, current = "", revealing = false, last = null;
// open shows a room's dashboard in the place of the forms, at the top of
// the page, as a projector shows it.
function open(code) {
  current = code;
  $("create").hidden = true; $("open").hidden = true;
  $("dash").hidden = false; $("reveal").hidden = true; revealing = false;
  window.scrollTo(0, 0);
  $("revealWarn").hidden = true;
  $("tokenBox").hidden = true; $("tokenText").textContent = ""; $("showToken").setAttribute("aria-expanded", "false");
  $("showToken").textContent = "Show teacher token";
  $("joinSite").textContent = location.host;
  $("joinCode").textContent = code;
  const join = location.origin + "/#room=" + code;
  $("joinLink").textContent = join; $("joinLink").href = join;
  if (timer) clearInterval(timer);
  load(); timer = setInterval(load, 5000);
}
async function load() {
  const code = current;
  try {
    const auth = {headers: {Authorization: "Bearer " + tokens[code]}};
    if (revealing) renderReveal(await api("/api/rooms/" + encodeURIComponent(code) + "/reveal", auth));
    else render(await api("/api/rooms/" + encodeURIComponent(code) + "/dashboard", auth));
    $("dashErr").textContent = ""; $("revealErr").textContent = "";
    $("updated").textContent = "updated " + new Date().toLocaleTimeString() + " · refreshes every 5 s";
  } catch (e) { $(revealing ? "revealErr" : "dashErr").textContent = words("room", e); }
}
$("otherRoom").onclick = () => {
  if (timer) clearInterval(timer);
  timer = null; current = ""; revealing = false;
  $("dash").hidden = true; $("reveal").hidden = true; $("create").hidden = false; $("open").hidden = false;
  history.replaceState(null, "", location.pathname); $("name").focus();
};
$("showToken").onclick = () => {
  const show = $("tokenBox").hidden;
  $("tokenBox").hidden = !show;
  $("tokenText").textContent = show ? (tokens[current] || "") : "";
  $("showToken").setAttribute("aria-expanded", String(show));
  $("showToken").textContent = show ? "Hide teacher token" : "Show teacher token";
};
function status(st) {
  if (st.playing) return ["playing", "st-playing"];
  if (st.runs > 0) return ["finished", "st-done"];
  return ["joined", ""];
}
function render(d) {
  last = d;
  const s = d.stats;
  $("dashTitle").textContent = "Room " + d.code + (d.name ? " — " + d.name : "");
  $("modeNote").textContent = d.same_visit ? "Everyone plays the same visit: after they finish, reveal its rule and talk it over."
    : "Each student gets a visit of a different rule (" + d.visits + " visits in the set).";
  const students = d.students || [];
  $("members").textContent = d.members; $("runs").textContent = s.runs;
  $("playing").textContent = students.filter(st => st.playing).length;
  $("joint").textContent = pct(s.joint); $("task").textContent = pct(s.task); $("compliance").textContent = pct(s.compliance);
  const list = $("students"), rb = $("results-rows"); list.textContent = ""; rb.textContent = "";
  students.forEach((st, i) => {
    const name = st.nickname || "(no nickname " + (i + 1) + ")";
    const [word, cls] = status(st);
    const li = el("li", undefined, st.playing ? "playing" : st.runs > 0 ? "done" : "");
    li.appendChild(el("b", name));
    li.appendChild(el("span", word + (st.runs > 1 ? " · " + st.runs + " visits" : ""), cls));
    list.appendChild(li);
    const rr = document.createElement("tr");
    cell(rr, name); cell(rr, of(st.task, st.runs)); cell(rr, of(st.compliance, st.runs)); cell(rr, of(st.joint, st.runs));
    cell(rr, of(st.probe_correct, st.probe_answered)); cell(rr, st.last ? new Date(st.last).toLocaleTimeString() : "");
    rb.appendChild(rr);
  });
  if (!students.length) list.appendChild(el("li", "Nobody has joined yet."));
}
$("revealBtn").onclick = () => {
  const playing = last ? (last.students || []).filter(st => st.playing).length : 0;
  if (playing > 0) {
    $("revealWarnText").textContent = playing + (playing === 1 ? " student is" : " students are") +
      " still playing. If the rule is on the screen now, they will see it before they finish.";
    $("revealWarn").hidden = false; $("revealAnyway").focus();
    return;
  }
  showReveal();
};
$("revealAnyway").onclick = showReveal;
$("revealCancel").onclick = () => { $("revealWarn").hidden = true; $("revealBtn").focus(); };
$("backBtn").onclick = () => { revealing = false; $("reveal").hidden = true; $("dash").hidden = false; window.scrollTo(0, 0); load(); $("revealBtn").focus(); };
function showReveal() {
  revealing = true; $("revealWarn").hidden = true; $("dash").hidden = true; $("reveal").hidden = false;
  $("revealBody").textContent = "Loading…"; window.scrollTo(0, 0); $("revealTitle").focus(); load();
}
function renderReveal(rv) {
  $("revealTitle").textContent = (rv.same_visit ? "The rule" : "The rules") + " — room " + rv.code + (rv.name ? " (" + rv.name + ")" : "");
  const body = $("revealBody"); body.textContent = "";
  if (rv.playing > 0) body.appendChild(el("p", rv.playing + (rv.playing === 1 ? " student is" : " students are") + " still playing.", "warn"));
  if (!rv.visits.length) body.appendChild(el("p", "Nobody has sent a visit yet."));
  for (const v of rv.visits) {
    const a = el("article", undefined, "visit");
    const h = el("h3", "Visit: " + v.label); a.appendChild(h);
    const id = el("p", undefined, "muted"); id.append("Visit id "); id.appendChild(el("code", v.visit)); a.appendChild(id);
    if (v.rule) { a.appendChild(el("p", "The rule was")); a.appendChild(el("p", "“" + v.rule + "”", "rule")); }
    else a.appendChild(el("p", "There was no rule: this was a control visit.", "rule"));
    const g = el("div", undefined, "grid");
    const stat = (label, value) => { const d = el("div"); d.appendChild(el("div", label, "muted")); d.appendChild(el("div", value, "big")); g.appendChild(d); };
    stat("students who finished", String(v.students));
    stat("task done", of(v.task, v.runs)); stat("no rule broken (test day)", of(v.compliance, v.runs)); stat("both", of(v.joint, v.runs));
    stat("sanctions they got (practice / test day)", v.sanctions.join(" / "));
    a.appendChild(g);
    if (v.probe) {
      a.appendChild(el("h4", "Which rule did the class pick?"));
      const total = v.probe.answers.reduce((x, y) => x + y, 0);
      v.probe.options.forEach((o, k) => {
        const n = v.probe.answers[k] || 0;
        const row = el("div", undefined, "bar" + (k === v.probe.correct ? " correct" : ""));
        row.appendChild(el("span", o + (k === v.probe.correct ? " ✓ the rule" : ""), "opt"));
        const track = el("span"); const fill = el("span", undefined, "fill");
        fill.style.width = (total ? Math.round(100 * n / total) : 0) + "%"; fill.style.display = "block";
        track.appendChild(fill); track.setAttribute("aria-hidden", "true"); row.appendChild(track);
        row.appendChild(el("span", String(n)));
        a.appendChild(row);
      });
      a.appendChild(el("p", total + (total === 1 ? " answer" : " answers"), "muted"));
    }
    if (v.sanctioned && v.sanctioned.length) {
      a.appendChild(el("h4", "What they had just done when they got a sanction"));
      const ul = el("ul");
      for (const s of v.sanctioned) ul.appendChild(el("li", s.did + " — " + s.n + (s.n === 1 ? " time" : " times")));
      a.appendChild(ul);
    } else if (v.runs) a.appendChild(el("p", "Nobody got a sanction on this visit."));
    body.appendChild(a);
  }
}
$("csv").onclick = async () => {
  const code = current;
  try {
    const res = await fetch("/api/rooms/" + encodeURIComponent(code) + "/export.csv", {headers: {Authorization: "Bearer " + tokens[code]}});
    if (!res.ok) throw Object.assign(new Error("the server answered " + res.status), {code: res.status === 401 || res.status === 403 ? "unauthorized" : ""});
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement("a"); a.href = url; a.download = "normgym-room-" + code + ".csv"; a.click();
    URL.revokeObjectURL(url);
  } catch (e) { $("dashErr").textContent = words("room", e); }
};
const start = location.hash ? normCode(decodeURIComponent(location.hash.slice(1))) : "";
if (start && tokens[start]) open(start); else if (start) $("code").value = start;
`

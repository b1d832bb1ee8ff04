package server

import (
	"io"
	"net/http"
)

// studyPage handles GET /study: the researcher's page. It creates a study
// (POST /api/studies, with the admin token or a study key), shows its
// link for the platform, its researcher token and salt once, and the
// study's dashboard (polling /api/study/CODE/dashboard): each cell's n /
// target, completion and exclusion rates with reasons, median time, joint
// success with its interval and the comparison rows; the rules, with a
// form to change them (recorded in the data card); and the exports. The
// researcher token is kept in this browser's storage only; all data is
// rendered as text, never as markup.
func (s *Server) studyPage(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err := io.WriteString(w, studyHTML)
	return err
}

// studyScript handles GET /study.js: the page's script, a file so that
// the Content-Security-Policy needs no inline script.
func (s *Server) studyScript(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err := io.WriteString(w, studyJS)
	return err
}

const studyHTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>NormGym studies</title>
<style>
body{font:17px/1.5 system-ui,sans-serif;margin:1.5rem auto;max-width:72rem;padding:0 1rem;color:#1d1d1d;background:#fff}
section{border:1px solid #ccc;border-radius:8px;padding:1rem 1.2rem;margin:1.2rem 0}
label{display:block;margin:.4rem 0}input,select,button,textarea{font:inherit;padding:.3rem .5rem}textarea{width:100%;box-sizing:border-box}
fieldset{border:1px solid #ccc;border-radius:6px;margin:.6rem 0}fieldset label{display:inline-block;margin-right:1rem}
button{background:#1b3a6b;color:#fff;border:0;border-radius:6px;cursor:pointer;min-height:2.3rem}button:focus{outline:3px solid #f0b400}
button.quiet{background:#fff;color:#1b3a6b;border:2px solid #1b3a6b}
code,.mono{font-family:ui-monospace,monospace;background:#f3f3f3;padding:.1rem .3rem;border-radius:4px;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:.92rem}th,td{border-bottom:1px solid #ddd;padding:.3rem .4rem;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}.muted{color:#555}.err{color:#a00000;font-weight:bold}.full{color:#0a6b2a;font-weight:bold}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.8rem;margin:.6rem 0 1rem}.big{font-size:1.6rem;font-weight:bold}
.secret{background:#fff6d6;border:2px solid #c9a400;border-radius:8px;padding:.6rem 1rem}td ul{margin:0;padding-left:1rem;text-align:left}
</style></head><body><main>
<h1>NormGym studies</h1>
<p class="muted">A human baseline you can publish: recruit through a platform, fill each cell to its target, check that people understood and tried, with exclusions declared before the data. <a href="/">The site</a> · <a href="/leaderboard">leaderboard</a></p>
<section id="create" aria-labelledby="create-h"><h2 id="create-h">Create a study</h2>
<label>Admin token or study key <input id="cred" type="password" autocomplete="off"></label>
<label>Name <input id="name" maxlength="100" placeholder="e.g. Norm learning, pilot 1"></label>
<fieldset><legend>Cells</legend><label><input type="radio" name="cells" value="norms" checked> norms × conditions</label><label><input type="radio" name="cells" value="families"> families × conditions</label>
<label>Norms or families, one per line or comma-separated <textarea id="rows" rows="3" placeholder="place.color=red, order.bow=market"></textarea></label>
<p>Conditions: <label><input type="checkbox" name="cond" value="observe" checked> observe</label><label><input type="checkbox" name="cond" value="peers"> peers</label><label><input type="checkbox" name="cond" value="solo"> solo</label><label><input type="checkbox" name="cond" value="told"> told</label><label><input type="checkbox" name="cond" value="control"> control</label></p>
<label>Target per cell (completed, not excluded) <input id="target" type="number" min="1" value="20"></label>
<label>Suite <select id="suite"><option>standard</option><option>hard</option><option>transfer</option><option>mini</option></select></label></fieldset>
<fieldset><legend>Consent</legend><label>Consent version <input id="cv" maxlength="40" placeholder="e.g. IRB-2026-014 v2"></label>
<label>Consent text <textarea id="ct" rows="5"></textarea></label></fieldset>
<fieldset><legend>Platform and payment</legend><label>Platform <select id="platform"><option value="prolific">Prolific</option><option value="mturk">MTurk</option><option value="sona">SONA</option><option value="none">none</option></select></label>
<label>SONA's id parameter (SONA only) <input id="idparam" placeholder="id"></label>
<label>Completion code <input id="code" maxlength="40"></label>
<label>Redirect URL ({code}: the completion code; {id}: the platform id) <input id="redirect" maxlength="500" placeholder="https://app.prolific.com/submissions/complete?cc={code}"></label>
<label>Time limit (minutes) <input id="limit" type="number" min="5" max="1440" value="60"></label>
<label>Payment note <input id="pay" maxlength="500"></label>
<label>Debrief <textarea id="debrief" rows="3"></textarea></label></fieldset>
<fieldset><legend>Exclusion rules, declared now (changes later are recorded in the data card)</legend>
<label><input type="checkbox" id="r-comp" checked> exclude a failed comprehension check: fewer than <input id="r-comp-v" type="number" min="0" max="3" value="3" aria-label="correct answers needed"> of 3 right</label>
<label><input type="checkbox" id="r-act" checked> exclude a visit of fewer than <input id="r-act-v" type="number" min="0" max="400" value="10" aria-label="actions needed"> actions that are not waits</label>
<label><input type="checkbox" id="r-idle" checked> exclude a visit idle for more than <input id="r-idle-v" type="number" min="0.5" max="1440" step="0.5" value="5" aria-label="minutes idle"> minutes</label>
<label><input type="checkbox" id="r-rep"> exclude a visit with one action repeated more than <input id="r-rep-v" type="number" min="1" max="400" value="40" aria-label="repeats allowed"> times in a row</label></fieldset>
<button id="make">Create the study</button> <span id="createMsg" role="status"></span></section>
<section id="open" aria-labelledby="open-h"><h2 id="open-h">Open a study's dashboard</h2>
<label>Study code <input id="ocode" class="mono" autocomplete="off" placeholder="ABCD-EFGH-JKMN"></label>
<label>Researcher token (or the admin token) <input id="otoken" type="password" autocomplete="off"></label>
<button id="go">Open the dashboard</button> <span id="openMsg" role="status"></span></section>
<section id="created" hidden class="secret" aria-labelledby="created-h"><h2 id="created-h" tabindex="-1">Your study was created</h2>
<p>Give the platform this link: <code id="link"></code></p>
<p>Researcher token (opens the dashboard; shown once, kept in this browser): <code id="rtoken"></code></p>
<p>Salt (shown once, in no export): <code id="salt"></code>. The export holds each platform id as HMAC-SHA256(salt, id): keep the salt with your platform records to match rows, and never publish it.</p></section>
<section id="dash" hidden aria-labelledby="dashTitle"><h2 id="dashTitle">Study</h2>
<p id="statusLine"></p><p class="muted" id="publicRow"></p>
<div class="grid" aria-live="polite" id="totals"></div>
<h3 id="cells-h">Cells</h3><div style="overflow-x:auto" tabindex="0" role="region" aria-labelledby="cells-h"><table><thead><tr><th scope="col">cell</th><th scope="col">n / target</th><th scope="col">entered</th><th scope="col">playing</th><th scope="col">abandoned</th><th scope="col">completed</th><th scope="col">excluded (why)</th><th scope="col">completion</th><th scope="col">exclusion</th><th scope="col">median min</th><th scope="col">joint success [95% CI]</th><th scope="col">compared on the same cell</th></tr></thead><tbody id="cells"></tbody></table></div>
<h3>Exclusion rules</h3><ul id="rules"></ul><ul id="changes"></ul>
<details><summary>Change the rules</summary><p class="muted">One rule per line: NAME KIND VALUE (kinds: comprehension, min_actions, max_idle_minutes, max_repeat). The change is recorded with its time and reason.</p>
<label>Rules <textarea id="newRules" rows="4"></textarea></label><label>Why <input id="why" maxlength="500"></label><button id="saveRules">Change the rules</button> <span id="rulesMsg" role="status"></span></details>
<p><button id="csv" class="quiet">Export CSV</button> <button id="jsonl" class="quiet">Export JSONL</button> <span class="muted" id="updated"></span> <span class="err" id="dashErr" role="alert"></span></p>
<p><button id="other" class="quiet">Create or open another study</button></p></section>
</main><script src="/study.js" defer></script></body></html>
`

const studyJS = `"use strict";
const $ = id => document.getElementById(id);
const tokens = JSON.parse(localStorage.getItem("normgym.studies") || "{}");
function keep() { localStorage.setItem("normgym.studies", JSON.stringify(tokens)); }
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }
function td(tr, v, cls) { const c = el("td", undefined, cls); if (v instanceof Node) c.appendChild(v); else c.textContent = v; tr.appendChild(c); }
const pct = r => r && r.n ? Math.round(100 * r.rate) + "%" : "–";
const ci = r => r && r.n ? r.rate.toFixed(2) + " [" + r.lo.toFixed(2) + ", " + r.hi.toFixed(2) + "] n=" + r.n : "–";
async function api(path, opts) {
  const res = await fetch(path, opts);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error || ("the server answered " + res.status));
  return body;
}
function normCode(s) {
  const c = s.toUpperCase().replace(/[\s-]+/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  return c.length === 12 ? c.match(/.{4}/g).join("-") : s.trim().toUpperCase();
}
function ruleList() {
  const out = [], add = (id, name, kind) => { if ($(id).checked) out.push({name, kind, value: Number($(id + "-v").value)}); };
  add("r-comp", "comprehension", "comprehension"); add("r-act", "effort", "min_actions");
  add("r-idle", "idle", "max_idle_minutes"); add("r-rep", "mashing", "max_repeat");
  return out;
}
function design() {
  const cells = document.querySelector('input[name="cells"]:checked').value;
  const rows = $("rows").value.split(/[\n,]+/).map(s => s.trim()).filter(Boolean);
  const d = {name: $("name").value.trim(), suite: $("suite").value, cells, conditions: [...document.querySelectorAll('input[name="cond"]:checked')].map(c => c.value),
    target: Number($("target").value), consent_version: $("cv").value.trim(), consent_text: $("ct").value, platform: $("platform").value,
    completion_code: $("code").value.trim(), redirect_url: $("redirect").value.trim(), time_limit_minutes: Number($("limit").value),
    rules: ruleList(), payment_note: $("pay").value.trim(), debrief: $("debrief").value};
  if (cells === "norms") d.norms = rows; else d.families = rows;
  if (d.platform === "sona" && $("idparam").value.trim()) d.id_param = $("idparam").value.trim();
  return d;
}
$("make").onclick = async () => {
  $("createMsg").textContent = "creating…";
  try {
    const c = await api("/api/studies", {method: "POST", headers: {"Content-Type": "application/json", Authorization: "Bearer " + $("cred").value.trim()},
      body: JSON.stringify(design())});
    tokens[c.code] = c.token; keep();
    $("createMsg").textContent = "Study " + c.code + " created with " + c.cells.length + " cells.";
    $("link").textContent = location.origin + c.link; $("rtoken").textContent = c.token; $("salt").textContent = c.salt;
    $("created").hidden = false; history.replaceState(null, "", "#" + c.code); open(c.code); $("created-h").focus();
  } catch (e) { $("createMsg").textContent = e.message; }
};
$("go").onclick = () => {
  const code = normCode($("ocode").value);
  if ($("otoken").value.trim()) { tokens[code] = $("otoken").value.trim(); keep(); }
  $("otoken").value = "";
  if (!tokens[code]) { $("openMsg").textContent = "Enter the study's researcher token."; return; }
  history.replaceState(null, "", "#" + code); open(code);
};
let timer = null, current = "";
function auth() { return {headers: {Authorization: "Bearer " + tokens[current]}}; }
function open(code) {
  current = code; $("create").hidden = true; $("open").hidden = true; $("dash").hidden = false;
  if (timer) clearInterval(timer);
  load(); timer = setInterval(load, 10000);
}
async function load() {
  try {
    render(await api("/api/study/" + encodeURIComponent(current) + "/dashboard", auth()));
    $("dashErr").textContent = ""; $("updated").textContent = "updated " + new Date().toLocaleTimeString() + " · refreshes every 10 s";
  } catch (e) { $("dashErr").textContent = e.message; }
}
function reasons(m) { return Object.keys(m || {}).sort().map(k => k + " " + m[k]).join(", "); }
function compare(list) {
  const ul = el("ul");
  for (const c of list || []) ul.appendChild(el("li", (c.client === "human" ? "public human row" : c.agent + " (" + c.provenance + ")") +
    (c.source === "same visits" ? ", same visits: " : ", suite: ") + ci(c.joint)));
  return ul;
}
function render(d) {
  const t = d.totals, status = {open: "open: places are free", busy: "every free place is held by someone playing", full: "full: every cell has its target; the study is closed"};
  $("dashTitle").textContent = "Study " + d.code + " — " + d.design.name;
  $("statusLine").textContent = "Status: " + (status[d.status] || d.status) + ". Platform " + d.design.platform + ", consent " + d.design.consent_version +
    ", time limit " + d.design.time_limit_minutes + " min, created by " + d.creator + ".";
  $("publicRow").textContent = d.public_row;
  const g = $("totals"); g.textContent = "";
  const stat = (label, value, sub) => { const x = el("div"); x.appendChild(el("div", label, "muted")); x.appendChild(el("div", value, "big")); if (sub) x.appendChild(el("div", sub, "muted")); g.appendChild(x); };
  stat("n / target", t.n + " / " + t.target); stat("entered", String(t.entered)); stat("playing now", String(t.in_progress));
  stat("completion", pct(t.completion)); stat("exclusion", pct(t.exclusion)); stat("median minutes", String(t.median_minutes));
  stat("joint success", pct(t.joint), t.joint.n ? "95% CI [" + t.joint.lo.toFixed(2) + ", " + t.joint.hi.toFixed(2) + "], n=" + t.joint.n : "");
  const body = $("cells"); body.textContent = "";
  for (const c of d.cells) {
    const tr = el("tr"); tr.dataset.cell = c.cell;
    td(tr, c.cell); td(tr, c.n + " / " + c.target, c.full ? "full" : ""); td(tr, String(c.entered)); td(tr, String(c.in_progress));
    td(tr, String(c.abandoned)); td(tr, String(c.completed)); td(tr, c.excluded + (c.excluded ? " (" + reasons(c.reasons) + ")" : ""));
    td(tr, pct(c.completion)); td(tr, pct(c.exclusion)); td(tr, String(c.median_minutes)); td(tr, ci(c.joint)); td(tr, compare(c.compare));
    body.appendChild(tr);
  }
  const rl = $("rules"); rl.textContent = "";
  for (const r of d.design.rules) rl.appendChild(el("li", r.name + ": " + r.kind + " " + r.value));
  if (!d.design.rules.length) rl.appendChild(el("li", "No exclusion rules."));
  const cl = $("changes"); cl.textContent = "";
  for (const c of d.changes) cl.appendChild(el("li", new Date(c.at).toLocaleString() + ": rules changed " + (c.after_start ? "after " + c.participants + " participants entered" : "before the first participant") + " — " + c.note));
  if (!$("newRules").value) $("newRules").value = d.design.rules.map(r => r.name + " " + r.kind + " " + r.value).join("\n");
}
$("saveRules").onclick = async () => {
  const rules = $("newRules").value.split("\n").map(l => l.trim()).filter(Boolean).map(l => { const [name, kind, value] = l.split(/\s+/); return {name, kind, value: Number(value || 0)}; });
  try {
    const h = auth(); h.headers["Content-Type"] = "application/json";
    render(await api("/api/study/" + encodeURIComponent(current) + "/rules", {method: "PUT", headers: h.headers, body: JSON.stringify({rules, note: $("why").value.trim()})}));
    $("rulesMsg").textContent = "Changed; the data card records it.";
  } catch (e) { $("rulesMsg").textContent = e.message; }
};
async function download(format) {
  try {
    const res = await fetch("/api/study/" + encodeURIComponent(current) + "/export?format=" + format, auth());
    if (!res.ok) throw new Error("the server answered " + res.status);
    const url = URL.createObjectURL(await res.blob());
    const a = document.createElement("a"); a.href = url; a.download = "normgym-study-" + current + "." + format; a.click();
    URL.revokeObjectURL(url);
  } catch (e) { $("dashErr").textContent = e.message; }
}
$("csv").onclick = () => download("csv"); $("jsonl").onclick = () => download("jsonl");
$("other").onclick = () => {
  if (timer) clearInterval(timer);
  timer = null; current = ""; $("dash").hidden = true; $("created").hidden = true; $("create").hidden = false; $("open").hidden = false;
  history.replaceState(null, "", location.pathname);
};
const start = location.hash ? normCode(decodeURIComponent(location.hash.slice(1))) : "";
if (start && tokens[start]) open(start); else if (start) $("ocode").value = start;
`

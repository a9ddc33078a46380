// The card table page: shows what the server sends, sends the person's clicks. No game rules and no
// game names here: the server's generic view (play.core.GameAdapter) says what lies where, every
// move is checked on the server (play.core.Table), which answers with the new view.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { ws: null, setup: null, view: null, table: sessionStorage.getItem("table"), replay: null, frame: 0,
                rounds: [], suits: localStorage.getItem("suits") || "french", shapeAsked: 0 };

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
// A card token: a name (CJ, C6), "#k" a card the person cannot see but may choose, "##" a card back.
function cardHTML(token, cls = "", attrs = "") {
  if (token.startsWith("#")) {
    const label = token === "##" ? "" : token;
    return `<span class="card back ${cls}" data-card="${esc(token)}" ${attrs}>${cardBackSVG(label)}</span>`;
  }
  return `<span class="card ${cls}" data-card="${esc(token)}" ${attrs}>${cardSVG(token, state.suits)}</span>`;
}
function who(seat) { return seat === state.view.human_seat ? "You" : state.view.names[seat]; }
function labelHTML(label) {  // card names inside a text drawn as small cards
  return esc(label).replace(/\b([CSHD][2-9TJQKA])\b/g, (m) => cardHTML(m, "small"));
}
function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

// --- connection ------------------------------------------------------------------------------
function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  state.ws = ws;
  ws.onopen = () => { if (state.table) send({ type: "join", table: state.table }); else showSetup(); };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => { toast("Connection lost: reconnecting..."); setTimeout(connect, 1500); };
}
function send(msg) { state.ws.send(JSON.stringify(msg)); }

let messages = 0;
function onMessage(msg) {
  document.body.dataset.messages = String(++messages);  // lets a test wait for the answer to a click
  if (msg.type === "state") {
    state.table = msg.table;
    sessionStorage.setItem("table", msg.table);
    state.view = msg.view;
    for (const e of msg.events) {
      logEvent(e);
      if (e.kind === "round_end") state.rounds.push(e.showdown);
    }
    $("setup").hidden = true;
    $("table").hidden = false;
    render();
    const ended = msg.events.some((e) => e.kind === "deal_end") || (msg.events.length === 0 && msg.view.over);
    const lastShowdown = ended && msg.view.result && msg.view.result.showdown;
    if (lastShowdown && msg.events.some((e) => e.kind === "round_end")) state.rounds.pop();  // the result shows it
    if (state.rounds.length) showRound(); else $("round").hidden = true;
    if (msg.view.over && ended) showResult();
    else $("result").hidden = true;
  } else if (msg.type === "error") {
    const legal = (msg.legal || []).map((m) => m.key).join(", ");
    toast(msg.message + (legal ? ` (legal: ${legal})` : ""));
    if (msg.view) { state.view = msg.view; render(); }
    if (/no such table/.test(msg.message)) { sessionStorage.removeItem("table"); state.table = null; showSetup(); }
    if ($("analysis").textContent === "thinking...") $("analysis").textContent = msg.message;
  } else if (msg.type === "replay") {
    state.replay = msg;
    state.frame = 0;
    showReplay();
  } else if (msg.type === "analysis") {
    showAnalysis(msg);
  }
}

// --- setup -----------------------------------------------------------------------------------
async function loadSetup() {
  const r = await fetch("/api/setup");
  state.setup = await r.json();
  $("game").innerHTML = state.setup.games.map((g) => `<option value="${esc(g)}">${esc(state.setup.setup[g].title)}</option>`).join("");
  renderSetup();
}
function showSetup() {
  $("setup").hidden = false;
  $("table").hidden = true;
  $("result").hidden = true;
  if (state.setup) renderSetup(true);
}
function gameSetup() { return state.setup.setup[$("game").value]; }
function optionLabel(name) { return name.replace(/_/g, " "); }
function valueText(v) { return v === null ? "none" : Array.isArray(v) ? v.join(" ") : String(v); }
function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
function variantDefaults() {  // every option's value under the chosen variant
  const g = gameSetup();
  const v = g.variants.find((x) => x.name === $("variant").value) || g.variants[0];
  const out = {};
  for (const o of g.options) out[o.name] = o.name in v.options ? v.options[o.name] : o.default;
  return out;
}
function renderSetup(keepVariant) {
  const g = gameSetup();
  const chosen = keepVariant ? $("variant").value : "";
  $("variant").innerHTML = g.variants.map((v) => `<option value="${esc(v.name)}">${esc(v.name.replace(/_/g, " "))}</option>`).join("");
  if (chosen && g.variants.some((v) => v.name === chosen)) $("variant").value = chosen;
  renderOptions();
}
function renderOptions() {
  const g = gameSetup();
  const v = g.variants.find((x) => x.name === $("variant").value);
  $("variant-summary").textContent = v ? v.summary : "";
  const values = variantDefaults();
  $("options").innerHTML = g.options.map((o) => {
    const value = values[o.name];
    let input;
    if (o.kind === "bool" || o.kind === "choice") {
      input = `<select data-option="${esc(o.name)}">` + o.choices.map((c, i) =>
        `<option value="${i}" ${same(c, value) ? "selected" : ""}>${esc(o.kind === "bool" ? (c ? "yes" : "no") : valueText(c))}</option>`).join("") + `</select>`;
    } else {
      input = `<input data-option="${esc(o.name)}" type="text" size="8" value="${esc(value === null ? "" : valueText(value))}" placeholder="none">`;
    }
    return `<label>${esc(optionLabel(o.name))} ${input}</label>`;
  }).join("");
  for (const el of document.querySelectorAll("#options [data-option]")) el.onchange = checkShape;
  checkShape();
}
function optionValue(el) {
  const o = gameSetup().options.find((x) => x.name === el.dataset.option);
  if (o.kind === "bool" || o.kind === "choice") return o.choices[Number(el.value)];
  const text = el.value.trim();
  if (text === "" || text.toLowerCase() === "none") return null;
  if (o.kind === "number" && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;  // the server says what is wrong with it
}
function chosenOptions() {  // the variant, and the options the person changed from it
  const out = { variant: $("variant").value };
  const defaults = variantDefaults();
  for (const el of document.querySelectorAll("#options [data-option]")) {
    const value = optionValue(el);
    const was = defaults[el.dataset.option];
    if (!same(value, was) && !(Array.isArray(was) && valueText(was) === value)) out[el.dataset.option] = value;
  }
  return out;
}
async function checkShape() {  // the env checks the options; the seats and the opponents that fit follow
  const ask = ++state.shapeAsked;
  const game = $("game").value;
  const r = await fetch(`/api/shape?game=${encodeURIComponent(game)}&options=${encodeURIComponent(JSON.stringify(chosenOptions()))}`);
  const shape = await r.json();
  if (ask !== state.shapeAsked) return;  // a later change answered first
  $("setup-error").textContent = shape.ok ? "" : shape.error;
  $("start").disabled = !shape.ok;
  if (!shape.ok) return;
  const before = [...document.querySelectorAll("#seats select")].map((s) => s.value);
  const list = gameSetup().opponents.filter((o) => shape.fitting.includes(o.id));
  let seats = "";
  for (let s = 1; s < shape.seats; s++) {
    const keep = list.some((o) => o.id === before[s - 1]) ? before[s - 1] : "rule";
    seats += `<label>Seat ${s} <select data-seat="${s}">` + list.map((o) => {
      const ev = o.info && o.info.eval ? Object.entries(o.info.eval).map(([k, v]) => `${k} ${v}`).join(", ") : "";
      return `<option value="${esc(o.id)}" title="${esc(ev)}" ${o.id === keep ? "selected" : ""}>${esc(o.label)}</option>`;
    }).join("") + `</select></label>`;
  }
  $("seats").innerHTML = seats;
  document.body.dataset.seats = String(shape.seats);
}
function startTable(ev) {
  ev.preventDefault();
  const seed = $("seed").value;
  const opponents = [...document.querySelectorAll("#seats select")].map((s) => s.value);
  state.rounds = [];
  $("log").innerHTML = "";
  send({ type: "new", game: $("game").value, options: chosenOptions(), opponents, seed: seed === "" ? null : Number(seed) });
}

// --- the table -------------------------------------------------------------------------------
function logEvent(e) {
  if (!e.text) return;
  const li = document.createElement("li");
  li.innerHTML = labelHTML(e.text + (e.note ? ` (${e.note})` : ""));
  $("log").appendChild(li);
  $("log").scrollTop = $("log").scrollHeight;
}

function render() {
  const v = state.view;
  $("next").textContent = `Next ${v.deal_word}`;
  renderSeats(v);
  renderCenter(v);
  renderActions(v);
  renderRows(v);
  renderScore(v);
  markLegal(v);
}

function renderSeats(v) {
  const parts = [];
  for (const s of v.seats.concat(v.extra_seats)) {
    if (s.seat === v.human_seat) continue;
    const tags = s.tags.map((t) => `<span class="tag ${t === "out" ? "out" : ""}">${esc(t)}</span>`).join("");
    const cards = s.open ? `<div class="open">${s.open.map((c) => cardHTML(c)).join("")}</div>`
      : `<div class="backs">${cardHTML("##").repeat(Math.min(s.cards, 12))}</div>`;
    const name = s.seat === null ? s.name : who(s.seat);
    parts.push(`<div class="seat ${s.seat !== null && v.to_act === s.seat ? "to-act" : ""}" data-seat="${s.seat === null ? "" : s.seat}">` +
      `<div class="name">${esc(name)}</div><div>${tags}</div><div class="meta">${labelHTML(s.meta)}</div>${cards}</div>`);
  }
  $("opponents").innerHTML = parts.join("");
}

function renderCenter(v) {  // a card new on the table drops in; the others stay still
  const before = state.centerCards || new Set();
  state.centerCards = new Set(v.center.flatMap((p) => p.cards));
  $("center").innerHTML = v.center.map((p) => `<div class="pile ${p.faded ? "faded" : ""}">` +
    `<div class="pile-cards">${p.cards.map((c, i) => `<div class="played ${before.has(c) ? "" : "enter"}">${cardHTML(c)}` +
      `${p.captions ? `<div>${esc(p.captions[i])}</div>` : ""}</div>`).join("")}</div>` +
    `<div class="pile-label">${esc(p.label)}</div></div>`).join("");
  const info = [`<div><b>${esc(v.title)}, ${esc(v.deal_word)} ${v.deal}</b>: ${esc(v.headline)}</div>`];
  for (const line of v.info) info.push(`<div>${labelHTML(line)}</div>`);
  $("info").innerHTML = info.join("");
}

function renderActions(v) {
  const buttons = [];
  const moves = v.legal.filter((m) => m.card === null);
  const bids = moves.filter((m) => m.label.startsWith("bid "));
  for (const m of bids.slice(0, 6)) buttons.push(actionButton(m, m.key));
  if (bids.length > 6) {
    buttons.push(`<select id="more-bids" aria-label="higher bid"><option value="">higher...</option>` +
      bids.slice(6).map((m) => `<option value="${m.action}">${m.key}</option>`).join("") + `</select>`);
  }
  for (const m of moves) if (!m.label.startsWith("bid ")) buttons.push(actionButton(m, m.label));
  $("actions").innerHTML = buttons.join("");
  for (const b of document.querySelectorAll("#actions button[data-action]")) {
    b.onclick = () => send({ type: "move", action: Number(b.dataset.action) });
  }
  const more = $("more-bids");
  if (more) more.onchange = () => { if (more.value) send({ type: "move", action: Number(more.value) }); };
  let status = "";
  if (v.over) status = v.result ? v.result.summary : "";
  else if (v.to_act === v.human_seat) {
    const cards = v.legal.filter((m) => m.card !== null);
    status = cards.length ? `Your turn: click a card${moves.length ? " or a button" : ""}` : "Your turn: choose";
  } else status = `${who(v.to_act)} to act...`;
  $("status").innerHTML = esc(status);
}
function actionButton(m, text) {
  return `<button type="button" data-action="${m.action}" data-key="${esc(m.key)}">${labelHTML(text)}</button>`;
}

function renderRows(v) {
  $("hand").innerHTML = v.rows.map((r, i) => `<div class="row">` +
    (i > 0 || r.label !== "Your hand" ? `<div class="row-label">${esc(r.label)}</div>` : "") +
    `<div class="row-cards">${r.cards.map((c) => cardHTML(c)).join("")}</div></div>`).join("");
}

function markLegal(v) {  // every card the person may choose (in a hand row or on the table) is clickable
  const byCard = {};
  for (const m of v.legal) if (m.card !== null) byCard[m.card] = m;
  const handCards = [...document.querySelectorAll("#hand .card")];
  const handChoice = handCards.some((el) => byCard[el.dataset.card]);  // dim the rest of the hand only then
  for (const el of document.querySelectorAll("#hand .card, #center .card")) {
    const m = byCard[el.dataset.card];
    if (!m) {
      if (handChoice && el.closest("#hand")) el.classList.add("dim");
      continue;
    }
    el.classList.add("legal");
    el.tabIndex = 0;
    el.setAttribute("role", "button");
    el.setAttribute("aria-label", m.label);
    el.title = m.label;
    el.dataset.action = String(m.action);
    const go = () => send({ type: "move", action: m.action });
    el.onclick = go;
    el.onkeydown = (e) => { if (e.key === "Enter" || e.key === " ") go(); };
  }
}

function renderScore(v) {
  const sc = v.score;
  $("score").innerHTML = `<table><tr><th>Session (${sc.deals})</th>${sc.columns.map((c) => `<th>${esc(c)}</th>`).join("")}</tr>` +
    sc.rows.map((r, s) => `<tr><td>${esc(who(s))}</td>${r.map((x) => `<td>${x}</td>`).join("")}</tr>`).join("") + `</table>`;
}

// --- after a round / a deal ------------------------------------------------------------------
function showdownHTML(sd) {
  return `<table class="showdown">` + sd.rows.map((r) =>
    `<tr data-seat="${r.seat}"><td>${esc(who(r.seat))}${sd.knocker === r.seat ? " (knocked)" : ""}</td>` +
    `<td>${r.hand.map((c) => cardHTML(c)).join("")}</td><td>${esc(r.value)}</td><td>${esc(r.result)}</td></tr>`).join("") +
    `</table>` + (sd.notes || []).map((n) => `<p>${esc(n)}</p>`).join("");
}
function showRound() {
  const sd = state.rounds[0];
  $("round-title").textContent = sd.title;
  $("round-body").innerHTML = showdownHTML(sd);
  $("round").hidden = false;
}
function showResult() {
  const v = state.view, r = v.result;
  $("result-title").textContent = r.summary;
  const rows = (r.steps || []).map(([k, x]) => `<tr><td>${esc(k)}</td><td>${esc(x)}</td></tr>`);
  if (r.scores) {
    rows.push(`<tr><td>scores</td><td id="result-scores">` + r.scores.map((x, s) =>
      `<span data-seat="${s}" data-score="${x}">${esc(who(s))} ${x > 0 ? "+" : ""}${x}</span>`).join(", ") + `</td></tr>`);
  }
  if (r.winner !== null && r.winner !== undefined) {
    rows.push(`<tr><td>winner</td><td id="result-winner" data-seat="${r.winner}">${esc(who(r.winner))}</td></tr>`);
  }
  $("result-steps").innerHTML = rows.join("");
  $("showdown").innerHTML = r.showdown ? `<h3>${esc(r.showdown.title)}</h3>` + showdownHTML(r.showdown) : "";
  $("analysis").textContent = "";
  $("analysis-line").innerHTML = "";
  $("analyse").hidden = !r.question;
  $("analyse").textContent = r.question || "";
  const base = `/api/tables/${state.table}/deals/${v.deal}`;
  $("downloads").innerHTML = (r.downloads || []).map((f) =>
    `<a id="dl-${esc(f)}" class="button" download href="${base}.${esc(f)}">Download ${esc(f.toUpperCase())}</a>`).join("");
  $("result").hidden = false;
}
function showAnalysis(msg) {
  $("analysis").textContent = msg.text;
  $("analysis").dataset.answer = String(msg.answer);
  $("analysis-line").innerHTML = (msg.line || []).map((t, i) => `<div class="line-trick"><span>${i + 1}.</span>` +
    t.cards.map((c) => `${cardHTML(c.card, "small")}<span class="who">${esc(c.who)}</span>`).join("") +
    `<b>&rarr; ${esc(t.winner)}</b></div>`).join("");
}

function showReplay() {
  const rp = state.replay, f = rp.frames[state.frame];
  const rows = f.rows.map((r) => `<div class="replay-row"><span class="who">${esc(r.label)}` +
    `${r.note ? ` <small>${esc(r.note)}</small>` : ""}</span>${r.cards.map((c) => cardHTML(c)).join("")}</div>`);
  let extra = "";
  if (f.trick && f.trick.length) {
    extra += `<div class="replay-trick">${f.trick.map((c) => `${cardHTML(c.card)}<span>${esc(c.who)}</span>`).join("")}` +
      `<b>&rarr; ${esc(f.winner)}</b></div>`;
  }
  if (f.showdown) extra += showdownHTML(f.showdown);
  $("replay-title").textContent = `Replay of ${state.view.deal_word} ${rp.deal}: ${f.caption}`;
  $("replay-body").innerHTML = rows.join("") + extra;
  $("replay-pos").textContent = `${state.frame + 1} / ${rp.frames.length}`;
  $("replay").hidden = false;
}

// --- wiring ----------------------------------------------------------------------------------
function init() {
  $("suit-style").value = state.suits;
  $("suit-style").onchange = () => {
    state.suits = $("suit-style").value;
    localStorage.setItem("suits", state.suits);
    if (state.view) render();
    if (!$("result").hidden) showResult();
  };
  $("game").onchange = () => renderSetup();
  $("variant").onchange = renderOptions;
  $("setup-form").onsubmit = startTable;
  $("new-table-btn").onclick = showSetup;
  $("next").onclick = () => { $("result").hidden = true; state.rounds = []; send({ type: "next" }); };
  $("close-result").onclick = () => { $("result").hidden = true; };
  $("replay-btn").onclick = () => send({ type: "replay", deal: state.view.deal });
  $("analyse").onclick = () => { $("analysis").textContent = "thinking..."; send({ type: "analyse", deal: state.view.deal }); };
  $("round-ok").onclick = () => {
    state.rounds.shift();
    if (state.rounds.length) showRound(); else $("round").hidden = true;
  };
  $("replay-prev").onclick = () => { if (state.frame > 0) { state.frame--; showReplay(); } };
  $("replay-next").onclick = () => { if (state.frame < state.replay.frames.length - 1) { state.frame++; showReplay(); } };
  $("replay-close").onclick = () => { $("replay").hidden = true; };
  loadSetup().then(connect);
}
init();

// The card table page: shows what the server sends, sends the person's clicks. No game rules here:
// every move is checked on the server (play.core.Table), which answers with the new view.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { ws: null, setup: null, view: null, table: sessionStorage.getItem("table"), replay: null, frame: 0,
                rounds: [], suits: localStorage.getItem("suits") || "french" };

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function cardHTML(name, cls = "", attrs = "") {
  return `<span class="card ${cls}" data-card="${name}" ${attrs}>${cardSVG(name, state.suits)}</span>`;
}
function backHTML() { return `<span class="card back">${cardBackSVG()}</span>`; }
function who(seat) { return seat === state.view.human_seat ? "You" : state.view.names[seat]; }
function labelHTML(label) {  // card names inside a move label drawn as small cards
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
    if (state.rounds.length && !(state.view.game === "thirtyone" && msg.view.over)) showRound();
    else state.rounds = [];
    if (msg.view.over && ended) showResult();
    else $("result").hidden = true;
  } else if (msg.type === "error") {
    const legal = (msg.legal || []).map((m) => m.key).join(", ");
    toast(msg.message + (legal ? ` (legal: ${legal})` : ""));
    if (msg.view) { state.view = msg.view; render(); }
    if (/no such table/.test(msg.message)) { sessionStorage.removeItem("table"); state.table = null; showSetup(); }
  } else if (msg.type === "replay") {
    state.replay = msg;
    state.frame = 0;
    showReplay();
  } else if (msg.type === "analysis") {
    $("analysis").textContent = msg.text;
    $("analysis").dataset.answer = String(msg.answer);
  }
}

// --- setup -----------------------------------------------------------------------------------
async function loadSetup() {
  const r = await fetch("/api/setup");
  state.setup = await r.json();
  renderSetup();
}
function showSetup() {
  $("setup").hidden = false;
  $("table").hidden = true;
  $("result").hidden = true;
  if (state.setup) renderSetup();
}
function optionLabel(name) { return name.replace(/_/g, " "); }
function valueText(v) { return v === null ? "none" : String(v); }
function renderSetup(keep) {
  const game = $("game").value;
  const opts = state.setup.options[game];
  $("options").innerHTML = opts.map((o) =>
    `<label>${esc(optionLabel(o.name))}<select data-option="${o.name}">` +
    o.choices.map((c, i) => `<option value="${i}" ${JSON.stringify(c) === JSON.stringify(o.default) ? "selected" : ""}>` +
      `${esc(valueText(c))}</option>`).join("") + `</select></label>`).join("");
  if (keep) restoreOptions(keep);
  const players = game === "skat" ? 3 : Number(chosenOptions().num_players || 4);
  const list = state.setup.opponents[game];
  const opponentOptions = list.map((o) => {
    const ev = o.info && o.info.eval ? Object.entries(o.info.eval).map(([k, v]) => `${k} ${v}`).join(", ") : "";
    return `<option value="${esc(o.id)}" title="${esc(ev)}" ${o.id === "rule" ? "selected" : ""}>${esc(o.label)}</option>`;
  }).join("");
  let seats = "";
  for (let s = 1; s < players; s++) {
    seats += `<label>Seat ${s} <select data-seat="${s}">${opponentOptions}</select></label>`;
  }
  $("seats").innerHTML = seats;
  const np = document.querySelector('[data-option="num_players"]');
  if (np) np.onchange = () => renderSetup(chosenOptions());
}
function chosenOptions() {
  const game = $("game").value;
  const out = {};
  for (const sel of document.querySelectorAll("#options select")) {
    const o = state.setup.options[game].find((x) => x.name === sel.dataset.option);
    out[o.name] = o.choices[Number(sel.value)];
  }
  return out;
}
function restoreOptions(values) {
  const game = $("game").value;
  for (const sel of document.querySelectorAll("#options select")) {
    const o = state.setup.options[game].find((x) => x.name === sel.dataset.option);
    const i = o.choices.findIndex((c) => JSON.stringify(c) === JSON.stringify(values[o.name]));
    if (i >= 0) sel.value = String(i);
  }
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
  let text = "";
  if (e.kind === "move") text = `${who(e.seat)}: ${e.label}` + (e.drawn ? ` (${e.drawn})` : "");
  else if (e.kind === "trick") text = `Trick ${e.number} to ${who(e.winner)}`;
  else if (e.kind === "round_end") text = `Round ${e.showdown.round}: ${e.showdown.kind}`;
  else if (e.kind === "deal_end") text = e.result.summary;
  const li = document.createElement("li");
  li.textContent = text;
  $("log").appendChild(li);
  $("log").scrollTop = $("log").scrollHeight;
}

function render() {
  const v = state.view;
  $("next").textContent = v.game === "skat" ? "Next deal" : "New game";
  renderSeats(v);
  if (v.game === "skat") renderSkatCenter(v); else renderThirtyOneCenter(v);
  renderActions(v);
  renderHand(v);
  renderScore(v);
}

function seatTags(v, s) {
  const tags = [];
  if (v.game === "skat") {
    tags.push(s.position);
    if (s.declarer) tags.push("declarer");
  } else {
    if (s.knocked) tags.push("knocked");
    if (!s.alive) tags.push("out");
  }
  if (s.dealer) tags.push("dealer");
  return tags.map((t) => `<span class="tag ${t === "out" ? "out" : ""}">${esc(t)}</span>`).join("");
}

function renderSeats(v) {
  const parts = [];
  for (const s of v.seats) {
    if (s.seat === v.human_seat) continue;
    let meta = "";
    if (v.game === "skat") {
      const calls = v.auction.filter((c) => c.seat === s.seat);
      const last = calls.length ? calls[calls.length - 1].call : "";
      meta = v.phase === "auction" || v.phase === "skat" ? esc(last) : `${s.tricks} tricks, ${s.points} points`;
    } else {
      meta = v.scoring === "points" ? `${s.score} points` : (s.alive ? (s.on_county ? "on the county" : `${s.lives} lives`) : "out");
    }
    const cards = s.hand ? `<div class="open">${s.hand.map((c) => cardHTML(c)).join("")}</div>`
      : `<div class="backs">${backHTML().repeat(Math.min(s.cards, 12))}</div>`;
    parts.push(`<div class="seat ${v.to_act === s.seat ? "to-act" : ""}" data-seat="${s.seat}">` +
      `<div class="name">${esc(s.name)}</div><div>${seatTags(v, s)}</div><div class="meta">${meta}</div>${cards}</div>`);
  }
  $("opponents").innerHTML = parts.join("");
}

function renderSkatCenter(v) {
  let html = "";
  if (v.trick.length) {
    html = v.trick.map((c) => `<div class="played">${cardHTML(c.card)}<div>${esc(who(c.seat))}</div></div>`).join("");
  } else if (v.last_trick && v.phase === "play") {
    html = v.last_trick.cards.map((c) => `<div class="played faded">${cardHTML(c.card)}<div>${esc(who(c.seat))}</div></div>`).join("") +
      `<div class="pile-label">taken by ${esc(who(v.last_trick.winner))}</div>`;
  } else if (v.skat) {
    html = `<div class="played">${v.skat.map((c) => cardHTML(c)).join("")}<div>the skat</div></div>`;
  } else if (v.phase !== "play" && v.phase !== "done") {
    html = `<div class="played"><div class="backs">${backHTML().repeat(v.skat_cards)}</div><div>the skat</div></div>`;
  }
  $("center").innerHTML = html;
  const info = [];
  info.push(`<div><b>Deal ${v.deal}</b> - ${esc(v.phase)}</div>`);
  if (v.contract) {
    const dbl = v.contract.doubling === 2 ? ", kontra" : v.contract.doubling === 4 ? ", kontra and re" : "";
    const by = v.declarer !== null ? ` by ${esc(who(v.declarer))}` : "";
    info.push(`<div>Game: <b>${esc(v.contract.text)}</b>${by}${v.bid ? `, bid ${v.bid}` : ""}${dbl}</div>`);
  } else if (v.bid) {
    info.push(`<div>Bid: <b>${v.bid}</b></div>`);
  }
  if (v.auction.length) info.push(`<div>Auction: ${v.auction.map((c) => `${esc(who(c.seat))} ${esc(c.call)}`).join(", ")}</div>`);
  const me = v.seats[v.human_seat];
  if (v.phase === "play" || v.phase === "done") info.push(`<div>You: ${me.tricks} tricks, ${me.points} points</div>`);
  $("info").innerHTML = info.join("");
}

function renderThirtyOneCenter(v) {
  let html = "";
  if (v.top) {
    html = `<div class="played">${cardHTML(v.top)}<div>discard pile (${v.pile})</div></div>` +
      `<div class="played"><div class="backs">${backHTML()}</div><div>stock: ${v.stock}</div></div>`;
  }
  $("center").innerHTML = html;
  const info = [`<div><b>Game ${v.deal}</b>, round ${v.round} - ${esc(v.phase)}</div>`];
  if (v.knocker !== null) info.push(`<div><b>${esc(who(v.knocker))}</b> knocked: one more turn each</div>`);
  if (v.hand_value !== null && v.hand.length === 3) info.push(`<div>Your hand is worth <b>${v.hand_value}</b></div>`);
  const me = v.seats[v.human_seat];
  info.push(`<div>You: ${v.scoring === "points" ? `${me.score} points` : (me.alive ? (me.on_county ? "on the county" : `${me.lives} lives`) : "out")}</div>`);
  if (v.locked) info.push(`<div>${cardHTML(v.locked, "small")} was just taken: it stays this turn</div>`);
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
    const verb = cards.length ? (cards[0].label.startsWith("play") ? "play a card" : "discard a card") : "choose";
    status = `Your turn: ${verb}`;
  } else status = `${esc(who(v.to_act))} to act...`;
  $("status").innerHTML = status;
}
function actionButton(m, text) {
  return `<button type="button" data-action="${m.action}" data-key="${esc(m.key)}">${labelHTML(text)}</button>`;
}

function renderHand(v) {
  const byCard = {};
  for (const m of v.legal) if (m.card !== null) byCard[m.card] = m;
  const anyCard = Object.keys(byCard).length > 0;
  $("hand").innerHTML = v.hand.map((c) => {
    const m = byCard[c];
    const attrs = m ? `data-action="${m.action}" tabindex="0" role="button" aria-label="${esc(m.label)}" title="${esc(m.label)}"` : "";
    return cardHTML(c, m ? "legal" : (anyCard ? "dim" : ""), attrs);
  }).join("");
  for (const el of document.querySelectorAll("#hand .card.legal")) {
    const go = () => send({ type: "move", action: Number(el.dataset.action) });
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
  const key = sd.key;
  return `<table class="showdown">` + sd.rows.map((r) =>
    `<tr data-seat="${r.seat}"><td>${esc(who(r.seat))}${sd.knocker === r.seat ? " (knocked)" : ""}</td>` +
    `<td>${r.hand.map((c) => cardHTML(c)).join("")}</td><td>${r.value}</td>` +
    `<td>${key === "lives_lost" ? (r[key] ? `-${r[key]} ${r[key] === 1 ? "life" : "lives"}` : "") : `+${r[key]}`}</td></tr>`).join("") +
    `</table>` + (sd.eliminated.length ? `<p>Out: ${sd.eliminated.map(who).map(esc).join(", ")}</p>` : "") +
    (sd.void ? "<p>A void round: nobody loses.</p>" : "");
}
function showRound() {
  const sd = state.rounds[0];
  $("round-title").textContent = `Round ${sd.round}: ${sd.kind}`;
  $("round-body").innerHTML = showdownHTML(sd);
  $("round").hidden = false;
}
function showResult() {
  const v = state.view, r = v.result;
  $("result-title").textContent = r.summary;
  const rows = (r.steps || []).map(([k, x]) => `<tr><td>${esc(k)}</td><td>${esc(x)}</td></tr>`);
  if (v.game === "skat") {
    rows.push(`<tr><td>scores</td><td id="result-scores">` + r.scores.map((x, s) =>
      `<span data-seat="${s}" data-score="${x}">${esc(who(s))} ${x > 0 ? "+" : ""}${x}</span>`).join(", ") + `</td></tr>`);
  } else {
    rows.push(`<tr><td>winner</td><td id="result-winner" data-seat="${r.winner}">${esc(who(r.winner))}</td></tr>`);
  }
  $("result-steps").innerHTML = rows.join("");
  $("showdown").innerHTML = v.game === "thirtyone" && r.showdown ? showdownHTML(r.showdown) : "";
  $("analysis").textContent = "";
  $("analyse").hidden = !(state.setup && state.setup.solver && v.game === "skat" && r.kind === "game");
  const base = `/api/tables/${state.table}/deals/${v.deal}`;
  $("dl-iss").hidden = !(v.game === "skat" && r.kind !== "ramsch");
  $("dl-iss").href = `${base}.iss`;
  $("dl-json").href = `${base}.json`;
  $("result").hidden = false;
}

function showReplay() {
  const rp = state.replay, f = rp.frames[state.frame];
  const rows = f.hands.map((h, s) => `<div class="replay-row" data-seat="${s}"><span class="who">${esc(who(s))}` +
    `${f.values && f.values[s] !== null && f.values[s] !== undefined ? ` (${f.values[s]})` : ""}` +
    `${f.points ? ` ${f.points[s]} pts` : ""}</span>${h.map((c) => cardHTML(c)).join("")}</div>`);
  let extra = "";
  if (f.skat) extra += `<div class="replay-row"><span class="who">skat</span>${f.skat.map((c) => cardHTML(c)).join("")}</div>`;
  if (f.trick && f.trick.length) {
    extra += `<div class="replay-trick">${f.trick.map((c) => `${cardHTML(c.card)}<span>${esc(who(c.seat))}</span>`).join("")}` +
      `<b>&rarr; ${esc(who(f.winner))}</b></div>`;
  }
  if (f.top) extra += `<div class="replay-row"><span class="who">discard</span>${cardHTML(f.top)} stock ${f.stock}</div>`;
  if (f.showdown) extra += showdownHTML(f.showdown);
  $("replay-title").textContent = `Replay of deal ${rp.deal}: ${f.caption}`;
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

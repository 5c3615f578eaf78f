// The explorer's page: draws what the server computes and sends the clicks back. Nothing
// here computes a move, a value or a rule.
"use strict";

const state = { run: 0, runs: [], moves: [], view: null, replay: null, replayPly: 0 };
const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(text) { $("message").textContent = text || ""; }
function pct(x) { return (100 * x).toFixed(1) + "%"; }
function num(x) { return x === null || x === undefined ? "—" : (x >= 0 ? "+" : "") + x.toFixed(2); }
function run() { return state.runs[state.run]; }

function query(extra) {
  const q = new URLSearchParams({ run: state.run, moves: state.moves.join(","), ...extra });
  return q.toString();
}

async function show() {
  const view = await api("/api/position?" + query());
  state.view = view;
  $("board").innerHTML = view.svg;
  const svg = $("board").querySelector("svg");
  if (svg && !svg.getAttribute("viewBox")) {  // so that the drawing scales with its box
    svg.setAttribute("viewBox", `0 0 ${parseFloat(svg.getAttribute("width"))} ` +
      `${parseFloat(svg.getAttribute("height"))}`);
  }
  $("status").textContent = view.over ? "game over: " + view.result : view.to_move + " to move";
  const legal = $("legal");
  legal.innerHTML = "";
  for (const a of view.legal) {
    const b = document.createElement("button");
    b.textContent = view.labels[a];
    b.dataset.action = a;
    b.className = "legal-move";
    b.onclick = () => play({ action: a });
    legal.appendChild(b);
  }
  const link = "?" + query();
  $("link").href = link;
  history.replaceState(null, "", link);
  await panels();
}

async function panels() {
  if (state.view.over) {
    for (const id of ["panel-a", "panel-b"]) {
      document.querySelector(`#${id} tbody`).innerHTML = "";
      document.querySelector(`#${id} .summary`).textContent = "";
    }
    return;
  }
  const sims = $("simulations").value;
  await panel("panel-a", { simulations: sims });
  const other = $("compare-player").value;
  if (other) {
    const [kind, value] = other.split(":");
    const extra = kind === "iteration" ? { iteration: value, simulations: sims }
      : { player: value, simulations: sims };
    await panel("panel-b", extra);
  } else {
    document.querySelector("#panel-b tbody").innerHTML = "";
    document.querySelector("#panel-b .summary").textContent = "";
  }
}

async function panel(id, extra) {
  const look = await api("/api/analyse?" + query(extra));
  const verdict = look.verdict ? ` (<span class="${look.verdict}">${look.verdict}</span>)` : "";
  document.querySelector(`#${id} .summary`).innerHTML =
    `${look.player}, m = ${look.simulations}, ` +
    `${look.network === "final" ? "final network" : "network " + look.network}: plays ` +
    `<b class="choice">${look.choice_label}</b>${verdict}; value head ${num(look.value_head)}, ` +
    `search value ${num(look.search_value)}` +
    (look.perfect_value ? `; the position is a ${look.perfect_value} under perfect play` : "");
  const body = document.querySelector(`#${id} tbody`);
  body.innerHTML = "";
  for (const row of look.rows) {
    const tr = document.createElement("tr");
    tr.dataset.action = row.action;
    if (row.chosen) tr.className = "chosen";
    const cells = [(row.chosen ? "★ " : "") + row.label, pct(row.prior), row.visits,
      num(row.q), pct(row.share), row.perfect || "—"];
    for (const text of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
}

async function play(where) {
  say("");
  try {
    const answer = await api("/api/move", { run: state.run, moves: state.moves, ...where });
    state.moves = answer.moves;
    state.replay = null;
    await show();
    await agentTurn();
  } catch (err) { say(err.message); }
}

async function agentTurn() {
  const side = $("side").value;
  if (!state.view || state.view.over || side === "none" || state.view.to_move === side) return;
  const sims = $("simulations").value;
  const answer = await api("/api/reply", { run: state.run, moves: state.moves,
    simulations: sims ? Number(sims) : null });
  state.moves = answer.moves;
  await show();
}

function onBoardClick(event) {
  if (!run().clickable || !state.view) return;
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  const box = svg.getBoundingClientRect();
  const [rows, cols] = run().board;
  const col = Math.floor((event.clientX - box.left) / box.width * cols);
  const row = Math.floor((event.clientY - box.top) / box.height * rows);
  play({ row, col });
}

async function loadGames() {
  const select = $("replay-select");
  select.innerHTML = '<option value="">a game…</option>';
  for (const g of await api("/api/games?run=" + state.run)) {
    const o = document.createElement("option");
    o.value = g.id;
    o.textContent = g.title;
    select.appendChild(o);
  }
}

async function step(delta) {
  if (!state.replay) return;
  state.replayPly = Math.max(0, Math.min(state.replay.length, state.replayPly + delta));
  state.moves = state.replay.slice(0, state.replayPly);
  const replay = state.replay;
  await show();
  state.replay = replay;
  $("replay-ply").textContent = `ply ${state.replayPly} of ${state.replay.length}`;
}

async function start() {
  state.runs = await api("/api/runs");
  const params = new URLSearchParams(location.search);
  state.run = Number(params.get("run") || 0);
  state.moves = (params.get("moves") || "").split(",").filter((m) => m !== "").map(Number);
  const runSelect = $("run");
  state.runs.forEach((r, i) => {
    const o = document.createElement("option");
    o.value = i;
    o.textContent = `${r.folder} (${r.game} ${r.board.join("×")})`;
    runSelect.appendChild(o);
  });
  runSelect.value = state.run;
  await setupRun();
  $("run").onchange = async () => { state.run = Number($("run").value); state.moves = [];
    await setupRun(); };
  $("new").onclick = async () => { state.moves = []; state.replay = null; say("");
    await show(); await agentTurn(); };
  $("undo").onclick = async () => {
    const side = $("side").value;
    state.moves = state.moves.slice(0, -1);
    await show();
    if (side !== "none" && state.view.to_move !== side && state.moves.length) {
      state.moves = state.moves.slice(0, -1);
      await show();
    }
  };
  $("side").onchange = agentTurn;
  $("compare-player").onchange = () => panels().catch((e) => say(e.message));
  $("simulations").onchange = () => panels().catch((e) => say(e.message));
  $("board").addEventListener("click", onBoardClick);
  $("moves-form").onsubmit = async (event) => {
    event.preventDefault();
    const words = $("moves-input").value.split(/[\s,]+/).filter((w) => w);
    const labels = state.view.labels.map((l) => l.toLowerCase());
    const moves = [];
    for (const w of words) {
      const a = /^\d+$/.test(w) && !labels.includes(w) ? Number(w) : labels.indexOf(w.toLowerCase());
      if (a < 0) { say(`refused: cannot read the move ${w}`); return; }
      moves.push(a);
    }
    try { await api("/api/position?" + new URLSearchParams({ run: state.run,
      moves: moves.join(",") })); } catch (err) { say(err.message); return; }
    state.moves = moves;
    state.replay = null;
    say("");
    await show();
  };
  $("replay-select").onchange = async () => {
    const id = $("replay-select").value;
    if (id === "") { state.replay = null; return; }
    const title = $("replay-select").selectedOptions[0].textContent;
    // A run's own arena is played again from its checkpoints, once: it can take a minute.
    say(title.startsWith("arena of iteration") ? "playing the arena again from the run's " +
      "checkpoints…" : "");
    let answer;
    try { answer = await api(`/api/replay?run=${state.run}&game=${id}`); }
    catch (err) { state.replay = null; say(err.message); return; }
    say("");
    state.replay = answer.moves;
    state.replayPly = 0;
    await step(0);
  };
  $("replay-next").onclick = () => step(1);
  $("replay-prev").onclick = () => step(-1);
}

async function setupRun() {
  const r = run();
  $("simulations").value = r.simulations;
  const compare = $("compare-player");
  compare.innerHTML = '<option value="">(none)</option>';
  for (const p of r.compare) {
    const o = document.createElement("option");
    o.value = "player:" + p;
    o.textContent = p === "pure_mcts" ? "pure MCTS" : p + " (warm-start search)";
    compare.appendChild(o);
  }
  for (const it of r.kept) {
    const o = document.createElement("option");
    o.value = "iteration:" + it;
    o.textContent = `the network after iteration ${it}`;
    compare.appendChild(o);
  }
  await loadGames();
  await show();
}

start().catch((err) => say(err.message));

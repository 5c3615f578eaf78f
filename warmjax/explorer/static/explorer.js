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

// The busy line: while requests run, the latest one's work and how long it has taken.
const busy = { jobs: [], timer: null };
function tick() {
  const job = busy.jobs[busy.jobs.length - 1];
  $("busy").classList.remove("idle");
  $("busy").textContent = `${job.what}… ${((performance.now() - job.since) / 1000).toFixed(1)} s`;
}
async function working(what, promise) {
  const job = { what, since: performance.now() };
  busy.jobs.push(job);
  if (busy.timer === null) busy.timer = setInterval(tick, 100);
  tick();
  try { return await promise; } finally {
    busy.jobs.splice(busy.jobs.indexOf(job), 1);
    if (busy.jobs.length) tick();
    else { clearInterval(busy.timer); busy.timer = null; $("busy").classList.add("idle"); }
  }
}
function pct(x) { return (100 * x).toFixed(1) + "%"; }
function num(x) { return x === null || x === undefined ? "—" : (x >= 0 ? "+" : "") + x.toFixed(2); }
function run() { return state.runs[state.run]; }

function query(extra) {
  const q = new URLSearchParams({ run: state.run, moves: state.moves.join(","), ...extra });
  return q.toString();
}

async function show() {
  const view = await working("drawing the position", api("/api/position?" + query()));
  state.view = view;
  say("");  // a good answer clears an earlier error
  $("board").innerHTML = view.svg;
  const svg = $("board").querySelector("svg");
  if (svg && !svg.getAttribute("viewBox")) {  // so that the drawing scales with its box
    svg.setAttribute("viewBox", `0 0 ${parseFloat(svg.getAttribute("width"))} ` +
      `${parseFloat(svg.getAttribute("height"))}`);
  }
  const last = view.played.length ? `; last move ${view.played[view.played.length - 1]}` : "";
  $("status").textContent =
    (view.over ? "game over: " + view.result : view.to_move + " to move") + last;
  drawLegal(view);
  drawPlayed();
  const link = "?" + query();
  $("link").href = link;
  history.replaceState(null, "", link);
  await panels();
}

// The legal moves as buttons: for a game whose moves are columns, one under each column of
// the board (a full column's place left empty), else in a row.
function drawLegal(view) {
  const legal = $("legal");
  legal.innerHTML = "";
  const columns = run().columns && run().clickable;
  legal.className = columns ? "columns" : "";
  legal.style.setProperty("--columns", run().board[1]);
  const shown = columns ? [...Array(run().board[1]).keys()] : view.legal;
  for (const a of shown) {
    if (!view.legal.includes(a)) { legal.appendChild(document.createElement("span")); continue; }
    const b = document.createElement("button");
    b.textContent = view.labels[a];
    b.dataset.action = a;
    b.className = "legal-move";
    b.onclick = () => play({ action: a });
    legal.appendChild(b);
  }
}

// The moves of the position; during a replay, every move of the game, those played so far
// in bold and the last of them highlighted.
function drawPlayed() {
  const box = $("played");
  box.innerHTML = "";
  const labels = state.view.labels;
  const moves = state.replay || state.moves;
  if (!moves.length) return;
  box.append(state.replay ? "game: " : "moves: ");
  moves.forEach((a, i) => {
    const span = document.createElement("span");
    span.textContent = labels[a];
    span.className = i < state.moves.length ? "played" : "ahead";
    if (i === state.moves.length - 1) span.classList.add("current");
    box.append(span, " ");
  });
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
  const look = await working("searching", api("/api/analyse?" + query(extra)));
  say("");
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
  const answer = await working("the agent is thinking", api("/api/reply", {
    run: state.run, moves: state.moves, simulations: sims ? Number(sims) : null }));
  state.moves = answer.moves;
  await show();
}

function onBoardClick(event) {
  if (!run().clickable || !state.view) return;
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  // The drawing's own units (its geometry from the server: cell size, the top of row 0).
  const box = svg.getBoundingClientRect();
  const g = run().geometry;
  const x = (event.clientX - box.left) / box.width * g.width;
  const y = (event.clientY - box.top) / box.height * g.height;
  const col = Math.floor(x / g.cell);
  let row = Math.floor((y - g.top) / g.cell);
  if (run().columns) row = Math.max(0, row);  // a column's letter names the column too
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
  await show();
  $("replay-ply").textContent = `ply ${state.replayPly} of ${state.replay.length}`;
}

// A link's run and moves, or the start position of run 0 and one line naming what is wrong.
async function readLink() {
  const params = new URLSearchParams(location.search);
  const runText = params.get("run") || "0";
  const served = state.runs.length;
  if (!/^\d+$/.test(runText) || Number(runText) >= served) {
    return `no run ${runText}: ${served} served (runs 0 to ${served - 1}); showing run 0`;
  }
  state.run = Number(runText);
  const movesText = params.get("moves") || "";
  const pieces = movesText === "" ? [] : movesText.split(",");
  if (!pieces.every((m) => /^\d+$/.test(m.trim()))) {
    return `this link's moves must be action ids separated by commas, got "${movesText}"; ` +
      "showing the start position";
  }
  try {
    await api("/api/position?" + new URLSearchParams({ run: state.run, moves: pieces.join(",") }));
  } catch (err) { return `this link's moves cannot be played: ${err.message}; showing the ` +
    "start position"; }
  state.moves = pieces.map(Number);
  return "";
}

async function start() {
  state.runs = await api("/api/runs");
  const problem = await readLink();
  const runSelect = $("run");
  state.runs.forEach((r, i) => {
    const o = document.createElement("option");
    o.value = i;
    o.textContent = `${r.folder} (${r.game} ${r.board.join("×")})`;
    runSelect.appendChild(o);
  });
  runSelect.value = state.run;
  await setupRun();
  if (problem) say(problem);
  $("run").onchange = () => { state.run = Number($("run").value); state.moves = [];
    state.replay = null; setupRun().catch((e) => say(e.message)); };
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
  $("side").onchange = () => agentTurn().catch((e) => say(e.message));
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
    await show();
  };
  $("replay-select").onchange = async () => {
    const id = $("replay-select").value;
    if (id === "") { state.replay = null; return; }
    const title = $("replay-select").selectedOptions[0].textContent;
    // A run's own arena is played again from its checkpoints, once: it can take a minute.
    const what = title.startsWith("arena of iteration") ? "playing the arena again from " +
      "the run's checkpoints" : "fetching the game";
    let answer;
    try {
      answer = await working(what, api(`/api/replay?run=${state.run}&game=${id}`));
    } catch (err) { state.replay = null; say(err.message); return; }
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
// Whatever a click's work did not catch is said in the message line, not lost in a console.
window.addEventListener("unhandledrejection", (event) => say(String(event.reason?.message ||
  event.reason)));

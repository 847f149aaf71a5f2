"use strict";
// The dashboard page: renders every state the server sends (server-sent events on /events) and
// posts the controls (/api/control), with the token given in the page's address when the
// referee needs one (kept for this tab, so the statistics page and back keep it).

const params = new URLSearchParams(location.search);
if (params.get("token")) sessionStorage.setItem("referee-token", params.get("token"));
const token = sessionStorage.getItem("referee-token");

const $ = (id) => document.getElementById(id);
let needsToken = false;

function text(el, value) { el.textContent = value; }

function renderScores(state) {
  const body = $("scores").tBodies[0];
  body.replaceChildren();
  state.names.forEach((name, seat) => {
    const row = document.createElement("tr");
    row.className = "player" + (state.turn === seat ? " turn" : "");
    row.dataset.seat = String(seat);
    const who = document.createElement("th");
    who.className = "name";
    text(who, name + (state.turn === seat ? "  ◀ to play" : ""));
    const score = document.createElement("td");
    score.className = "score";
    text(score, String(state.scores[seat]));
    row.append(who, score);
    body.append(row);
  });
}

function renderLog(state) {
  const log = $("log");
  log.replaceChildren();
  for (const event of [...state.events].reverse()) {
    const item = document.createElement("li");
    item.className = "event " + event.event + (event.illegal ? " illegal" : "") + (event.spoken ? " spoken" : "");
    item.dataset.kind = event.event;
    item.dataset.seq = String(event.seq);
    const frame = document.createElement("span");
    frame.className = "frame";
    text(frame, "frame " + event.frame);
    const kind = document.createElement("span");
    kind.className = "kind";
    text(kind, event.event.replace("_", " "));
    const words = document.createElement("span");
    words.className = "words";
    text(words, event.text);
    item.append(frame, kind, words);
    log.append(item);
  }
}

function render(state) {
  needsToken = state.controls_need_token && !token;
  let status = state.status;
  if (state.source_ended) status += " · the recording has ended; controls still work";
  text($("status"), status);
  renderScores(state);
  text($("hand-info"), `hand ${state.hand} · ${state.variant} to ${state.target}`);
  $("line").innerHTML = state.line_svg;  // drawn by the server from tile numbers only
  const line = state.line;
  text($("ends"), line.line.length
    ? `open ends: ${line.open_ends.join(" + ") || "none"}` + (state.variant === "fives" ? ` = ${line.count}` : "")
    : "");
  const pending = $("pending");
  pending.hidden = state.pending.length === 0;
  text(pending, state.pending.length ? "illegal, still on the table: " + state.pending.join(", ") : "");
  text($("frame-info"), `frame ${state.frame}` + (state.occluded ? " · an arm over the table: frame ignored" : ""));
  renderLog(state);
  if (state.answer) showAnswer(state.answer);
  for (const button of document.querySelectorAll("#controls-box button")) {
    button.title = needsToken ? "controls need the token printed when the referee started" : "";
  }
}

function showAnswer(answer) {
  const box = $("answer");
  box.className = answer.ok ? "ok" : "refused";
  box.dataset.id = String(answer.id || "");
  text(box, answer.message);
}

async function control(action, fields) {
  const headers = {"Content-Type": "application/json"};
  if (token) headers["X-Referee-Token"] = token;
  const body = Object.assign({action}, fields || {});
  const box = $("answer");
  box.className = "waiting";
  text(box, "sent…");
  try {
    const response = await fetch("/api/control", {method: "POST", headers, body: JSON.stringify(body)});
    const answer = await response.json().catch(() => ({}));
    if (response.status === 403) {
      showAnswer({ok: false, message: "Refused: controls need the token printed when the referee started."});
    } else if (answer.error) {
      showAnswer({ok: false, message: answer.error});
    } else {
      showAnswer(answer);
    }
  } catch (error) {
    showAnswer({ok: false, message: "The referee cannot be reached: " + error});
  }
}

function connect() {
  const source = new EventSource("/events");
  source.onmessage = (message) => render(JSON.parse(message.data));
  source.onerror = () => text($("status"), "connection lost: reconnecting…");
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button[data-action]")) {
    button.addEventListener("click", () => control(button.dataset.action));
  }
  $("correct-form").addEventListener("submit", (event) => {
    event.preventDefault();
    control("correct", {old: $("correct-old").value.trim(), new: $("correct-new").value.trim()});
  });
  $("play-form").addEventListener("submit", (event) => {
    event.preventDefault();
    control("play", {tile: $("play-tile").value.trim(), end: $("play-end").value});
  });
  $("reveal-form").addEventListener("submit", (event) => {
    event.preventDefault();
    // Players are numbered from 1 on the page, as announced; the API counts seats from 0.
    const player = $("reveal-player").value.trim();
    const body = {tiles: $("reveal-tiles").value.trim().split(/[\s,]+/).filter(Boolean)};
    if (player) body.seat = Number(player) - 1;
    control("reveal", body);
  });
  $("camera").src = "/frame.mjpg";
  connect();
});

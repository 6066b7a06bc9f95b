// The review page: one pair at a time, labelled with buttons or keys.
// Every text from the queue is set with textContent, never parsed as HTML; the
// documents themselves live in sandboxed frames served under their own policy.
"use strict";

const $ = (id) => document.getElementById(id);
const KEYS = { d: "duplicate", n: "distinct", u: "unsure", s: "skip" };
let reviewer = "";
// A team's page: the session's CSRF token, sent with every change.
let csrf = null;
let current = null;
let busy = false;
// How many signals a waterfall names; the rest share one row.
const WATERFALL_ROWS = 8;

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function status(text, error) {
  $("status").textContent = text;
  $("status").className = error ? "error" : "";
}

async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (csrf) headers["X-CSRF-Token"] = csrf;
  const init = body === undefined ? {} : {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

async function loadNext() {
  show(await api("/api/next", { reviewer }));
}

async function openPair(id) {
  show(await api("/api/pair/" + id, { reviewer }));
}

function showProgress(p, hint) {
  $("progress-bar").max = Math.max(p.pairs, 1);
  $("progress-bar").value = p.reviewed;
  $("progress").textContent =
    `reviewed ${p.reviewed} / left ${p.left} · duplicates ${p.duplicates} · distinct ${p.distinct}` +
    ` · unsure ${p.unsure} · you ${p.mine}`;
  $("hint").textContent = hint.message;
  $("hint").className = hint.settled ? "settled" : "";
  const conflicts = $("conflicts");
  conflicts.replaceChildren();
  if (p.conflicts.length) {
    conflicts.append(el("span", `conflicts (${p.conflicts.length}): `, "conflict"));
    for (const id of p.conflicts.slice(0, 20)) {
      const b = el("button", "#" + id);
      b.addEventListener("click", () => run(() => openPair(id)));
      conflicts.append(b);
    }
  }
}

// Where background retraining stands (review --retrain-every N): labels so far,
// what the last retraining changed in the queue.
let retrainingPoll = null;
function showRetraining(r, p) {
  $("retraining").hidden = !r;
  if (!r) return;
  // While it trains, ask again every two seconds how it stands.
  clearTimeout(retrainingPoll);
  if (r.running) retrainingPoll = setTimeout(refreshProgress, 2000);
  const parts = [`${p.labels} label(s) so far, ${p.duplicates + p.distinct} pair(s) settled; the model retrains every ${r.every} new labels`];
  if (r.running) parts.push("retraining now (the queue keeps its order meanwhile)");
  const l = r.last;
  if (l) {
    const trained = `last retrained on ${l.labels} label(s) (${l.adjudicated} adjudicated): model ${l.model_id}, ` +
      `F1 on the frozen set ${fmt(l.parent_f1)} → ${fmt(l.f1)}`;
    parts.push(l.adopted
      ? `${trained}; it now orders the queue: ${l.change.routes_changed} of ${l.change.pairs} queued pairs changed route, ` +
        `p_duplicate moved ${fmt(l.change.mean_shift)} on average (at most ${fmt(l.change.largest_shift)})`
      : `${trained}; not adopted (below the starting model), the queue keeps its order`);
  }
  if (r.error) parts.push("the last retraining failed: " + r.error);
  $("retraining").textContent = parts.join(" · ");
}

async function refreshProgress() {
  try {
    const data = await api("/api/progress?reviewer=" + encodeURIComponent(reviewer));
    showProgress(data.progress, data.hint);
    showRetraining(data.retraining, data.progress);
  } catch (e) {
    status(e.message, true);
  }
}

function side(figure, label, url, hash, docs) {
  figure.replaceChildren();
  const caption = el("figcaption");
  caption.append(el("strong", label + " "), el("span", url));
  const views = el("div", undefined, "views");
  const holder = el("div");
  const choices = [];
  if (docs.screenshot) choices.push(["screenshot", "screenshot"]);
  if (docs.render) choices.push(["rendered", "as rendered"]);
  choices.push(["fetched", "as fetched"]);
  const showView = (view) => {
    for (const b of views.children) b.classList.toggle("on", b.dataset.view === view);
    let frame;
    if (view === "screenshot") {
      frame = el("img");
      frame.alt = "screenshot of " + label;
    } else {
      frame = el("iframe");
      frame.setAttribute("sandbox", "");
      frame.setAttribute("referrerpolicy", "no-referrer");
      frame.title = label + " " + view;
    }
    frame.src = `/doc/${encodeURIComponent(hash)}/${view}`;
    holder.replaceChildren(frame);
  };
  for (const [view, name] of choices) {
    const b = el("button", name);
    b.dataset.view = view;
    b.addEventListener("click", () => showView(view));
    views.append(b);
  }
  figure.append(caption, views, holder);
  showView(choices[0][0]);
}

// Why the queue served this pair now (the order's reason), in words.
const REASONS = {
  "uncertain": "Served now because the model's confidence is near 0.5.",
  "trees-disagree": "Served now because the forest's trees disagree on it.",
  "diversity": "Served now for diversity: it stands for a group of similar pairs no earlier pair covered.",
  "random": "Served now at random: one pair in ten is, so the queue also checks what the model is sure of.",
};

// What each signal added to the forest's score, from its base to its output, as bars
// on a 0..1 scale, the largest first; then the calibrated p_duplicate.
function waterfall(holder, e, p) {
  holder.replaceChildren();
  const parts = e && e.contributions;
  if (!parts) {
    holder.append(el("p", "This model does not take its score apart by signal (retrain it with this twinpage to see why)."));
    return;
  }
  const bar = (from, to, cls) => {
    const track = el("div", undefined, "track");
    const b = el("div", undefined, "bar " + cls);
    b.style.left = (100 * Math.min(from, to)).toFixed(2) + "%";
    b.style.width = Math.max(0.3, 100 * Math.abs(to - from)).toFixed(2) + "%";
    track.append(b);
    return track;
  };
  const line = (name, number, track) => holder.append(el("span", name), el("span", number, "num"), track);
  line("the forest's base", fmt(parts.base), bar(0, parts.base, "level"));
  let total = parts.base;
  const shown = parts.signals.slice(0, WATERFALL_ROWS);
  for (const s of shown) {
    line(`${s.signal} = ${fmt(s.value)}`, (s.contribution >= 0 ? "+" : "") + s.contribution.toFixed(4), bar(total, total + s.contribution, s.contribution >= 0 ? "up" : "down"));
    total += s.contribution;
  }
  const rest = parts.signals.slice(WATERFALL_ROWS);
  if (rest.length) {
    const sum = rest.reduce((a, s) => a + s.contribution, 0);
    line(`${rest.length} other signals`, (sum >= 0 ? "+" : "") + sum.toFixed(4), bar(total, total + sum, sum >= 0 ? "up" : "down"));
  }
  line("the forest's output", fmt(parts.output), bar(0, parts.output, "level"));
  line("calibrated: p_duplicate", fmt(p), bar(0, p, "level"));
}

function showExplanation(pair) {
  const e = pair.explanation;
  $("reason").textContent = REASONS[pair.reason] || "";
  waterfall($("waterfall"), e, pair.p_duplicate);
  const path = $("path");
  path.replaceChildren();
  const head = el("tr");
  for (const h of ["signal", "value", "", "threshold"]) head.append(el("th", h));
  path.append(head);
  // A forest shows its most representative trees, each under its own heading row.
  const paths = [{ tree: e.tree, steps: e.steps || [] }, ...(e.more_paths || [])];
  for (const p of paths) {
    if (e.committee && p.tree) {
      const title = el("tr");
      const cell = el("th", p.tree);
      cell.colSpan = 4;
      title.append(cell);
      path.append(title);
    }
    for (const s of p.steps) {
      const row = el("tr");
      row.append(el("td", s.signal), el("td", fmt(s.value)), el("td", s.went_left ? "<" : "≥"), el("td", fmt(s.threshold)));
      path.append(row);
    }
  }
  const c = e.counts || {};
  const v = e.committee;
  const votes = v
    ? `${v.duplicate_votes} of ${v.trees} trees vote duplicate (mean ${fmt(v.mean)}, spread ${fmt(v.spread)}; ` +
      `review beyond ${fmt(e.thresholds.max_spread ?? 1)}). `
    : "";
  $("leaf").textContent =
    votes +
    `${v ? "bin" : "leaf"} ${e.cell}: training ${c.fit_duplicates} duplicate / ${c.fit_distinct} distinct, ` +
    `calibration ${c.calibration_duplicates} duplicate / ${c.calibration_distinct} distinct → ` +
    `p_duplicate ${fmt(pair.p_duplicate)}; duplicate at ≥ ${fmt(e.thresholds.duplicate)}, ` +
    `distinct at ≤ ${fmt(e.thresholds.distinct)}`;
  const signals = $("signals");
  signals.replaceChildren();
  pair.signal_names.forEach((name, i) => {
    const row = el("tr");
    row.append(el("td", name), el("td", fmt(pair.signals[i])));
    signals.append(row);
  });
}

function fmt(x) {
  return typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(4)) : String(x);
}

function show(data) {
  showProgress(data.progress, data.hint);
  showRetraining(data.retraining, data.progress);
  const pair = data.pair;
  current = pair;
  if (!pair) {
    $("pair").hidden = true;
    $("main").dataset.pairId = "";
    status("Nothing left to review. Thank you!");
    return;
  }
  $("pair").hidden = false;
  $("pair-title").textContent = `Pair #${pair.id} (${pair.source})`;
  $("pair-score").textContent =
    (data.hidden ? `model ${pair.model_id}` : `p_duplicate ${fmt(pair.p_duplicate)} by model ${pair.model_id}`) +
    (pair.query ? ` · query: ${pair.query}` : "");
  $("why").hidden = data.hidden;
  $("blind").hidden = !data.hidden;
  $("dispute").hidden = !data.disputed;
  const labels = pair.labels.map(([r, v]) => `${r}: ${v}`).join(", ");
  const votes = new Set(pair.labels.map(([, v]) => v).filter((v) => v !== "unsure"));
  $("pair-labels").textContent = labels ? "labels so far: " + labels + (votes.size > 1 ? " (conflict)" : "") : "";
  $("pair-labels").className = votes.size > 1 ? "conflict" : "";
  side($("side-a"), "A", pair.url_a, pair.doc_a, data.documents.a);
  side($("side-b"), "B", pair.url_b, pair.doc_b, data.documents.b);
  const diff = $("diff");
  diff.replaceChildren();
  for (const s of data.diff) diff.append(s.side === "same" ? document.createTextNode(s.text) : el(s.side === "a" ? "del" : "ins", s.text));
  if (!data.hidden) showExplanation(pair);
  status("");
  $("main").dataset.pairId = String(pair.id);
}

async function run(work) {
  if (busy) return;
  if (!reviewer) {
    status("Type your name first.", true);
    $("reviewer").focus();
    return;
  }
  busy = true;
  try {
    await work();
  } catch (e) {
    status(e.message, true);
  } finally {
    busy = false;
  }
}

function judge(verdict) {
  if (!current) return;
  const id = current.id;
  run(async () => {
    const answer = await api("/api/verdict", { pair_id: id, reviewer, verdict });
    reveal(answer.revealed, verdict);
    await loadNext();
  });
}

// On a blind page, what the model said of the pair just judged.
function reveal(r, verdict) {
  $("revealed").hidden = !r;
  if (!r) return;
  $("revealed-title").textContent =
    `Pair #${r.pair_id}: you said ${verdict}; the model said p_duplicate ${fmt(r.p_duplicate)}, because:`;
  waterfall($("revealed-waterfall"), r.explanation, r.p_duplicate);
}

function undo() {
  run(async () => {
    const r = await api("/api/undo", { reviewer });
    if (r.pair_id === null) status("Nothing of yours to undo.");
    else await openPair(r.pair_id);
  });
}

function setReviewer(name) {
  reviewer = name.trim();
  $("reviewer").value = reviewer;
  if (reviewer) {
    localStorage.setItem("twinpage-reviewer", reviewer);
    run(loadNext);
  }
}

document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement || event.ctrlKey || event.metaKey || event.altKey) return;
  if (KEYS[event.key]) judge(KEYS[event.key]);
  else if (event.key === "z") undo();
  else return;
  event.preventDefault();
});
for (const verdict of Object.values(KEYS)) $(verdict).addEventListener("click", () => judge(verdict));
$("undo").addEventListener("click", undo);
$("reviewer").addEventListener("change", (e) => setReviewer(e.target.value));

// On a team's page the session says who reviews; on one person's, the name typed.
async function start() {
  let me;
  try {
    me = await api("/api/me");
  } catch (e) {
    $("reviewer").disabled = true;
    status(e.message, true);
    return;
  }
  if (me.team) {
    csrf = me.csrf;
    $("reviewer").disabled = true;
    reviewer = me.reviewer;
    $("reviewer").value = me.reviewer + " (" + me.role + ")";
    run(loadNext);
    return;
  }
  setReviewer(new URLSearchParams(location.search).get("reviewer") || localStorage.getItem("twinpage-reviewer") || "");
}
start();

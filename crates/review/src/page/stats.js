// The stats page: each reviewer's pace, how far reviewers agree, the disputes left.
// Every text is set with textContent.
"use strict";

const $ = (id) => document.getElementById(id);

function row(cells, tag) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const cell = document.createElement(tag || "td");
    cell.textContent = c;
    tr.append(cell);
  }
  return tr;
}

const kappa = (k) => (k === null ? "–" : k.toFixed(3));

async function load() {
  const response = await fetch("/api/stats");
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  const a = data.agreement;
  $("reviewers").replaceChildren(
    row(["reviewer", "labels", "hours", "labels/hour"], "th"),
    ...a.reviewers.map((p) => row([p.reviewer, p.labels, p.hours.toFixed(2), p.per_hour === null ? "–" : p.per_hour.toFixed(0)])),
  );
  $("kappa").replaceChildren(
    row(["reviewers", "pairs both labelled", "kappa"], "th"),
    ...a.pairs_of_reviewers.map((g) => row([g.reviewers.join(" / "), g.pairs, kappa(g.kappa)])),
    row(["all pairs of reviewers, pooled", a.overall.pairs, kappa(a.overall.kappa)]),
  );
  $("overlap").textContent = `${Math.round(data.overlap * 100)} % of the pairs are served to two reviewers`;
  const p = data.progress;
  $("progress").textContent = `reviewed ${p.reviewed} of ${p.pairs} · duplicates ${p.duplicates} · distinct ${p.distinct} · unsure ${p.unsure}`;
  $("disputes").textContent =
    `${p.conflicts.length} pair(s) got both a duplicate and a distinct label; ${p.awaiting_adjudication} await an adjudicator ` +
    "(until then they do not retrain the model).";
  $("hint").textContent = data.hint.message;
}

load().catch((e) => {
  $("status").textContent = e.message;
  $("status").className = "error";
});

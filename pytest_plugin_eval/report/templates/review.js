// The review page's script: one run shown at a time, filters, keyboard, and the labels — sent to the review
// server as they change (mode "server"), or kept in this browser's local storage and downloaded as labels.json
// (mode "static", a page written by `plugin-eval review --export`).
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("review-data").textContent);
  const storeKey = "plugin-eval-labels:" + data.folder;
  const labels = new Map();
  const keyOf = (run, grader) => JSON.stringify([run.case, run.arm, run.run, grader]);
  const keep = (list) => { labels.clear(); for (const l of list) labels.set(JSON.stringify([l.case, l.arm, l.run, l.grader]), l); };
  keep(data.labels);
  if (data.mode === "static") {
    try {
      const saved = JSON.parse(localStorage.getItem(storeKey) || "null");
      if (Array.isArray(saved)) keep(saved);
    } catch (e) { /* no storage (a file: page in some browsers): labels last as long as the page */ }
  }
  const runs = data.runs;
  const $ = (id) => document.getElementById(id);
  let shown = [];
  let current = -1;
  let selected = 0;

  const labelOf = (run, g) => labels.get(keyOf(run, g.name));
  // a label given against another rubric (its hash is not the grader's now): shown, and counted as unlabelled
  const stale = (run, g) => { const l = labelOf(run, g); return !!l && !!l.rubricHash && !!g.rubricHash && l.rubricHash !== g.rubricHash; };
  const wanted = (run) => { const judged = run.graders.filter((g) => g.judged); return judged.length ? judged : run.graders; };
  const disagrees = (run, g) => {
    const l = labelOf(run, g);
    return !!l && g.judgePassed !== null && (l.verdict === "pass") !== g.judgePassed;
  };
  const filters = {
    all: () => true,
    failing: (run) => !run.passed,
    disagreeing: (run) => run.graders.some((g) => g.split || disagrees(run, g)),
    unlabelled: (run) => wanted(run).some((g) => !labelOf(run, g) || stale(run, g)),
  };

  function status(text, error) {
    const el = $("status");
    el.textContent = text;
    el.classList.toggle("error", !!error);
  }

  let queue = Promise.resolve();
  // how many changes are on their way to the server (the body's data-pending: 0 when all are saved)
  let unsaved = 0;
  const pending = (n) => { unsaved += n; document.body.dataset.pending = String(unsaved); };
  pending(0);
  function save(body) {
    if (data.mode !== "server") {
      try { localStorage.setItem(storeKey, JSON.stringify([...labels.values()])); } catch (e) { /* see above */ }
      status(labels.size + " label(s) kept in this browser — Download labels.json to keep them");
      return;
    }
    status("saving…");
    pending(+1);
    queue = queue.then(() => fetch("api/labels", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    }).then((r) => r.json().then((reply) => {
      if (!r.ok) throw new Error(reply.error || r.statusText);
      status("saved: " + reply.count + " label(s) in labels.json");
    })).catch((e) => status("NOT saved — " + e.message, true)).finally(() => pending(-1)));
  }

  function codesOf(text) {
    return text.split(",").map((c) => c.trim()).filter((c) => c);
  }

  function put(run, g, changes) {
    const li = section(run).querySelectorAll("li.review-verdict")[run.graders.indexOf(g)];
    const old = labelOf(run, g);
    const verdict = changes.verdict || (old && old.verdict);
    if (!verdict) { status("choose pass (p) or fail (f) first: a note or codes are saved with a verdict"); return; }
    const label = { case: run.case, arm: run.arm, run: run.run, grader: g.name, verdict: verdict };
    const note = li.querySelector(".lab-note").value.trim();
    const codes = codesOf(li.querySelector(".lab-codes").value);
    if (note) label.note = note;
    if (codes.length) label.codes = codes;
    if (old && old.by) label.by = old.by;
    label.at = new Date().toISOString();
    if (g.rubricHash) label.rubricHash = g.rubricHash;
    if (g.judgeModel) label.judgeModel = g.judgeModel;
    if (g.judgePassed !== null) label.judgePassed = g.judgePassed;
    labels.set(keyOf(run, g.name), label);
    save({ label: label });
    paint(run);
  }

  function clear(run, g) {
    if (!labelOf(run, g)) return;
    labels.delete(keyOf(run, g.name));
    save({ remove: { case: run.case, arm: run.arm, run: run.run, grader: g.name } });
    paint(run);
  }

  const section = (run) => $(run.id);

  function paint(run) {
    const items = section(run).querySelectorAll("li.review-verdict");
    run.graders.forEach((g, i) => {
      const li = items[i];
      const l = labelOf(run, g);
      li.classList.toggle("labelled-pass", !!l && l.verdict === "pass");
      li.classList.toggle("labelled-fail", !!l && l.verdict === "fail");
      li.classList.toggle("selected", i === selected && run === runs[shown[current]]);
      const state = li.querySelector(".lab-state");
      state.textContent = !l ? "not labelled"
        : stale(run, g) ? "stale: you said " + l.verdict + " before the rubric changed — label it again"
        : disagrees(run, g) ? "you " + l.verdict + " — the verdict disagrees" : "you " + l.verdict;
      state.classList.toggle("disagree", disagrees(run, g));
      const note = li.querySelector(".lab-note");
      const codes = li.querySelector(".lab-codes");
      if (document.activeElement !== note) note.value = (l && l.note) || "";
      if (document.activeElement !== codes) codes.value = ((l && l.codes) || []).join(", ");
    });
    rollUp();
  }

  function rollUp() {
    const counts = new Map();
    const known = new Set();
    for (const l of labels.values()) {
      for (const code of l.codes || []) {
        known.add(code);
        const k = JSON.stringify([code, l.case, l.arm]);
        counts.set(k, (counts.get(k) || 0) + 1);
      }
    }
    const rows = [...counts.entries()].map(([k, n]) => [...JSON.parse(k), n]);
    rows.sort((a, b) => b[3] - a[3] || a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]));
    const body = document.querySelector("#codes-table tbody");
    body.textContent = "";
    for (const row of rows) {
      const tr = document.createElement("tr");
      for (const cell of row) { const td = document.createElement("td"); td.textContent = String(cell); tr.appendChild(td); }
      body.appendChild(tr);
    }
    const list = $("known-codes");
    list.textContent = "";
    for (const code of [...known].sort()) { const o = document.createElement("option"); o.value = code; list.appendChild(o); }
  }

  function refilter(keepRun) {
    const how = filters[$("f-show").value];
    const caseName = $("f-case").value;
    const arm = $("f-arm").value;
    const was = keepRun !== undefined ? keepRun : shown[current];
    shown = [];
    runs.forEach((run, i) => { if (how(run) && (!caseName || run.case === caseName) && (!arm || run.arm === arm)) shown.push(i); });
    const at = shown.indexOf(was);
    show(at >= 0 ? at : 0);
  }

  function show(position) {
    for (const run of runs) section(run).hidden = true;
    $("none").hidden = shown.length > 0;
    if (!shown.length) { current = -1; $("position").textContent = "0 runs"; return; }
    const moved = position !== current;
    current = Math.max(0, Math.min(position, shown.length - 1));
    const run = runs[shown[current]];
    if (moved) selected = 0;
    section(run).hidden = false;
    $("position").textContent = "run " + (current + 1) + " of " + shown.length + (shown.length < runs.length ? " (of " + runs.length + ")" : "");
    // the address names the run (#/run-N: no element has that id, so the browser does not scroll to it)
    if (location.hash !== "#/" + run.id) history.replaceState(null, "", "#/" + run.id);
    if (moved) window.scrollTo(0, 0);  // a run is read from its top
    paint(run);
  }

  function currentRun() { return current >= 0 ? runs[shown[current]] : null; }

  function select(i) {
    const run = currentRun();
    if (!run || !run.graders.length) return;
    selected = Math.max(0, Math.min(i, run.graders.length - 1));
    paint(run);
    section(run).querySelectorAll("li.review-verdict")[selected].scrollIntoView({ block: "nearest" });
  }

  function focusField(cls) {
    const run = currentRun();
    if (!run || !run.graders.length) return;
    section(run).querySelectorAll("li.review-verdict")[selected].querySelector(cls).focus();
  }

  document.addEventListener("keydown", (e) => {
    const field = e.target.closest && e.target.closest("input, select, textarea");
    if (field) {
      if (e.key === "Escape" || (e.key === "Enter" && field.tagName === "INPUT")) { field.blur(); e.preventDefault(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const run = currentRun();
    const g = run && run.graders[selected];
    const actions = {
      j: () => show(current + 1), ArrowRight: () => show(current + 1),
      k: () => show(current - 1), ArrowLeft: () => show(current - 1),
      ArrowDown: () => select(selected + 1), ArrowUp: () => select(selected - 1),
      p: () => g && (put(run, g, { verdict: "pass" }), select(selected + 1)),
      f: () => g && (put(run, g, { verdict: "fail" }), select(selected + 1)),
      x: () => g && clear(run, g),
      n: () => focusField(".lab-note"),
      c: () => focusField(".lab-codes"),
    };
    if (/^[1-9]$/.test(e.key)) { select(Number(e.key) - 1); e.preventDefault(); return; }
    if (actions[e.key]) { actions[e.key](); e.preventDefault(); }
  });

  runs.forEach((run) => {
    section(run).querySelectorAll("li.review-verdict").forEach((li, i) => {
      const g = run.graders[i];
      li.addEventListener("click", () => { selected = i; paint(run); });
      li.querySelector(".lab-pass").addEventListener("click", () => put(run, g, { verdict: "pass" }));
      li.querySelector(".lab-fail").addEventListener("click", () => put(run, g, { verdict: "fail" }));
      li.querySelector(".lab-clear").addEventListener("click", () => clear(run, g));
      for (const cls of [".lab-note", ".lab-codes"]) {
        li.querySelector(cls).addEventListener("change", () => { if (labelOf(run, g)) put(run, g, {}); });
      }
    });
  });
  for (const id of ["f-show", "f-case", "f-arm"]) $(id).addEventListener("change", () => { refilter(); $(id).blur(); });
  const download = $("download");
  if (download) {
    download.addEventListener("click", () => {
      const doc = { schemaVersion: 1, labels: [...labels.values()] };
      const blob = new Blob([JSON.stringify(doc, null, 1) + "\n"], { type: "application/json" });
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = "labels.json";
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    });
  }
  const start = runs.findIndex((run) => "#/" + run.id === location.hash);
  refilter(start >= 0 ? start : undefined);
  if (data.mode === "static") status(labels.size + " label(s) in this page — Download labels.json to keep changes");
})();

// Side by side: two frameworks' programs next to each other, step by step, with the lines that do the
// same thing paired. The pairs come from the part marks the snippets carry (`# [loss] ...`, checked at
// build time by rosetta/build/snippets.py), never from guessing by text. This script only rearranges what the
// step tabs already hold: without JavaScript the tabs are the page.
(() => {
  "use strict";
  const STORE = "rosetta-compare";          // localStorage: {mode: "tabs" | "pair", left, right}
  const PARAM = "compare";                  // ?compare=pytorch,keras opens the page with that pair
  // The same rule as rosetta/build/snippets.py: a comment line alone, `# [id, id] text` (`//` in JavaScript).
  const MARK = /^\s*(?:#|\/\/) \[([a-z][a-z0-9-]*(?:, [a-z][a-z0-9-]*)*)\](?: .*)?$/;

  const declared = (() => {                 // step -> its parts in reading order (pages.py writes them)
    const node = document.getElementById("rosetta-parts");
    try { return node ? JSON.parse(node.textContent) : {}; } catch (err) { return {}; }
  })();

  function load() {
    try { return JSON.parse(localStorage.getItem(STORE)) || {}; } catch (err) { return {}; }
  }
  function save(state) {
    try { localStorage.setItem(STORE, JSON.stringify(state)); } catch (err) { /* no storage: not remembered */ }
  }

  // The steps' own tab sets: synced by framework, not nested in another tab (Keras' backends are).
  function stepSets() {
    return [...document.querySelectorAll(".sd-tab-set")].filter(set =>
      !set.parentElement.closest(".sd-tab-content") &&
      set.querySelector(':scope > label[data-sync-group="framework"]'));
  }

  function programsOf(sets) {
    const seen = new Map();
    for (const set of sets) {
      for (const label of set.querySelectorAll(":scope > label.sd-tab-label")) {
        const id = label.dataset.syncId;
        if (id && !seen.has(id)) seen.set(id, label.textContent.trim());
      }
    }
    return seen;                             // sync id -> tab label, in page order
  }

  // A copy of a tab's content whose ids, radio groups and references are its own: a copied radio
  // sharing its original's group would untick the original.
  function copyOf(node, side) {
    const copy = node.cloneNode(true);
    const suffix = `-${side}`;
    for (const el of copy.querySelectorAll("[id]")) el.id += suffix;
    for (const input of copy.querySelectorAll("input[name]")) input.name += suffix;
    for (const el of copy.querySelectorAll("label[for]")) el.htmlFor += suffix;
    for (const el of copy.querySelectorAll("[aria-controls]")) {
      el.setAttribute("aria-controls", el.getAttribute("aria-controls") + suffix);
    }
    for (const el of copy.querySelectorAll("[data-clipboard-target]")) {
      el.dataset.clipboardTarget += suffix;
    }
    return copy;
  }

  // The lines of a highlighted block, each as a list of nodes. Pygments' spans hold one token; a token
  // over several lines (a docstring) is cut into one span per line.
  function linesOf(pre) {
    const lines = [[]];
    for (const node of [...pre.childNodes]) {
      const text = node.textContent;
      if (!text.includes("\n")) { lines[lines.length - 1].push(node); continue; }
      text.split("\n").forEach((piece, i) => {
        if (i > 0) lines.push([]);
        if (!piece) return;
        let part;
        if (node.nodeType === Node.TEXT_NODE) part = document.createTextNode(piece);
        else { part = node.cloneNode(false); part.textContent = piece; }
        lines[lines.length - 1].push(part);
      });
    }
    if (lines.length > 1 && lines[lines.length - 1].length === 0) lines.pop();   // the final newline
    return lines;
  }

  // Cut a program's code into bands, one per part mark; returns the bands (in order).
  function band(pre, parts) {
    const lines = linesOf(pre);
    const marks = lines.map(line => {
      const found = MARK.exec(line.map(n => n.textContent).join(""));
      return found ? found[1].split(", ").filter(id => parts.includes(id)) : null;
    });
    if (!marks.some(ids => ids && ids.length)) return [];
    const bands = [];
    let current = null;
    pre.textContent = "";
    lines.forEach((line, i) => {
      if (marks[i] && marks[i].length) {
        current = document.createElement("span");
        current.className = "rosetta-part";
        current.dataset.parts = marks[i].join(" ");
        current.dataset.color = String(parts.indexOf(marks[i][0]) % 6);
        current.title = "Part: " + marks[i].map(id => id.replace(/-/g, " ")).join(", ");
        bands.push(current);
        pre.append(current);
        line.forEach(n => n.classList && n.classList.add("rosetta-mark"));
      }
      const target = current || pre;
      if (target.childNodes.length) target.append("\n");
      target.append(...line);
    });
    return bands;
  }

  const shares = (a, b) => a.dataset.parts.split(" ").some(id => b.dataset.parts.split(" ").includes(id));

  // Pairs of bands that do the same thing, in order on both sides: a longest common subsequence of the
  // two programs' marks (programs may order their parts differently; unmatched bands stay unpaired).
  function matched(left, right) {
    const n = left.length, m = right.length;
    const best = Array.from({length: n + 1}, () => new Array(m + 1).fill(0));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        best[i][j] = shares(left[i], right[j]) ? best[i + 1][j + 1] + 1 : Math.max(best[i + 1][j], best[i][j + 1]);
      }
    }
    const pairs = [];
    for (let i = 0, j = 0; i < n && j < m;) {
      if (shares(left[i], right[j])) { pairs.push([left[i], right[j]]); i++; j++; }
      else if (best[i + 1][j] >= best[i][j + 1]) i++;
      else j++;
    }
    return pairs;
  }

  // Paired bands start at the same height: the higher one gets the difference as a margin.
  function align(pair) {
    const bands = [...pair.querySelectorAll(".rosetta-part")];
    bands.forEach(b => { b.style.marginTop = ""; });
    if (getComputedStyle(pair).display !== "grid") return;        // stacked on a narrow screen
    for (const [a, b] of pair.rosettaPairs || []) {
      const gap = a.getBoundingClientRect().top - b.getBoundingClientRect().top;
      if (Math.abs(gap) < 1) continue;
      const lower = gap > 0 ? b : a;
      lower.style.marginTop = `${Math.abs(gap)}px`;
    }
  }

  function hover(pair) {
    pair.addEventListener("mouseover", event => {
      const hot = event.target.closest(".rosetta-part");
      pair.querySelectorAll(".rosetta-part-hot").forEach(b => b.classList.remove("rosetta-part-hot"));
      if (!hot) return;
      hot.classList.add("rosetta-part-hot");
      for (const [a, b] of pair.rosettaPairs || []) {
        if (a === hot || b === hot) { a.classList.add("rosetta-part-hot"); b.classList.add("rosetta-part-hot"); }
      }
    });
    pair.addEventListener("mouseleave", () => {
      pair.querySelectorAll(".rosetta-part-hot").forEach(b => b.classList.remove("rosetta-part-hot"));
    });
  }

  function column(set, id, name, side) {
    const cells = {head: document.createElement("div"), code: document.createElement("div"),
                   rest: document.createElement("div")};
    Object.entries(cells).forEach(([row, cell]) => { cell.className = `rosetta-${side} rosetta-pair-${row}`; });
    cells.head.textContent = name;
    const label = [...set.querySelectorAll(":scope > label.sd-tab-label")].find(l => l.dataset.syncId === id);
    if (!label) {
      cells.code.innerHTML = "<p class=\"rosetta-pair-missing\"></p>";
      cells.code.firstChild.textContent = `${name} has no program for this step.`;
      return cells;
    }
    const content = copyOf(label.nextElementSibling, side);
    const first = content.firstElementChild;
    if (first && /\bhighlight-(?!text\b)/.test(first.className)) cells.code.append(first);
    cells.rest.append(...content.childNodes);
    return cells;
  }

  function renderPair(set, left, right, names) {
    let pair = set.nextElementSibling;
    if (!pair || !pair.classList.contains("rosetta-pair")) {
      pair = document.createElement("div");
      pair.className = "rosetta-pair";
      set.after(pair);
      hover(pair);
      // A choice among a copied program's backends (Keras 3) is made on the original tabs, so that
      // every step and every page follow it, as with the tabs.
      pair.addEventListener("change", event => {
        const original = document.getElementById(event.target.id.replace(/-(left|right)$/, ""));
        if (original) {
          original.checked = true;
          original.dispatchEvent(new Event("change"));
          render();
        }
      });
    }
    const step = (set.closest("section") || {}).id;
    const parts = declared[step] || [];
    const l = column(set, left, names.get(left), "left"), r = column(set, right, names.get(right), "right");
    pair.replaceChildren(l.head, r.head, l.code, r.code, l.rest, r.rest);
    pair.setAttribute("aria-label", `${names.get(left)} and ${names.get(right)}, side by side`);
    pair.setAttribute("role", "group");
    const bandsOf = cell => { const pre = cell.querySelector("pre"); return pre ? band(pre, parts) : []; };
    pair.rosettaPairs = parts.length ? matched(bandsOf(l.code), bandsOf(r.code)) : [];
    return pair;
  }

  let state = load();
  let sets = [], names = new Map(), bar = null, stick = () => {};

  function chosenTab() {
    const checked = sets.length && sets[0].querySelector(":scope > input:checked + label");
    return checked ? checked.dataset.syncId : null;
  }

  function valid() {
    const ids = [...names.keys()];
    let left = names.has(state.left) ? state.left : (chosenTab() || ids[0]);
    let right = names.has(state.right) && state.right !== left ? state.right : ids.find(id => id !== left);
    return [left, right];
  }

  function render() {
    const pairMode = state.mode === "pair" && names.size > 1;
    const [left, right] = valid();
    document.body.classList.toggle("rosetta-pair-mode", pairMode);
    for (const set of sets) {
      set.classList.toggle("rosetta-hidden", pairMode);
      const next = set.nextElementSibling;
      if (pairMode) renderPair(set, left, right, names);
      else if (next && next.classList.contains("rosetta-pair")) next.remove();
    }
    if (bar) {
      bar.querySelectorAll("button[data-mode]").forEach(b =>
        b.setAttribute("aria-pressed", String((b.dataset.mode === "pair") === pairMode)));
      bar.querySelector("select[data-side=left]").value = left;
      bar.querySelector("select[data-side=right]").value = right;
      bar.querySelectorAll("select").forEach(s => { s.disabled = !pairMode; });
      const link = bar.querySelector("a.rosetta-compare-link");
      const url = new URL(window.location.href);
      url.searchParams.set(PARAM, `${left},${right}`);
      url.hash = "";
      link.href = url.pathname + url.search;
      link.hidden = !pairMode;
    }
    if (pairMode) requestAnimationFrame(() => document.querySelectorAll(".rosetta-pair").forEach(align));
  }

  function toolbar() {
    const div = document.createElement("div");
    div.className = "rosetta-compare-bar";
    div.setAttribute("role", "group");
    div.setAttribute("aria-label", "How to read the steps");
    const options = [...names].map(([id, name]) => `<option value="${id}"></option>`).join("");
    div.innerHTML =
      '<span class="rosetta-compare-modes">' +
      '<button type="button" data-mode="tabs" aria-pressed="true">Tabs</button>' +
      '<button type="button" data-mode="pair" aria-pressed="false">Side by side</button></span>' +
      `<label>Left <select data-side="left">${options}</select></label>` +
      `<label>Right <select data-side="right">${options}</select></label>` +
      '<a class="rosetta-compare-link" href="#">Link to this pair</a>';
    div.querySelectorAll("option").forEach(o => { o.textContent = names.get(o.value); });
    div.addEventListener("click", event => {
      const button = event.target.closest("button[data-mode]");
      if (!button) return;
      state = {...state, mode: button.dataset.mode};
      save(state);
      render();
      stick();
    });
    div.addEventListener("change", event => {
      const side = event.target.dataset.side;
      if (!side) return;
      const other = side === "left" ? "right" : "left";
      const [left, right] = valid();
      const before = {left, right};
      const now = {...before, [side]: event.target.value};
      if (now[other] === now[side]) now[other] = before[side];          // picking the other one swaps them
      state = {...state, ...now};
      save(state);
      render();
    });
    return div;
  }

  function start() {
    sets = stepSets();
    names = programsOf(sets);
    if (sets.length < 2 || names.size < 2) return;        // nothing to put side by side
    const asked = new URLSearchParams(window.location.search).get(PARAM);
    if (asked) {
      const [left, right] = asked.split(",");
      if (names.has(left) && names.has(right) && left !== right) {
        state = {mode: "pair", left, right};
        save(state);
      }
    }
    bar = toolbar();
    // Above the first step's heading, in the section that holds the steps: it stays in sight (sticky)
    // while the reader goes through them.
    const step = sets[0].closest("section");
    const holder = step && step.parentElement.closest("section");
    (holder && holder.parentElement.closest("section") ? step : sets[0]).before(bar);
    render();
    // The bar sticks just under the theme's header, whose height depends on how its links wrap.
    const header = document.querySelector(".bd-header");
    stick = () => {
      const height = header ? header.getBoundingClientRect().height : 0;
      bar.style.top = `${height}px`;
      // A step's link scrolls its heading below the header and the bar, not under them.
      document.documentElement.style.scrollPaddingTop =
        state.mode === "pair" ? `${height + bar.getBoundingClientRect().height + 8}px` : "";
    };
    stick();
    // The pairs changed the page's length: go to the step a link asked for again.
    const target = window.location.hash && document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    if (target && state.mode === "pair") target.scrollIntoView();
    let timer = null;
    window.addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(() => { stick(); document.querySelectorAll(".rosetta-pair").forEach(align); }, 100);
    });
    // The theme's fonts change line heights once loaded.
    if (document.fonts) document.fonts.ready.then(() => document.querySelectorAll(".rosetta-pair").forEach(align));
  }

  // After sphinx-design has restored the remembered tabs (its own DOMContentLoaded handler).
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => setTimeout(start));
  else start();
})();

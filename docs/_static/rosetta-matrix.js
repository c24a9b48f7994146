// The front page's matrix and the lessons index on a phone: each row (a framework, a lesson's claim) stacks into
// a block of its own, each cell under the name of its column (rosetta.css, below 540 px). The names come from the table's own header row; the
// roles keep it a table for a screen reader once its parts are displayed as blocks.
(() => {
  "use strict";
  for (const table of document.querySelectorAll(".rosetta-matrix table, .rosetta-lesson-index table")) {
    const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    table.setAttribute("role", "table");
    for (const part of table.querySelectorAll("thead, tbody")) part.setAttribute("role", "rowgroup");
    for (const row of table.rows) {
      row.setAttribute("role", "row");
      [...row.cells].forEach((cell, i) => {
        cell.setAttribute("role", cell.tagName === "TH" ? "columnheader" : i === 0 ? "rowheader" : "cell");
        if (cell.tagName === "TD" && names[i]) cell.dataset.label = names[i];
      });
    }
    table.classList.add("rosetta-stacks");
  }
})();

// A box that scrolls sideways (long code lines, a wide table, a chart on a phone) needs a tab stop, or a
// keyboard reader cannot scroll it. The theme gives one to each such box when the page loads and when
// the window is resized; a box hidden then (the code of a tab not chosen yet, a closed dropdown's
// table) has no width at that moment and gets none. So: whenever one of these boxes appears or changes
// size, apply the theme's own rule to it again.
(() => {
  const boxes = "pre, .pst-scrollable-table-container, figure.rosetta-chart";
  const start = () => {
    const observer = new ResizeObserver((entries) => {
      for (const { target: box } of entries) {
        box.tabIndex = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight ? 0 : -1;
      }
    });
    document.querySelectorAll(boxes).forEach((box) => observer.observe(box));
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

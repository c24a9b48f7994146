// A box that scrolls sideways (long code lines, a wide table, a chart on a phone) needs a tab stop, or a
// keyboard reader cannot scroll it. The theme gives one to each such box when the page loads and when
// the window is resized; a box hidden then (the code of a tab not chosen yet, a closed dropdown's
// table) has no width at that moment and gets none, and a box added later (the side-by-side view's
// copies of the code) is never seen. So: whenever one of these boxes appears or changes size, apply
// the theme's own rule to it again.
(() => {
  const boxes = "pre, .pst-scrollable-table-container, figure.rosetta-chart";
  const start = () => {
    const sizes = new ResizeObserver((entries) => {
      for (const { target: box } of entries) {
        box.tabIndex = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight ? 0 : -1;
      }
    });
    const watch = (root) => {
      if (root.matches?.(boxes)) sizes.observe(root);
      root.querySelectorAll?.(boxes).forEach((box) => sizes.observe(box));
    };
    watch(document);
    new MutationObserver((changes) => changes.forEach((change) => change.addedNodes.forEach(watch)))
      .observe(document.body, { childList: true, subtree: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

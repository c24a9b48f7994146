// The theme's header wraps onto two or three rows on a narrower desktop screen, while the page's own
// rules count it one row high (4rem): a link to a heading would scroll it under the header. Its real
// height, kept up to date (a resize, the fonts arriving), is --rosetta-header-height, which rosetta.css
// uses for the scroll padding and for the table of contents that sticks below the header.
(() => {
  "use strict";
  const header = document.querySelector(".bd-header");
  if (!header) return;
  const root = document.documentElement;
  let last = -1;
  const measure = () => {
    const height = Math.ceil(header.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    root.style.setProperty("--rosetta-header-height", `${height}px`);
  };
  measure();
  if (window.ResizeObserver) new ResizeObserver(measure).observe(header);
  else window.addEventListener("resize", measure);
})();

// A lesson step on a laptop: the bar stays at the top of the page while the student scrolls (it says what to
// look at), and on arriving at a step the page scrolls so the chart the step talks about starts right under
// the bar. Static: its only data are the step's name and the keys of the elements it may point at.
const BAR = '.st-key-lesson-bar';
const FRAMES_STILL = 10; // the target has stayed put this many frames: the page has stopped moving
const GIVE_UP_MS = 120000; // a real model's first run can take a minute on a loaded machine

function scroller(el) {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const y = getComputedStyle(p).overflowY;
    if ((y === 'auto' || y === 'scroll') && p.scrollHeight > p.clientHeight) return p;
  }
  return document.scrollingElement;
}

function target(doc, keys) {
  for (const key of keys) {
    const el = doc.querySelector(`.st-key-${key}`);
    if (el) return el;
  }
  if (keys.length) return null;
  const bar = doc.querySelector(BAR);
  return [...doc.querySelectorAll('.js-plotly-plot')].find(
    (c) => !bar || c.getBoundingClientRect().top > bar.getBoundingClientRect().bottom,
  ) || null;
}

function paintBar(doc) {
  // Sticky, the bar covers what scrolls under it: its background is the page's, in either theme.
  const bar = doc.querySelector(BAR);
  const app = doc.querySelector('[data-testid="stApp"]') || doc.body;
  if (bar) bar.style.backgroundColor = getComputedStyle(app).backgroundColor;
}

function keepUnder(doc) {
  // The bar grows (an answer revealed, its words unfolded) over what lies under it: the page moves down as
  // much, so what was just under the bar (the chart) stays just under it. Stuck or not: at the page's top
  // there is nothing to scroll and the bar pushes the page down itself.
  const bar = doc.querySelector(BAR);
  if (!bar || bar.__keepUnder) return;
  let was = bar.getBoundingClientRect().height;
  bar.__keepUnder = new ResizeObserver(() => {
    const now = bar.getBoundingClientRect().height;
    if (now !== was && bar.isConnected) scroller(bar).scrollBy(0, -(now - was));
    was = now;
  });
  bar.__keepUnder.observe(bar);
}

export default function (component) {
  const { data } = component;
  const doc = window.document;
  const step = (data && data.step) || '';
  const keys = (data && data.keys) || [];
  paintBar(doc);
  keepUnder(doc);
  if (!step || window.__lessonScrolled === step) return undefined;
  window.__lessonScrolled = step;
  const began = performance.now();
  let last = null;
  let still = 0;
  let stopped = false;
  const stop = () => { stopped = true; };
  // The student scrolling or typing takes over at once.
  for (const type of ['wheel', 'touchmove', 'keydown', 'mousedown']) doc.addEventListener(type, stop, { once: true, capture: true });
  function tick() {
    if (stopped || window.__lessonScrolled !== step || performance.now() - began > GIVE_UP_MS) return;
    const el = target(doc, keys);
    const bar = doc.querySelector(BAR);
    if (el && bar) {
      // where the bar sits once stuck (its wrapper's CSS top), plus its height: the chart starts just below
      const stuck = parseFloat(getComputedStyle(bar.parentElement).top) || 0;
      const gap = el.getBoundingClientRect().top - (stuck + bar.getBoundingClientRect().height + 8);
      if (Math.abs(gap) > 2) scroller(el).scrollBy(0, gap);
      const top = Math.round(el.getBoundingClientRect().top);
      still = top === last ? still + 1 : 0;
      last = top;
      if (still >= FRAMES_STILL) return;
    }
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
  return undefined;
}

// A lesson step on a laptop: the bar stays at the top of the page while the student scrolls (it says what to
// look at), and on arriving at a step the page scrolls so the chart the step talks about starts right under
// the bar. Static: its only data are the step's name and the keys of the elements it may point at.
const BAR = '.st-key-lesson-bar';
const FRAMES_STILL = 10; // the target has stayed put this many frames: the page has stopped moving
const GIVE_UP_MS = 120000; // a real model's first run can take a minute on a loaded machine
// The bar stays at the top while it takes at most this share of the screen; taller (a long answer and the
// experiment on a short screen), it scrolls away with the page rather than cover what it talks about.
const FIT = 1 / 3;
const STUCK_TOP_REM = 3.75; // lesson_ui.STICKY_CSS: the bar sticks under Streamlit's header

function rem(doc) {
  return parseFloat(getComputedStyle(doc.documentElement).fontSize) || 16;
}

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
  // Sticky, the bar covers what scrolls under it: its background is the page's, in either theme; so is the
  // header's above it (Streamlit's is see-through: a heading scrolled under it showed above the bar).
  const bar = doc.querySelector(BAR);
  const app = doc.querySelector('[data-testid="stApp"]') || doc.body;
  const bg = getComputedStyle(app).backgroundColor;
  if (bar) bar.style.backgroundColor = bg;
  const header = doc.querySelector('[data-testid="stHeader"]');
  if (header) header.style.backgroundColor = bg;
}

function fits(doc, bar) {
  // Sticks (html has no data-lesson-bar="free") while the bar takes at most FIT of the screen. Let go while
  // on screen, the bar would jump back to its place at the top of the page: the page follows it there.
  const free = bar.getBoundingClientRect().height > FIT * window.innerHeight;
  const was = doc.documentElement.dataset.lessonBar === 'free';
  if (free === was) return;
  const top = bar.getBoundingClientRect().top;
  if (free) doc.documentElement.dataset.lessonBar = 'free';
  else delete doc.documentElement.dataset.lessonBar;
  if (free) scroller(bar).scrollBy(0, bar.getBoundingClientRect().top - top);
}

function keepUnder(doc) {
  // The bar grows (an answer revealed, its words unfolded) over what lies under it: the page moves down as
  // much, so what was just under the bar (the chart) stays just under it. Stuck or not: at the page's top
  // there is nothing to scroll and the bar pushes the page down itself.
  // Let go (taller than FIT), it scrolls with the page and moves nothing.
  const bar = doc.querySelector(BAR);
  if (!bar) return;
  fits(doc, bar);
  if (bar.__keepUnder) return;
  let was = bar.getBoundingClientRect().height;
  bar.__keepUnder = new ResizeObserver(() => {
    const now = bar.getBoundingClientRect().height;
    if (!bar.isConnected) return;
    const stuck = doc.documentElement.dataset.lessonBar !== 'free';
    if (now !== was && stuck) scroller(bar).scrollBy(0, -(now - was));
    was = now;
    fits(doc, bar);
  });
  bar.__keepUnder.observe(bar);
  if (!window.__lessonFits) {
    window.__lessonFits = true;
    window.addEventListener('resize', () => { const b = doc.querySelector(BAR); if (b) fits(doc, b); });
  }
}

function showRow(doc, inner) {
  // A box of rows that scrolls inside the page (/ablation's switches): the row the step is about at its top.
  if (!inner) return;
  const [box, label] = inner;
  const el = doc.querySelector(`.st-key-${box}`);
  const row = el && [...el.querySelectorAll('[data-testid="stWidgetLabel"]')].find((l) => l.innerText.trim() === label);
  if (row) el.scrollTop += row.getBoundingClientRect().top - el.getBoundingClientRect().top;
}

export default function (component) {
  const { data } = component;
  const doc = window.document;
  const step = (data && data.step) || '';
  const keys = (data && data.keys) || [];
  const inner = (data && data.inner) || null;
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
      // where the bar sits once stuck, plus its height: the chart starts just below; a bar let go (too tall to
      // stick) starts under the header itself, the chart wherever it follows
      const stuckAt = STUCK_TOP_REM * rem(doc);
      const gap = doc.documentElement.dataset.lessonBar === 'free'
        ? bar.getBoundingClientRect().top - stuckAt
        : el.getBoundingClientRect().top - (stuckAt + bar.getBoundingClientRect().height + 8);
      if (Math.abs(gap) > 2) scroller(el).scrollBy(0, gap);
      const top = Math.round(el.getBoundingClientRect().top);
      still = top === last ? still + 1 : 0;
      last = top;
      if (still >= FRAMES_STILL) { showRow(doc, inner); return; }
    }
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
  return undefined;
}

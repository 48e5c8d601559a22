// What every page needs for a keyboard or a screen reader that Streamlit's markup does not give, mounted once
// by the frame (explorer/ui/a11y.py). No visitor text reaches this script: its data is the language on screen
// and the catalog's words for its two labels.
//
// - a focus ring on whatever has the keyboard's focus, in the theme's primary colour (light or dark);
// - a skip link, the first stop of the Tab key, to the page's first chart;
// - the page menu (explorer.ui.frame.navigation) as a navigation landmark, its current page marked;
// - a formula wider than its column can be scrolled from the keyboard (it takes the focus);
// - the page's language on <html lang>, so a screen reader reads Spanish as Spanish.
//
// It only sets attributes on the page's own nodes and adds nodes only outside Streamlit's root (the skip link):
// React owns the page's markup, formulas included, and a node moved or replaced under it makes React's next
// update of that part fail ("Failed to execute 'removeChild' on 'Node'"), a red error in place of a formula.
// A word in a formula is read as a word because the formulas write it \operatorname{softmax} (one <mi>).

const STYLE_ID = 'ae-a11y-style';
const SKIP_ID = 'ae-skip';
const NAV = '.st-key-nav';
const CHARTS = '[data-testid="stMain"] [data-testid="explorerChart"]';
let words = { skip: 'Skip to the charts', nav: 'Pages' }; // the language on screen's (the frame sends them)

// The ring: 3 px of the primary colour, 2 px outside the focused control, on the element that shows it: a
// text, number or select box's frame (the box clips its input, so the input's own outline would not show), a
// radio button's, checkbox's or switch's label (their input is hidden), and anything else itself. Streamlit's
// widgets draw their own focus state with a box shadow or not at all (page links: outline none).
const RING = 'outline: 3px solid var(--ae-focus) !important; outline-offset: 2px !important;';
const CSS = `
:root { --ae-focus: #3451b2; --ae-focus-halo: #ffffff; }
:focus-visible { ${RING} }
button:focus-visible, a:focus-visible, summary:focus-visible {
  box-shadow: 0 0 0 2px var(--ae-focus-halo) !important;
}
input:focus-visible, textarea:focus-visible { outline: none !important; }
div:has(> input:focus-visible:not([type="radio"], [type="checkbox"])), div:has(> textarea:focus-visible),
label:has(input:focus-visible:is([type="radio"], [type="checkbox"])) {
  ${RING} border-radius: 0.4rem;
}
#${SKIP_ID} {
  position: fixed; left: 0.5rem; top: 0.5rem; z-index: 1000200;
  padding: 0.5rem 1rem; border-radius: 0.4rem;
  background: var(--ae-focus); color: var(--ae-focus-halo); font-weight: 600; text-decoration: none;
  transform: translateY(-200%);
}
#${SKIP_ID}:focus { transform: none; }
`;

function ensureStyle() {
  if (document.getElementById(STYLE_ID)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  document.head.appendChild(style);
}

// The skip link's target: the page's first chart (id "charts", focusable by script). A page without a chart
// has no such link (Streamlit's own "Skip to main content" remains).
function skipTarget() {
  const target = document.querySelector(CHARTS);
  const before = document.getElementById('charts');
  if (before && before !== target) before.removeAttribute('id');
  if (!target) return null;
  if (target.id !== 'charts') target.id = 'charts';
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  return target;
}

function skipToCharts(event) {
  event.preventDefault();
  const target = skipTarget();
  if (!target) return;
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'start' });
}

function ensureSkipLink(present) {
  let link = document.getElementById(SKIP_ID);
  if (!present) {
    if (link) link.remove();
    return;
  }
  if (!link) {
    link = document.createElement('a');
    link.id = SKIP_ID;
    link.href = '#charts';
    link.addEventListener('click', skipToCharts);
  }
  if (link.textContent !== words.skip) link.textContent = words.skip;
  if (document.body.firstChild !== link) document.body.prepend(link); // before Streamlit's root: first Tab
}

const here = () => location.pathname.replace(/\/+$/, '');

function markNavigation() {
  const nav = document.querySelector(NAV);
  if (!nav) return;
  if (nav.getAttribute('role') !== 'navigation') nav.setAttribute('role', 'navigation');
  if (nav.getAttribute('aria-label') !== words.nav) nav.setAttribute('aria-label', words.nav);
  nav.querySelectorAll('a[href]').forEach((a) => {
    const current = new URL(a.getAttribute('href'), location.href).pathname.replace(/\/+$/, '') === here();
    if (current && a.getAttribute('aria-current') !== 'page') a.setAttribute('aria-current', 'page');
    if (!current && a.hasAttribute('aria-current')) a.removeAttribute('aria-current');
  });
}

// KaTeX's display formulas scroll sideways when wider than their column: such a one takes the focus, so the
// arrow keys can scroll it (its MathML is what a screen reader reads). A formula's width changes with no
// change to the page's nodes (its font arrives, its column narrows): each formula's box and its content's
// are watched for that too.
const watched = new WeakSet();
const sizes = typeof ResizeObserver === 'function' ? new ResizeObserver(() => soon()) : null;
function focusableFormulas() {
  document.querySelectorAll('.katex-display').forEach((el) => {
    if (sizes && !watched.has(el)) {
      watched.add(el);
      sizes.observe(el);
      if (el.firstElementChild) sizes.observe(el.firstElementChild);
    }
    const scrolls = el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight;
    if (scrolls && el.getAttribute('tabindex') !== '0') el.setAttribute('tabindex', '0');
    if (!scrolls && el.getAttribute('tabindex') === '0') el.removeAttribute('tabindex');
  });
}

function fix() {
  ensureSkipLink(!!skipTarget());
  markNavigation();
  focusableFormulas();
}

// Streamlit redraws parts of the page on every run: the fixes are applied again once the page has been
// quiet for a moment (one check per burst of changes, not one per changed node). <html data-ae-a11y> says
// whether a check is due ("due") or the page as it stands has been fixed ("done"): an audit waits for "done".
let due = 0;
function soon() {
  if (due) return;
  document.documentElement.dataset.aeA11y = 'due';
  due = setTimeout(() => {
    due = 0;
    fix();
    document.documentElement.dataset.aeA11y = 'done';
  }, 120);
}

function install() {
  if (window.__aeA11y) return;
  window.__aeA11y = true;
  ensureStyle();
  new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
  window.addEventListener('popstate', soon);
  window.addEventListener('resize', soon);
  if (document.fonts) document.fonts.addEventListener('loadingdone', soon);
  fix();
}

// Called when the element is mounted and again when the theme changes: the ring takes the theme's colours.
export default function (component) {
  const data = component.data || {};
  if (data.lang && document.documentElement.lang !== data.lang) document.documentElement.lang = data.lang;
  words = { skip: data.skip || words.skip, nav: data.nav || words.nav };
  install();
  const css = getComputedStyle(component.parentElement);
  const primary = css.getPropertyValue('--st-primary-color').trim();
  const background = css.getPropertyValue('--st-background-color').trim();
  if (primary) document.documentElement.style.setProperty('--ae-focus', primary);
  if (background) document.documentElement.style.setProperty('--ae-focus-halo', background);
  soon();
}

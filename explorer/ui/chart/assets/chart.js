// The one chart element (explorer/chart): a Plotly figure whose node stays on the page across reruns.
//
// Streamlit calls the default export when the chart is mounted and again whenever its data (the figure's
// bytes) or the theme changed; the same parentElement comes back each time, so the chart keeps its <div>
// and redraws in place with Plotly.react. plotly.js (from the plotly package, served by the app) and the
// shared light/dark templates are fetched once per browser, by the first chart that needs them: they sit
// beside this file under names that carry their content's hash (explorer/chart/__init__.py writes this file
// with plotly.js's name in place of the placeholder below), so a browser may keep them as long as it likes.

const PLOTLY_URL = new URL('__PLOTLY_FILE__', import.meta.url).href;
const TEMPLATES_URL = (name) => new URL(name, import.meta.url).href;
const DEFAULT_HEIGHT = 450;

let plotlyLoad = null;
function loadPlotly() {
  if (!plotlyLoad) {
    plotlyLoad = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = PLOTLY_URL;
      script.async = true;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => {
        plotlyLoad = null;
        reject(new Error(`could not load ${PLOTLY_URL}`));
      };
      document.head.appendChild(script);
    });
  }
  return plotlyLoad;
}
loadPlotly(); // starts with the first chart's module, while its data is still being decoded

const templateLoads = new Map(); // file name -> Promise<{light, dark}>
function loadTemplates(name) {
  if (!templateLoads.has(name)) {
    const load = fetch(TEMPLATES_URL(name)).then((r) => {
      if (!r.ok) throw new Error(`could not load ${name}: ${r.status}`);
      return r.json();
    });
    load.catch(() => templateLoads.delete(name));
    templateLoads.set(name, load);
  }
  return templateLoads.get(name);
}

// ------------------------------------------------------------------------------------------------ theme

let probe = null;
function rgbOf(color) {
  probe = probe || document.createElement('canvas').getContext('2d');
  probe.fillStyle = '#000';
  probe.fillStyle = color;
  const c = probe.fillStyle; // "#rrggbb" or "rgba(r, g, b, a)"
  if (c.startsWith('#')) return [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
  return c.match(/[\d.]+/g).slice(0, 3).map(Number);
}

function luminance(color) {
  const lin = rgbOf(color).map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

// The Streamlit theme as its component wrapper exposes it (--st-* custom properties).
function themeOf(el) {
  const css = getComputedStyle(el);
  const v = (name, dflt) => css.getPropertyValue(name).trim() || dflt;
  const bg = v('--st-background-color', '#ffffff');
  const text = v('--st-text-color', '#31333f');
  const font = v('--st-font', '"Source Sans", sans-serif');
  return {
    bg,
    text,
    heading: v('--st-heading-color', text),
    font,
    headingFont: v('--st-heading-font', font),
    border: v('--st-border-color', 'rgba(49, 51, 63, 0.2)'),
    light: luminance(bg) > 0.5,
  };
}

// What st.plotly_chart's "streamlit" theme lays over a figure's template (Streamlit 1.67, PlotlyChart:
// fonts and colours of the app's theme; its greys are fixed palette colours).
function streamlitLayout(t) {
  // Axis labels, ticks and titles: Streamlit's own light grey (#808495) is 3.7:1 on white, too faint for a
  // projector; #5c5f6e is 6.3:1 (WCAG asks 4.5:1). The dark theme's is 15:1.
  const faded = t.light ? '#5c5f6e' : '#e6eaf1';
  const grid = t.light ? '#e6eaf1' : '#31333F';
  const legend = t.light ? '#262730' : '#fafafa';
  return {
    font: { color: faded, family: t.font, size: 12, weight: 400 },
    title: {
      color: t.heading,
      subtitleColor: t.text,
      font: { family: t.headingFont, size: 16, color: t.heading },
      pad: { l: 4 },
      xanchor: 'left',
      x: 0,
    },
    legend: {
      title: { font: { size: 12, color: faded }, side: 'top' },
      valign: 'top',
      bordercolor: 'transparent',
      borderwidth: 0,
      font: { size: 12, color: legend },
    },
    paper_bgcolor: t.bg,
    plot_bgcolor: t.bg,
    shapedefaults: { line: { color: t.bg } }, // the lines between heatmap cells (figures.cell_lines)
    yaxis: {
      ticklabelposition: 'outside',
      zerolinecolor: grid,
      title: { font: { color: faded, size: 14 }, standoff: 24 },
      tickcolor: grid,
      tickfont: { color: faded, size: 12 },
      gridcolor: grid,
      minor: { gridcolor: grid },
      automargin: true,
    },
    xaxis: {
      zerolinecolor: grid,
      gridcolor: grid,
      showgrid: false,
      tickfont: { color: faded, size: 12 },
      tickcolor: grid,
      title: { font: { color: faded, size: 14 }, standoff: 20 },
      minor: { gridcolor: grid },
      zeroline: false,
      automargin: true,
    },
    margin: { pad: 8, r: 0, l: 0 },
    hoverlabel: { bgcolor: t.bg, bordercolor: t.border, font: { color: faded, family: t.font, size: 12 } },
    coloraxis: {
      colorbar: {
        thickness: 16,
        xpad: 24,
        ticklabelposition: 'outside',
        outlinecolor: 'transparent',
        outlinewidth: 8,
        len: 0.75,
        y: 0.5745,
        title: { font: { color: faded, size: 14 } },
        tickfont: { color: faded, size: 12 },
      },
    },
  };
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
function merge(into, from) {
  for (const [k, v] of Object.entries(from)) {
    into[k] = isObject(v) && isObject(into[k]) ? merge({ ...into[k] }, v) : v;
  }
  return into;
}

function templateFor(theme, templates, own) {
  const base = templates ? templates[theme.light ? 'light' : 'dark'] : own || {};
  return { data: base.data || {}, layout: merge({ ...(base.layout || {}) }, streamlitLayout(theme)) };
}

// ------------------------------------------------------------------------------------------- the chart

const ICONS = {
  expand: {
    width: 600,
    height: 470,
    path: 'M32 32C14.3 32 0 46.3 0 64v96c0 17.7 14.3 32 32 32s32-14.3 32-32V96h64c17.7 0 32-14.3 32-32s-14.3-32-32-32H32zM64 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3-32-32-32H64V352zM320 32c-17.7 0-32 14.3-32 32s14.3 32 32 32h64v64c0 17.7 14.3 32 32 32s32-14.3 32-32V64c0-17.7-14.3-32-32-32H320zM448 352c0-17.7-14.3-32-32-32s-32 14.3-32 32v64H320c-17.7 0-32 14.3-32 32s14.3 32 32 32h96c17.7 0 32-14.3 32-32V352z',
  },
  collapse: {
    width: 600,
    height: 470,
    path: 'M160 64c0-17.7-14.3-32-32-32s-32 14.3-32 32v64H32c-17.7 0-32 14.3-32 32s14.3 32 32 32h96c17.7 0 32-14.3 32-32V64zM32 320c-17.7 0-32 14.3-32 32s14.3 32 32 32H96v64c0 17.7 14.3 32 32 32s32-14.3 32-32V352c0-17.7-14.3-32-32-32H32zM352 64c0-17.7-14.3-32-32-32s-32 14.3-32 32v96c0 17.7 14.3 32 32 32h96c17.7 0 32-14.3 32-32s-14.3-32-32-32H352V64zM320 320c-17.7 0-32 14.3-32 32v96c0 17.7 14.3 32 32 32s32-14.3 32-32V384h64c17.7 0 32-14.3 32-32s-14.3-32-32-32H320z',
  },
};

// A figure's title as plain text (Plotly's titles may hold <b>, <br> and entities).
function plainTitle(layout) {
  const t = layout && layout.title;
  const text = typeof t === 'string' ? t : (t && t.text) || '';
  const el = document.createElement('div');
  el.innerHTML = text.replace(/<br\s*\/?>/gi, ' ');
  return el.textContent.trim() || 'Chart';
}

const decoder = new TextDecoder();
const charts = new WeakMap(); // parentElement -> Chart
let described = 0; // the charts' description ids

function sameBytes(a, b) {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Charts are drawn together, in a task of their own right after the ones that bring their data: Streamlit
// hands each chart its data in a task of its own (a dynamic import resolves in a new task), and drawing each at
// once would let the browser lay out and paint the whole page between one chart and the next. (Not in the next
// animation frame: that would wait for a frame to start drawing, and the drawn chart would show a frame later.)
const due = new Set();
let pending = 0;
function request(chart) {
  due.add(chart);
  if (!pending) pending = setTimeout(flush, 0);
}

async function flush() {
  const batch = [...due];
  due.clear();
  try {
    const Plotly = await loadPlotly();
    const templates = await Promise.all(batch.map((c) => (c.templates ? loadTemplates(c.templates) : null)));
    const theme = batch.length ? themeOf(batch[0].parent) : null; // one theme for the page
    // Every width read before any chart is drawn: a read after a draw makes the browser lay the page out
    // again, once per chart (10 ms of 8 charts' redraw on /encoder).
    const sizes = batch.map((c) => (c.root.isConnected ? c.size() : null));
    batch.forEach((c, i) => c.draw(Plotly, theme, templates[i], sizes[i]));
  } catch (err) {
    console.error('explorer chart:', err);
    batch.forEach((c) => c.fail(err));
  } finally {
    pending = 0;
    if (due.size) pending = setTimeout(flush, 0); // charts that came while plotly.js was loading
  }
}

class Chart {
  constructor(parent) {
    this.parent = parent;
    this.root = document.createElement('div');
    this.root.className = 'ae-chart';
    this.root.dataset.testid = 'explorerChart';
    this.gd = document.createElement('div');
    this.gd.className = 'ae-chart-plot';
    // What the chart shows, for a screen reader: the plot is a figure named by its title and described by a
    // sentence from its numbers (explorer.views.describe); Plotly's own SVG text is not read piece by piece
    // (hidden in draw), its mode bar's buttons stay reachable.
    this.gd.setAttribute('role', 'figure');
    this.desc = document.createElement('div');
    this.desc.className = 'ae-sr-only';
    this.desc.setAttribute('aria-hidden', 'true'); // read as the image's description, not again as text
    this.desc.id = `ae-chart-desc-${++described}`;
    this.gd.setAttribute('aria-describedby', this.desc.id);
    this.tables = document.createElement('div');
    this.tables.className = 'ae-chart-tables';
    this.tables.hidden = true;
    this.root.append(this.gd, this.desc, this.tables);
    parent.appendChild(this.root);
    this.bytes = null; // the figure as Streamlit sent it (UTF-8 JSON); parsed afresh for each draw
    this.templates = null; // the shared templates' file name, if the figure's template was cut
    this.full = false;
    this.drawn = null; // what the last draw used: {bytes, themeKey, width, height}
    this.resizer = new ResizeObserver(() => {
      if (this.bytes && (!this.drawn || this.size().width !== this.drawn.width)) request(this);
    });
    this.resizer.observe(this.root);
    this.onFull = () => this.toggleFull(); // one function for every config (see config())
    this.onKey = (e) => {
      if (e.key === 'Escape' && this.full) this.toggleFull();
    };
  }

  update(bytes) {
    if (!sameBytes(bytes, this.bytes)) {
      this.bytes = bytes;
      const msg = JSON.parse(decoder.decode(bytes));
      this.templates = msg.t || null;
      if (this.templates) loadTemplates(this.templates).catch(() => {}); // fetched while the frame comes
      const said = msg.a || {};
      this.gd.setAttribute('aria-label', said.l || 'Chart');
      this.desc.textContent = said.s || '';
      this.showTables(msg.tbl || null, said);
    }
    if (!this.tables.hidden) return; // drawn as tables: no plot
    request(this); // new data, or the same data in a new theme: draw() tells which
  }

  // "Show charts as tables": the chart's numbers as tables in its place (row and column headers, a caption
  // each), under the sentence that says what it shows. Built with textContent: labels are visitor text.
  showTables(list, said) {
    this.tables.replaceChildren();
    this.tables.hidden = !list;
    this.gd.hidden = !!list;
    if (!list) return;
    this.tables.setAttribute('role', 'region');
    this.tables.setAttribute('aria-label', `${said.l || 'Chart'}, as tables`);
    this.tables.tabIndex = 0; // it scrolls: the keyboard scrolls it
    const el = (tag, text, attrs = {}) => {
      const node = document.createElement(tag);
      if (text !== undefined) node.textContent = text;
      Object.entries(attrs).forEach(([k, v]) => node.setAttribute(k, v));
      return node;
    };
    this.tables.append(el('p', said.s || '', { class: 'ae-chart-summary' }));
    list.forEach((t) => {
      const table = el('table');
      table.append(el('caption', t.caption));
      const head = el('tr');
      head.append(el('th', t.corner, { scope: 'col' }), ...t.cols.map((c) => el('th', c, { scope: 'col' })));
      table.append(el('thead'));
      table.tHead.append(head);
      const body = el('tbody');
      t.rows.forEach(([name, cells]) => {
        const tr = el('tr');
        tr.append(el('th', name, { scope: 'row' }), ...cells.map((c) => el('td', c)));
        body.append(tr);
      });
      table.append(body);
      this.tables.append(table);
    });
  }

  // The width to draw at (the column's), and the height only in fullscreen (else the figure's own).
  size() {
    if (!this.full) return { width: this.root.clientWidth, height: null };
    const css = getComputedStyle(this.root);
    const px = (name) => parseFloat(css.getPropertyValue(name)) || 0;
    return {
      width: this.root.clientWidth - px('padding-left') - px('padding-right'),
      height: this.root.clientHeight - px('padding-top') - px('padding-bottom'),
    };
  }

  draw(Plotly, theme, templates, size) {
    if (!this.bytes || !this.root.isConnected || !size || !this.tables.hidden) return;
    const { width, height } = size;
    if (width <= 0) return; // hidden: drawn when it gets a width (the ResizeObserver asks again)
    const themeKey = JSON.stringify(theme);
    const d = this.drawn;
    if (d && d.bytes === this.bytes && d.themeKey === themeKey && d.width === width && d.height === height) return;
    const msg = JSON.parse(decoder.decode(this.bytes)); // afresh: Plotly writes into the layout it is given
    const fig = msg.f;
    const layout = { ...(fig.layout || {}) };
    layout.template = templateFor(theme, templates, layout.template);
    const title = layout.title;
    if (typeof title === 'string') layout.title = { text: `<b>${title}</b>` };
    else if (isObject(title) && typeof title.text === 'string') {
      layout.title = { ...title, text: `<b>${title.text}</b>` };
    }
    layout.width = Math.max(width, 150);
    layout.height = height !== null ? height : layout.height || DEFAULT_HEIGHT;
    this.name = msg.n || 'chart';
    this.clickable = !!msg.c;
    Plotly.react(this.gd, fig.data || [], layout, this.config());
    if (!this.unhover) {  // a hover label never stays behind when the pointer leaves (over a formula below)
      this.unhover = () => Plotly.Fx.unhover(this.gd);
      this.gd.addEventListener('mouseleave', this.unhover);
    }
    // Plotly's SVG text (every tick, every cell value) is not read piece by piece: the figure's title and
    // description say what it shows. Plotly may make its SVGs anew on a redraw: hidden each time.
    this.gd.querySelectorAll('svg.main-svg').forEach((svg) => svg.setAttribute('aria-hidden', 'true'));
    if (this.clickable && !this.listening) this.listenForClicks();
    this.drawn = { bytes: this.bytes, themeKey, width, height };
    const meta = fig.layout && fig.layout.meta;
    this.setupKeys(this.clickable && meta && meta.keys ? meta.keys : null, plainTitle(fig.layout));
  }

  // A clickable chart whose figure describes a keyboard grid (layout.meta.keys: the /model head grid,
  // explorer.views.model_figures._keys) takes the focus: the arrow keys move a frame between its items, Enter
  // or Space reports the item under it as a click on it would, and a live region says which item that is.
  setupKeys(keys, title) {
    this.keys = keys;
    if (!keys) {
      if (this.cursor) this.root.removeAttribute('tabindex');
      return;
    }
    if (!this.cursor) {
      this.cursor = document.createElement('div');
      this.cursor.className = 'ae-chart-cursor';
      this.cursor.hidden = true;
      this.live = document.createElement('div');
      this.live.className = 'ae-sr-only';
      this.live.setAttribute('aria-live', 'polite');
      this.root.append(this.cursor, this.live);
      this.root.addEventListener('keydown', (e) => this.onGridKey(e));
      this.root.addEventListener('focus', () => this.showCursor(true));
      this.root.addEventListener('blur', () => this.showCursor(false));
    }
    this.root.tabIndex = 0;
    this.root.setAttribute('role', 'application');
    this.root.setAttribute('aria-roledescription', 'grid of choices');
    this.root.setAttribute('aria-label', `${title}: ${keys.help}`);
    const count = keys.xs.length * keys.ys.length;
    if (this.at === undefined || this.at >= count || keys.start !== this.start) this.at = keys.start;
    this.start = keys.start;
    this.placeCursor();
  }

  onGridKey(e) {
    const k = this.keys;
    if (!k || e.altKey || e.ctrlKey || e.metaKey) return;
    const cols = k.xs.length;
    const rows = k.ys.length;
    let r = Math.floor(this.at / cols);
    let c = this.at % cols;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (this.trigger) this.trigger('click', JSON.stringify({ curve: k.curve, point: this.at }));
      return;
    }
    const moves = {
      ArrowLeft: () => (c -= 1), ArrowRight: () => (c += 1), ArrowUp: () => (r -= 1), ArrowDown: () => (r += 1),
      Home: () => (c = 0), End: () => (c = cols - 1), PageUp: () => (r = 0), PageDown: () => (r = rows - 1),
    };
    if (!moves[e.key]) return;
    e.preventDefault(); // the page would scroll
    moves[e.key]();
    this.at = Math.min(rows - 1, Math.max(0, r)) * cols + Math.min(cols - 1, Math.max(0, c));
    this.showCursor(true);
  }

  showCursor(on) {
    if (!this.cursor) return;
    this.cursor.hidden = !on;
    if (!on) return;
    this.placeCursor();
    this.live.textContent = this.keys.names[this.at] || '';
    this.cursor.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  // The frame over the item under the keyboard, from its axis spans (Plotly's linear-to-pixel maps).
  placeCursor() {
    const fl = this.gd._fullLayout;
    if (!this.cursor || !this.keys || !fl || !fl.xaxis || !fl.yaxis) return;
    const cols = this.keys.xs.length;
    const [x0, x1] = this.keys.xs[this.at % cols];
    const [y0, y1] = this.keys.ys[Math.floor(this.at / cols)];
    const px = [fl.xaxis.l2p(x0), fl.xaxis.l2p(x1)].map((v) => v + fl.xaxis._offset + this.gd.offsetLeft);
    const py = [fl.yaxis.l2p(y0), fl.yaxis.l2p(y1)].map((v) => v + fl.yaxis._offset + this.gd.offsetTop);
    Object.assign(this.cursor.style, {
      left: `${Math.min(...px)}px`,
      top: `${Math.min(...py)}px`,
      width: `${Math.abs(px[1] - px[0])}px`,
      height: `${Math.abs(py[1] - py[0])}px`,
    });
  }

  // A clickable chart reports the point clicked: {curve, point} (explorer.ui.chart.draw). Plotly reports points
  // it would hover; a heatmap under another subplot (the /model grid's labels span the whole plot) gets no
  // hover, so a click inside a heatmap's axes is also mapped to its cell [row, column] from the pixel.
  listenForClicks() {
    this.listening = true;
    const send = (value) => {
      if (this.clickable && this.trigger) this.trigger('click', JSON.stringify(value));
    };
    this.gd.on('plotly_click', (ev) => {
      const p = ev && ev.points && ev.points[0];
      if (!p) return;
      this.reported = performance.now();
      send({ curve: p.curveNumber, point: p.pointNumber });
    });
    this.gd.addEventListener('click', (e) => {
      setTimeout(() => {
        if (this.reported && performance.now() - this.reported < 300) return; // Plotly reported it
        const fl = this.gd._fullLayout;
        const box = this.gd.getBoundingClientRect();
        const px = e.clientX - box.left;
        const py = e.clientY - box.top;
        (this.gd._fullData || []).some((t, i) => {
          if (t.type !== 'heatmap' || !t.visible) return false;
          const xa = fl[t.xaxis.replace('x', 'xaxis')];
          const ya = fl[t.yaxis.replace('y', 'yaxis')];
          if (!xa || !ya || px < xa._offset || px > xa._offset + xa._length) return false;
          if (py < ya._offset || py > ya._offset + ya._length) return false;
          const col = Math.round(xa.p2l(px - xa._offset));
          const row = Math.round(ya.p2l(py - ya._offset));
          send({ curve: i, point: [row, col] });
          return true;
        });
      }, 0);
    });
  }

  fail(err) {
    this.gd.textContent = `This chart could not be drawn: ${err.message}`;
  }

  // The same object while nothing in it changes: Plotly.react compares the config it is given with the last
  // one, and a new one (a new click function is enough) makes it throw the plot away and build it anew,
  // twice the work of a redraw in place (about 60 ms against 30 for an 11 x 11 heatmap).
  config() {
    const key = `${this.full}|${this.name}`;
    if (this.cfg && this.cfgKey === key) return this.cfg;
    this.cfgKey = key;
    this.cfg = {
      displaylogo: false,
      showSendToCloud: false,
      // Three buttons (download, reset the zoom, full screen): they fit the corner that titles leave free
      // (explorer/views/style.py MODEBAR_PX); dragging still zooms.
      modeBarButtonsToRemove: ['lasso2d', 'select2d', 'sendChartToCloud', 'zoom2d', 'pan2d', 'zoomIn2d',
        'zoomOut2d', 'autoScale2d', 'hoverClosestCartesian', 'hoverCompareCartesian', 'toggleSpikelines'],
      modeBarButtonsToAdd: [
        {
          name: this.full ? 'Close fullscreen' : 'Fullscreen',
          title: this.full ? 'Close fullscreen' : 'Fullscreen',
          icon: this.full ? ICONS.collapse : ICONS.expand,
          click: this.onFull,
        },
      ],
      toImageButtonOptions: { format: 'png', scale: 2, filename: this.name },
    };
    return this.cfg;
  }

  toggleFull() {
    this.full = !this.full;
    this.root.classList.toggle('ae-chart--full', this.full);
    if (this.full) document.addEventListener('keydown', this.onKey);
    else document.removeEventListener('keydown', this.onKey);
    this.drawn = null;
    request(this);
  }

  destroy() {
    this.resizer.disconnect();
    document.removeEventListener('keydown', this.onKey);
    due.delete(this);
    if (window.Plotly) window.Plotly.purge(this.gd);
    this.root.remove();
    charts.delete(this.parent);
  }
}

export default function chart(component) {
  const { data, parentElement } = component;
  let c = charts.get(parentElement);
  if (!c) {
    c = new Chart(parentElement);
    charts.set(parentElement, c);
  }
  c.trigger = component.setTriggerValue; // a clickable chart reports a click (explorer.ui.chart.draw)
  if (data) c.update(data);
  // Streamlit runs this when the element leaves the page (and, for a call overtaken by newer data, at once):
  // the chart goes only once its node is out of the document.
  return () => {
    setTimeout(() => {
      if (!parentElement.isConnected && charts.get(parentElement) === c) c.destroy();
    }, 0);
  };
}

window.__explorerChart = chart; // the loader (explorer/ui/chart/__init__.py) calls it directly from now on

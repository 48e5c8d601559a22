"""The whole example as ONE self-contained HTML page: to e-mail, or to put on a course site (pure).

Opened from disk with no network it shows every step: its short text, its formula, its charts (interactive
Plotly charts: hover, zoom, a head switch where the app has a head picker, a PNG button), the settings, the
tokens and the link back to the app.

Everything is inside the file:
- plotly.js, inline, from the plotly package the app runs (plotly/package_data/plotly.min.js, ~4.8 MB): no
  CDN, no server.
- Formulas as MathML (converted from the pages' LaTeX by latex2mathml when the page is written). Browsers
  draw MathML themselves (Chromium 109+, Firefox, Safari), with no script and no font files; KaTeX or
  MathJax would have to be shipped inside the file (about 0.3 MB and 1 MB with fonts) or fetched from a CDN,
  which an offline page cannot do, and plain text would lose the fractions. The LaTeX source of each formula
  is kept as its annotation (copy it, or read it where MathML is not drawn).
- The charts as JSON in a `<script type="application/json">` block ("<", ">" and "&" written as \\u escapes,
  so no text can close the block), drawn by a few lines of script with Plotly.react.

Text a person typed (the sentence, tokens) is HTML-escaped; chart labels are escaped by explorer.views.figures.
Size: plotly.js plus about 0.1 MB for the default example, and a few MB at 64 tokens (benchmarks/export.py).
"""

from __future__ import annotations

import functools
import html
import json
import re

import latex2mathml.converter
import numpy as np
from plotly.offline import get_plotlyjs

from explorer import i18n
from explorer.export import walkthrough
from explorer.export.experiments import Experiment
from explorer.export.html_charts import STYLE, Chart, _figure_json, charts_of, figure_of, why_scale_chart
from explorer.export.walkthrough import STEP, Walkthrough
from explorer.model import glossary
from explorer.views import describe, formulas
from explorer.views import figures as fg

CONFIG = {
    "displaylogo": False,
    "responsive": True,
    "toImageButtonOptions": {"format": "png", "scale": 2},
}


def split_formula(tex: str) -> list[str]:
    r"""The parts of a formula between its top-level ",\quad" separators (outside braces and environments).

    A formula that is one environment (\begin{gathered} or {aligned}...\end{...}) is split into its lines
    first.
    """
    env = re.fullmatch(r"\\begin\{(gathered|aligned)\}(.*)\\end\{\1\}", tex.strip(), flags=re.S)
    if env:  # each line a formula of its own, without the alignment marks (&) of an aligned block
        lines = re.split(r"\\\\", env.group(2))
        return [p for line in lines for p in split_formula(re.sub(r"(?<!\\)&", "", line))]
    parts, depth, start, sep = [], 0, 0, r",\quad"
    k = 0
    while k < len(tex):
        if tex.startswith(r"\begin{", k):
            depth += 1
        elif tex.startswith(r"\end{", k):
            depth -= 1
        ch = tex[k]
        depth += ch == "{"
        depth -= ch == "}"
        if depth == 0 and tex.startswith(sep, k) and not tex[k + len(sep) : k + len(sep) + 1].isalpha():
            parts.append(tex[start:k].strip())
            start = k = k + len(sep)
            continue
        k += 1
    parts.append(tex[start:].strip())
    return [p for p in parts if p]


@functools.lru_cache(maxsize=256)  # the pages' formulas, and the numbered ones of recent examples
def mathml(tex: str) -> str:
    r"""LaTeX -> MathML, each part between top-level ",\quad" its own unbreakable piece, so a long formula
    wraps between its parts on a narrow screen; the LaTeX is kept as each piece's annotation."""
    parts = split_formula(tex)
    out = []
    for k, part in enumerate(parts):
        m = latex2mathml.converter.convert(part, display="inline")
        note = f'<annotation encoding="application/x-tex">{html.escape(part, quote=False)}</annotation>'
        # <math ...>BODY</math> -> <math ...><semantics><mrow>BODY</mrow>NOTE</semantics></math>
        head, _, rest = m.partition(">")
        body = rest[: -len("</math>")]
        comma = "<mo>,</mo>" if k < len(parts) - 1 else ""
        out.append(
            f'<span class="math-part">{head}><semantics><mrow>{body}{comma}</mrow>{note}</semantics></math></span>'
        )
    return "".join(out)


# ------------------------------------------------------------------------------------------- the page


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _chart_html(chart: Chart, index: int) -> str:
    buttons = ""
    if len(chart.variants) > 1:
        buttons = (
            '<div class="variants" role="group">'
            + "".join(
                f'<button type="button" data-chart="{index}" data-variant="{k}" aria-pressed="{str(k == 0).lower()}">'
                f"{_e(label)}</button>"
                for k, (label, _) in enumerate(chart.variants)
            )
            + "</div>"
        )
    cls = "chart" + ("" if chart.wide else " half")
    about = "".join(_about_html(fig, index, k) for k, (_, fig) in enumerate(chart.variants))
    first = _e(describe.title_of(chart.variants[0][1]))
    return (
        f'<figure class="{cls}">{buttons}<div class="plot" id="chart-{index}" data-key="{_e(chart.key)}" '
        f'role="figure" aria-label="{first}" aria-describedby="chart-{index}-about-0"></div>'
        f"<figcaption>{about}</figcaption></figure>"
    )


def _about_html(fig: object, index: int, k: int) -> str:
    """What a chart's variant shows, in a sentence, and its numbers as tables behind "Show as a table" (the
    app's text for the chart, views.describe); only the variant drawn is shown. A heatmap's table is built in
    the page, from the figure's own numbers, when it is opened (_JS fillTable): the largest example's tables
    as HTML would add half again to the file."""
    shown = figure_of(fig)
    matrix = "table" in ((shown.layout.meta or {}) if hasattr(shown, "layout") else {})
    summary, tables = describe.describe(fig, tables=not matrix)
    body = "" if matrix else "".join(_table_html(t) for t in tables)
    hidden = " hidden" if k else ""
    show = _e(i18n._("Show as a table"))  # marked outside the f-string: extracted (not `summary`: said below)
    more = f"<details{' data-fill' if matrix else ''}><summary>{show}</summary>{body}</details>"
    return (
        f'<div class="about" id="chart-{index}-about-{k}" data-chart="{index}" data-variant="{k}"{hidden}>'
        f"<p>{_e(summary)}</p>{more if matrix or tables else ''}</div>"
    )


def _table_html(t: describe.Table) -> str:
    head = f'<th scope="col">{_e(t.corner)}</th>' + "".join(f'<th scope="col">{_e(c)}</th>' for c in t.cols)
    rows = "".join(
        f'<tr><th scope="row">{_e(name)}</th>' + "".join(f"<td>{_e(v)}</td>" for v in cells) + "</tr>"
        for name, cells in t.rows
    )
    return f"<table><caption>{_e(t.caption)}</caption><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _numbers_formulas(w: Walkthrough) -> dict[str, list[str]]:
    """Formulas with this example's numbers: one score cell, one token's sum (as the pages write them)."""
    num, i, h = w.numbers, w.query, w.head
    j = int(np.argmax(num["A"][h, i]))
    masked_row = num["S_masked"][h, i]
    cell = formulas.score_cell(
        num["Q"][h, i],
        num["K"][h, j],
        float(num["S"][h, i, j]),
        w.scale,
        float(num["S_masked"][h, i, j] - num["S_scaled"][h, i, j]) if w.alibi else None,
        bool(np.isneginf(masked_row[j])),
        float(num["A"][h, i, j]),
        masked_row,
        i,
        j,
        w.d_k,
    )
    vec = ", ".join(f"{x:.4f}" for x in num["token_sum"][:8]) + (r", \dots" if w.d_k > 8 else "")
    token = [rf"\operatorname{{out}}_{{{i}}} = \sum_j a_{{{i}j}}\, v_j = [{vec}]"]
    return {"scores": cell, "token": token}


_CSS = """
:root { color-scheme: light; }
body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5rem 1.25rem 4rem; }
h1 { font-size: 1.9rem; margin: 0.2rem 0; } h2 { font-size: 1.45rem; margin-top: 2.5rem;
  border-top: 1px solid #d0d7de; padding-top: 1.2rem; }
blockquote { font-size: 1.3rem; margin: 0.6rem 0; padding: 0.4rem 1rem; border-left: 4px solid #6e40c9;
  background: #f6f8fa; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.95rem; }
td, th { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
.tokens { display: block; overflow-x: auto; max-width: 100%; }
.formula { text-align: center; padding: 0.3rem 0; font-size: 1.15rem; overflow-x: auto; }
.math-part { display: inline-block; margin: 0.15rem 0.7rem; }
math { font-size: 1.15em; math-style: normal; }
.charts { display: flex; flex-wrap: wrap; gap: 0.5rem 2%; }
figure.chart { margin: 0.6rem 0; width: 100%; }
figure.chart.half { width: 49%; }
@media (max-width: 800px) { figure.chart.half { width: 100%; } }
.variants { display: flex; flex-wrap: wrap; gap: 0.3rem; margin-bottom: 0.2rem; }
.variants button { font: inherit; padding: 0.15rem 0.7rem; border: 1px solid #8c959f; border-radius: 1rem;
  background: #fff; cursor: pointer; }
.variants button[aria-pressed="true"] { background: #6e40c9; border-color: #6e40c9; color: #fff; }
.note { background: #fff8c5; padding: 0.4rem 0.8rem; border-radius: 0.3rem; }
pre { background: #f6f8fa; padding: 0.6rem 0.8rem; overflow-x: auto; font-size: 0.9rem; }
footer { margin-top: 3rem; font-size: 0.85rem; color: #57606a; }
figcaption p { margin: 0.2rem 0; font-size: 0.95rem; }
figcaption details { overflow-x: auto; }
figcaption summary { cursor: pointer; color: #6e40c9; }
figcaption table { font-size: 0.85rem; margin: 0.4rem 0 0.8rem; }
figcaption td { text-align: right; white-space: nowrap; }
"""

_JS = """
(function () {
  const spec = JSON.parse(document.getElementById('charts-data').textContent);
  const drawn = [];
  function draw(i, k) {
    const fig = spec.charts[i][k];
    const layout = Object.assign({}, fig.layout, {template: spec.template, autosize: true});
    delete layout.width;
    const plot = document.getElementById('chart-' + i);
    Plotly.react(plot, fig.data, layout, spec.config);
    // The plot is a figure, named and described (the figcaption); its SVG text is not read piece by piece.
    plot.querySelectorAll('svg.main-svg').forEach(function (svg) { svg.setAttribute('aria-hidden', 'true'); });
    plot.setAttribute('aria-describedby', 'chart-' + i + '-about-' + k);
    document.querySelectorAll('.about[data-chart="' + i + '"]').forEach(function (a) {
      a.hidden = Number(a.dataset.variant) !== k;
    });
    document.querySelectorAll('button[data-chart="' + i + '"]').forEach(function (b) {
      b.setAttribute('aria-pressed', String(Number(b.dataset.variant) === k));
    });
    drawn[i] = k;
  }
  // "Show as a table" of a heatmap: its numbers as the chart prints them (toFixed, as Plotly's cells), row and
  // column headers its labels (layout.meta.table), masked cells said so; built once, when first opened.
  function arrayOf(v) {
    if (v && typeof v === 'object' && v.bdata) {
      const bytes = Uint8Array.from(atob(v.bdata), function (c) { return c.charCodeAt(0); });
      const T = {f8: Float64Array, f4: Float32Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array,
        u2: Uint16Array, i4: Int32Array, u4: Uint32Array}[v.dtype];
      const flat = Array.from(new T(bytes.buffer));
      if (!v.shape) return flat;
      const cols = Number(String(v.shape).split(',')[1]);
      const rows = [];
      for (let r = 0; r * cols < flat.length; r++) rows.push(flat.slice(r * cols, (r + 1) * cols));
      return rows;
    }
    return v;
  }
  const number = function (v) { return v !== null && v !== undefined && !Number.isNaN(Number(v)); };
  function el(tag, text, attrs) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    Object.entries(attrs || {}).forEach(function (kv) { node.setAttribute(kv[0], kv[1]); });
    return node;
  }
  function fillTable(details) {
    const about = details.closest('.about');
    const fig = spec.charts[Number(about.dataset.chart)][Number(about.dataset.variant)];
    const hint = fig.layout.meta.table;
    const title = document.getElementById('chart-' + about.dataset.chart).getAttribute('aria-label');
    const isGrey = function (t) { return t.meta && t.meta.masked_value !== undefined; };
    const grids = fig.data.filter(function (t) { return t.type === 'heatmap' && !isGrey(t); });
    const greys = fig.data.filter(isGrey);
    (hint.panels || ['']).forEach(function (name, p) {
      if (!grids[p]) return;
      const z = arrayOf(grids[p].z);
      const grey = greys[p] ? arrayOf(greys[p].z) : null;
      const said = greys[p] ? (greys[p].meta.masked_value === '-inf' ? '−∞' : greys[p].meta.masked_value) : '';
      const table = el('table');
      table.append(el('caption', name ? title + ': ' + name : title));
      const head = el('tr');
      head.append(el('th', spec.words.by.replace('{rows}', hint.row_title).replace('{columns}', hint.col_title),
        {scope: 'col'}));
      hint.cols.forEach(function (c) { head.append(el('th', c, {scope: 'col'})); });
      const thead = el('thead');
      thead.append(head);
      table.append(thead);
      const body = el('tbody');
      hint.rows.forEach(function (r, i) {
        const tr = el('tr');
        tr.append(el('th', r, {scope: 'row'}));
        z[i].forEach(function (v, j) {
          const masked = grey && number(grey[i][j]);
          tr.append(el('td', masked ? spec.words.masked.replace('{value}', said)
            : number(v) ? Number(v).toFixed(hint.digits) : 'NaN'));
        });
        body.append(tr);
      });
      table.append(body);
      details.append(table);
    });
    delete details.dataset.fill;
  }
  document.addEventListener('toggle', function (ev) {
    if (ev.target.open && ev.target.dataset && ev.target.dataset.fill !== undefined) fillTable(ev.target);
  }, true);
  document.addEventListener('click', function (ev) {
    const b = ev.target.closest('button[data-chart]');
    if (b) { draw(Number(b.dataset.chart), Number(b.dataset.variant)); }
  });
  spec.charts.forEach(function (_, i) { draw(i, 0); });
  document.body.dataset.chartsDrawn = String(spec.charts.length);
})();
"""


def _safe_json(value: object) -> str:
    """JSON that cannot end its <script> block: <, > and & as \\u escapes."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(w: Walkthrough) -> str:
    """The HTML page of the walkthrough (a str; UTF-8 when written)."""
    steps = charts_of(w)
    extras = _numbers_formulas(w)
    all_charts: list[Chart] = []
    sections = []
    # A real-model page's experiment first: the file of /patching opens with the patching, the explorer's
    # own example after it.
    for ex in w.experiments:
        sections.append(_experiment(ex, len(all_charts)))
        all_charts += [Chart(key, [("", fig)], wide) for key, fig, wide in ex.charts]
    for k, (name, charts) in enumerate(steps.items(), start=1):
        step = STEP[name]
        first = len(all_charts)
        all_charts += charts
        formula = mathml(w.formula(name))
        more = "".join(mathml(tex) for tex in extras.get(name, []))
        body = "".join(_chart_html(c, first + m) for m, c in enumerate(charts))
        if name == "encoder" and not charts:
            said = i18n._("The encoder block cannot be computed for this example: {why}", why=w.encoder_error)
            body = f'<p class="note">{_e(said)}</p>'
        note = ""
        if name == "token":
            said = i18n._(
                "The token shown is “{token}” (position {k}).", token=w.labels[w.query], k=str(w.query)
            )
            note = f"<p>{_e(said)}</p>"
        if name == "scores" and extras.get("scores"):
            said = i18n._("One cell of the weights, with its numbers (its query's largest weight):")
            note = f"<p>{_e(said)}</p>"
        sections.append(
            f'<section id="{name}"><h2>{k}. {_e(i18n._(step.title))}</h2><p>{_e(i18n._(step.text))}</p>'
            f'<div class="formula">{formula}</div>{note}<div class="formula">{more}</div>'
            f'<div class="charts">{body}</div></section>'
        )
    why = why_scale_chart(w.seed)
    why_title = i18n._("Why divide by √d_k?")  # outside the f-string below: extracted
    why_text = i18n._(
        "A score q·k is a sum of d_k products; if each has variance 1 the sum has variance d_k, so wide heads "
        "give large scores and a saturated softmax. Dividing by √d_k brings the variance back to 1 (measured "
        "here on seeded random vectors)."
    )
    sections.append(
        f'<section id="why-scale"><h2>{_e(why_title)}</h2><p>{_e(why_text)}</p>'
        f'<div class="formula">{mathml(formulas.why_scale())}</div>'
        f'<div class="charts">{_chart_html(why, len(all_charts))}</div></section>'
    )
    all_charts.append(why)
    data = {
        "template": fg.template_of(STYLE),
        "config": CONFIG,
        "charts": [[_figure_json(fig) for _, fig in c.variants] for c in all_charts],
        # the words the page's script writes into a table it builds ("Show as a table" of a heatmap)
        "words": {"by": i18n._("{rows} by {columns}"), "masked": i18n._("{value} (masked)")},
    }
    return _document(w, "".join(sections), _safe_json(data), len(all_charts))


def _experiment(ex: Experiment, first: int) -> str:
    """A real-model page's experiment: what it shows, its numbers, its charts (numbered from ``first``) and
    the Python that repeats it."""
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in ex.rows)  # worded by its builder
    charts = [Chart(key, [("", fig)], wide) for key, fig, wide in ex.charts]
    body = "".join(_chart_html(c, first + m) for m, c in enumerate(charts))
    return (
        f'<section id="{_e(ex.name)}"><h2>{_e(ex.title)}</h2><p>{_e(ex.text)}</p><table>{rows}</table>'
        f'<div class="charts">{body}</div><p>{_e(ex.repeat)}</p><pre>{_e(ex.code)}</pre></section>'
    )


def _words(sections: str) -> str:
    """The last section: what each glossary term the sections' text uses means, in plain words."""
    terms = walkthrough.terms(re.sub(r"<[^>]+>", " ", sections))  # in the page's language
    if not terms:
        return ""
    items = "".join(f"<dt>{_e(i18n._(t.word))}</dt><dd>{_e(i18n._(t.plain))}</dd>" for t in terms)
    return f'<section id="words"><h2>{_e(i18n._(glossary.WORDS_TITLE))}</h2><dl>{items}</dl></section>'


def _document(w: Walkthrough, sections: str, data: str, n_charts: int) -> str:
    link = ""
    if w.link.startswith(("http://", "https://")):
        opened = i18n._("Open this example in the Attention Explorer")  # outside the f-string: extracted
        link = f'<p><a href="{_e(w.link)}">{_e(opened)}</a></p>'
    settings = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in w.settings())
    position, token, label = i18n._("position"), i18n._("token"), i18n._("label in charts")  # extracted
    tokens = (
        f'<table class="tokens"><tr><th>{_e(position)}</th>'
        + "".join(f"<td>{i}</td>" for i in range(w.n))
        + f"</tr><tr><th>{_e(token)}</th>"
        + "".join(f"<td>{_e(x)}</td>" for x in w.tokens)
        + f"</tr><tr><th>{_e(label)}</th>"
        + "".join(f"<td>{_e(x)}</td>" for x in w.labels)
        + "</tr></table>"
    )
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in w.notes)
    footer = i18n._(
        "Written by the Attention Explorer: {n} charts drawn with plotly.js {version} (inside this file), formulas "
        "in MathML. Works offline.",
        n=str(n_charts),
        version=plotly_js_version(),
    )
    heading = i18n._("Self-attention, step by step")
    # marked outside the f-string below: extracted
    page_title = i18n._("Self-attention, step by step: {sentence}", sentence=w.sentence[:80])
    no_script = i18n._("The charts need JavaScript; the formulas and tables are here without it.")
    example = i18n._("The example")
    return (
        f'<!doctype html>\n<html lang="{_e(i18n.current())}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(page_title)}</title>"
        f"<style>{_CSS}</style>"
        f"<script>{get_plotlyjs()}</script></head><body><main>"
        f"<h1>{_e(heading)}</h1>"
        f"<blockquote>{_e(w.sentence)}</blockquote>{link}{notes}"
        f'<noscript><p class="note">{_e(no_script)}</p></noscript>'
        f"<h2>{_e(example)}</h2><table>{settings}</table>{tokens}"
        f"{sections}{_words(sections)}"
        f"<footer>{_e(footer)}</footer>"
        f'</main><script type="application/json" id="charts-data">{data}</script>'
        f"<script>{_JS}</script></body></html>\n"
    )


@functools.cache
def plotly_js_version() -> str:
    from plotly.offline import get_plotlyjs_version

    return str(get_plotlyjs_version())


def to_bytes(w: Walkthrough) -> bytes:
    return page(w).encode("utf-8")

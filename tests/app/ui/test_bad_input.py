"""Bad input: hostile sentences on every page, refused editor cells, engine errors as messages,
and the security rules (no raw HTML, no pickle or eval of what people send, XSRF on, pinned dependencies).

Every sentence is shown as the literal text it is: Markdown places get `explorer.views.text.literal`, Plotly labels
`explorer.views.figures.esc`. The data-editor cases go through the editor's real on_change (see `edit_cells`); the
same edits are made in a real Chromium in tests/e2e/test_hostile_browser.py.
"""

from __future__ import annotations

import ast
import html
import json
import math
import re
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import attention_core as ac
from explorer.compute import pipeline
from explorer.model import settings_table
from explorer.model.example import Example, conform
from explorer.ui import chart, editors, page_table
from explorer.views.figures import esc
from explorer.views.text import literal
from tests.app.fixtures import PAGES, edit_cells, editor_key, go, home, open_app

ROOT = Path(__file__).resolve().parents[3]
MARKUP = (
    "<b>x</b> <script>alert(1)</script> [x](javascript:alert(1)) $x^2$ :red[hi] **bold** "
    ":material/home: <img src=x onerror=alert(1)> %{y} &amp; https://evil.example"
)
# Pieces of MARKUP that would be markup if they reached a Markdown or Plotly text unescaped.
ACTIVE = (
    "<b>",
    "<script",
    "](javascript",
    "$x^2$",
    ":red[",
    "**bold**",
    ":material/home:",
    "<img",
    "%{y}",
    "https://evil",
)
SCRIPTS = "I ❤️ 🐈‍⬛ and 👩‍👩‍👧 in 🇫🇷 👍🏽 我爱自然语言处理 한국어 שלום עולם مرحبا بالعالم Z̴̡̪a̶l̷g̸o e\u0301te\u0301 n\u0303"
HOSTILE = {
    "empty": "",
    "spaces": "   \t   ",
    "punctuation": "?!... ,;: -- ()[]{} ...",
    "10k_chars": ("lorem ipsum dolor " * 600)[:10_000],
    "10k_one_word": "x" * 10_000,
    "3000_words": " ".join(f"w{i}" for i in range(3000)),
    "scripts": SCRIPTS,
    "markup": MARKUP,
}
SWEEP = ("markup", "scripts", "3000_words", "10k_one_word")  # run through every page


# ---------------------------------------------------------------- helpers


def markdown_sources(at: AppTest) -> list[str]:
    """Every text Streamlit renders as Markdown: bodies of markdown, captions, alerts, headings, LaTeX, and
    the labels and options of widgets (radio and segmented-control options are Markdown too)."""
    out: list[str] = []
    for kind in (
        "markdown",
        "caption",
        "info",
        "warning",
        "error",
        "success",
        "toast",
        "title",
        "header",
        "subheader",
    ):
        out += [str(e.value) for e in at.get(kind)]
    out += [str(e.value) for e in at.get("latex")]
    for kind in ("radio", "selectbox", "button_group", "text_input", "number_input", "toggle", "button"):
        for w in at.get(kind):
            out.append(str(getattr(w, "label", "")))
            out += [str(o) for o in getattr(w, "options", [])]
    return out


def plotly_texts(spec: dict[str, Any]) -> list[str]:
    """The texts of a Plotly figure that come from labels: tick text, customdata, trace names, titles."""
    out: list[str] = []
    layout = spec.get("layout", {})
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            out += [str(t) for t in axis.get("ticktext", []) or []]
            title = axis.get("title")
            out += [str(title.get("text", ""))] if isinstance(title, dict) else []
    title = layout.get("title")
    out += [str(title.get("text", ""))] if isinstance(title, dict) else []
    for trace in spec.get("data", []):
        out.append(str(trace.get("name", "") or ""))
        cd = trace.get("customdata")
        if isinstance(cd, list):
            out += [str(x) for x in np.asarray(cd, dtype=object).ravel()]
    return out


def charts(at: AppTest) -> dict[str, dict[str, Any]]:
    """key -> figure of every chart element on the page (explorer.ui.chart; read back from its proto)."""
    specs = {chart.key_of(el.proto): chart.spec_of(el.proto) for el in at.get("bidi_component")}
    return {key: spec for key, spec in specs.items() if spec is not None}


def labels_of(sentence: str, page: str = "") -> list[str]:
    """The token labels a page draws: the toy's tokens, or on a real-model page (the toy picked: MiniLM) the
    model tokenizer's tokens (SmolLM2's on /next-token and /logit-lens, which need a decoder)."""
    if page in REAL_PAGES:
        from attention_core import pretrained
        from explorer.views.model_figures import token_labels

        decoder = page in ("app_pages/next-token.py", "app_pages/logit-lens.py")
        name = "SmolLM2-135M" if decoder else "all-MiniLM-L6-v2"
        return token_labels(pretrained.load(name).run(sentence).tokens)
    toks = ac.tokenize(sentence)[: settings_table.MAX_TOKENS]
    return ac.token_labels([pipeline.short(t) for t in toks])


REAL_PAGES = {p.script for p in page_table.PAGES if p.section == "Real model"}
# Pages of a model of their own (a real model, the one trained in the engine): the explorer's weights never
# reach them.
OWN_MODEL_PAGES = {
    p.script for p in page_table.PAGES if p.section in (page_table.REAL_MODEL, page_table.LEARNING)
}


def check_literal_page(at: AppTest, sentence: str, page: str = "") -> None:
    """No traceback; the sentence appears only as literal text: nothing active in any Markdown source, every
    Plotly label escaped (no raw <, >, $ or %) and decoding to the token labels, and no NaN drawn."""
    assert not at.exception, at.exception
    for src in markdown_sources(at):
        for piece in ACTIVE:
            if piece in sentence:
                assert piece not in src, f"{piece!r} reached Markdown unescaped: {src[:200]!r}"
    labels = set(labels_of(sentence, page))
    for key, spec in charts(at).items():
        for text in plotly_texts(spec):
            text = text.replace("<br>", " ")  # our own line breaks in long titles (a typed "<br>" is escaped)
            assert not re.search(r"[<>$]|%(?!\{)", text), f"{key}: unescaped label {text[:80]!r}"
        for axis in ("xaxis", "yaxis"):
            if spec["layout"].get(axis, {}).get("type") == "log":
                continue  # numbers (1, 2, 4, ...) where a token may be "4" too
            ticks = [html.unescape(t) for t in spec["layout"].get(axis, {}).get("ticktext", []) or []]
            if all(t.isascii() and t.isdigit() for t in ticks):
                continue  # numbers (layers, heads, positions) where a token may be "4" too
            if ticks and set(ticks) & labels:
                assert set(ticks) <= labels, f"{key} {axis}: {set(ticks) - labels}"
        for trace in spec["data"]:
            z = trace.get("z")
            if z is not None and isinstance(z, list):
                assert not np.isnan(np.asarray(z, dtype=float)).any(), f"{key} draws NaN"


# ---------------------------------------------------------------- the sentence


@pytest.mark.parametrize("case", SWEEP)
def test_hostile_sentence_is_literal_on_every_page(case: str) -> None:
    typed = HOSTILE[case]
    sentence = typed[: settings_table.MAX_SENTENCE_CHARS]
    at = open_app(typed)
    assert at.text_input(key="sentence").value == sentence  # the box keeps what was typed, up to its limit
    if len(typed) > len(sentence):
        assert f"it was cut to {settings_table.MAX_SENTENCE_CHARS}" in " ".join(w.value for w in at.warning)
    check_literal_page(at, sentence)
    tokens = ac.tokenize(sentence)[: settings_table.MAX_TOKENS]
    # The token tables on the first page (twelve positions each): the tokens themselves.
    tables = [d.value for d in at.dataframe if list(d.value.index) == ["token", "label in charts"]]
    assert tables and [t for table in tables for t in table.loc["token"]] == tokens
    for page in PAGES:
        at.switch_page(page).run()
        check_literal_page(at, sentence, page)
        if page == "app_pages/token.py":  # the token picker lists every label as plain text (no Markdown)
            options = at.selectbox(key="ui.query").options
            assert options == [f"{i}: {lab}" for i, lab in enumerate(labels_of(sentence))]


def test_markup_in_charts_decodes_to_the_tokens() -> None:
    at = open_app(MARKUP)
    spec = charts(at)["sentence.embeddings"]
    ticks = spec["layout"]["yaxis"]["ticktext"]
    assert [html.unescape(t) for t in ticks] == labels_of(MARKUP)
    for ref in ("&lt;", "&#36;", "&#37;"):  # <, $ and % are character references
        assert any(t.startswith(ref) for t in ticks), ref


@pytest.mark.parametrize("case", ["empty", "spaces"])
def test_no_tokens_gives_a_message(case: str) -> None:
    at = open_app(HOSTILE[case])
    assert not at.exception
    says = "Type a sentence" if case == "empty" else "only spaces or invisible characters"
    assert [says in i.value for i in at.info].count(True) == 1, [i.value for i in at.info]
    assert not charts(at).get("sentence.embeddings")
    for page in ("app_pages/scores.py", "app_pages/token.py", "app_pages/encoder.py"):
        at.switch_page(page).run()
        assert not at.exception and says in " ".join(i.value for i in at.info)


def test_punctuation_only_is_a_sentence() -> None:
    sentence = HOSTILE["punctuation"]
    at = open_app(sentence)
    check_literal_page(at, sentence)
    spec = charts(at)["sentence.embeddings"]
    assert [html.unescape(t) for t in spec["layout"]["yaxis"]["ticktext"]] == labels_of(sentence)


@pytest.mark.parametrize("case", ["3000_words", "10k_chars"])
def test_long_sentence_is_cut_with_a_message(case: str) -> None:
    at = open_app(HOSTILE[case])
    assert not at.exception
    cut = [w.value for w in at.warning if "more than" in w.value]
    assert cut and str(settings_table.MAX_TOKENS) in cut[0]
    spec = charts(at)["sentence.embeddings"]
    assert len(spec["layout"]["yaxis"]["ticktext"]) == settings_table.MAX_TOKENS
    tables = [d.value for d in at.dataframe if list(d.value.index) == ["token", "label in charts"]]
    assert sum(t.shape[1] for t in tables) == settings_table.MAX_TOKENS  # every token, in tables of twelve


def test_a_10000_letter_word_gets_a_short_label() -> None:
    at = open_app(HOSTILE["10k_one_word"])
    (label,) = charts(at)["sentence.embeddings"]["layout"]["yaxis"]["ticktext"]
    assert len(label) == pipeline.MAX_LABEL and label.endswith("…")
    # the token table keeps the whole token, as far as the sentence goes (MAX_SENTENCE_CHARS)
    assert at.dataframe[0].value.iloc[0, 0] == "x" * settings_table.MAX_SENTENCE_CHARS


def test_short_labels_stay_unique() -> None:
    long_a, long_b = "a" * 30 + "1", "a" * 30 + "2"  # the same first 23 letters
    labels = ac.token_labels([pipeline.short(t) for t in [long_a, long_b, long_a]])
    assert len(set(labels)) == 3 and all(len(lab) <= pipeline.MAX_LABEL + 4 for lab in labels)


# ---------------------------------------------------------------- literal() and esc()


def unescape_markdown(src: str) -> str:
    """What CommonMark shows for a source made only of text and backslash escapes (word joiners dropped)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", src).replace("\u2060", "")


def unescaped_specials(src: str) -> list[str]:
    """Markdown specials in `src` that are not backslash-escaped."""
    bad, i = [], 0
    while i < len(src):
        if src[i] == "\\":
            i += 2
            continue
        if src[i] in "`*_{}[]()<>#+-.!|~$:&=/^":
            bad.append(src[i])
        i += 1
    return bad


@pytest.mark.parametrize("text", [MARKUP, SCRIPTS, "# h", "1. x", "> q", "    code", "a\nb\r\n- c", "x@y.z"])
def test_literal_escapes_every_markdown_special(text: str) -> None:
    src = literal(text)
    assert unescaped_specials(src) == []
    assert unescape_markdown(src) == " ".join(text.split())
    assert "\n" not in src


def test_literal_breaks_links_logos_and_icons() -> None:
    src = literal("see https://a.b, www.c.d, me@e.f, :streamlit: and :material/home:")
    assert "https\u2060" in src and "www\u2060" in src and "\u2060@" in src
    assert ":\u2060streamlit" in src.replace("\\", "")
    assert ":material/" not in src  # "\:material\/home\:" is not an icon shortcode


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_literal_round_trips(text: str) -> None:
    src = literal(text)
    assert unescaped_specials(src) == []
    assert unescape_markdown(src) == " ".join(text.split()).replace("\u2060", "")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_esc_round_trips_and_leaves_nothing_active(text: str) -> None:
    out = esc(text)
    assert html.unescape(out) == text
    assert not re.search(r"[<>$%]", out)


# ---------------------------------------------------------------- data editors


@pytest.mark.parametrize(
    ("value", "expected", "why"),
    [
        (None, None, "cleared"),
        ("", None, "cleared"),
        ("   ", None, "cleared"),
        (float("nan"), None, "NaN"),
        ("nan", None, "NaN"),
        (float("inf"), None, "infinite"),
        ("-inf", None, "infinite"),
        (1e300, None, "too large"),
        ("1e300", None, "too large"),
        ("abc", None, "not a number"),
        ("[x](javascript:alert(1))", None, "not a number"),
        ([1, 2], None, "not a number"),
        ({"a": 1}, None, "not a number"),
        ("−2.5", -2.5, None),  # a pasted Unicode minus
        (" 3 ", 3.0, None),
        (1e6, 1e6, None),
        (-1e6, -1e6, None),
        (0, 0.0, None),
    ],
)
def test_parse_cell(value: object, expected: float | None, why: str | None) -> None:
    got, reason = editors.parse_cell(value)
    assert got == expected
    if why is None:
        assert reason is None
    else:
        assert reason is not None and why in reason


def projections_app() -> AppTest:
    return go(open_app(), "app_pages/projections.py")


def test_refused_cells_keep_the_last_good_value_and_say_why() -> None:
    at = projections_app()
    w_before = np.array(at.session_state["m.matrices"]["w_q"], copy=True)
    key = editor_key(at, "w_q", 0)
    edit_cells(
        at,
        key,
        {
            "0": {"c0": 0.5, "c1": "abc", "c2": None, "c3": 1e300},
            "1": {"c0": "nan", "c1": "-inf", "c2": "[x](javascript:alert(1))"},
            "2": {"_index": "renamed", "c99": 3.0},  # the index column and unknown columns are ignored
            "99": {"c0": 1.0},  # a row that does not exist
        },
    )
    assert not at.exception
    w = at.session_state["m.matrices"]["w_q"]
    expected = w_before.copy()
    expected[0, 0, 0] = 0.5
    np.testing.assert_array_equal(w, expected)
    # The frame shows queued messages once (as literal Markdown), refused cells as toasts that do not push
    # the page down: read them back from the page.
    assert not [w.value for w in at.warning if "kept" in w.value]
    shown_now = [t.value for t in at.toast]
    msgs = [re.sub(r"\\(.)", r"\1", v).replace("\u2060", "") for v in shown_now if "kept" in v]
    assert len(msgs) == 6
    joined = "\n".join(msgs)
    for piece in ("row 'd0', column 'q1': 'abc' is not a number", "column 'q2': the cell was cleared"):
        assert piece in joined
    assert "column 'q3': 1e+300 is too large" in joined
    assert "row 'd1', column 'q0': NaN" in joined and "row 'd1', column 'q1': an infinite value" in joined
    assert f"kept {w_before[0, 0, 1]:.6g}" in joined
    assert editor_key(at, "w_q", 0) != key  # a fresh editor: the refused text is not left in the grid
    # the messages reach the page as literal text
    assert [literal(m) for m in msgs] == [v for v in shown_now if "kept" in v]
    assert not any("](javascript" in s for s in shown_now)


def test_a_good_edit_moves_the_chart(kit) -> None:  # noqa: ANN001 - the conftest's helpers
    at = projections_app()
    edit_cells(at, editor_key(at, "w_q", 0), {"0": {"c0": 2.0}})
    assert not at.exception and not at.warning
    w_q = at.session_state["m.matrices"]["w_q"]
    assert w_q[0, 0, 0] == 2.0
    res = pipeline.run(conform(Example()).with_(w_q=w_q))
    np.testing.assert_allclose(kit.z(charts(at)["projections.w_q"]), res.attention.q[0], rtol=1e-12)


def test_editor_index_column_is_not_editable() -> None:
    at = projections_app()
    for ed in at.data_editor:
        cfg = json.loads(ed.proto.columns)
        assert cfg.get("_index", {}).get("disabled") is True, cfg.get("_index")


# ---------------------------------------------------------------- engine errors


def test_overflowing_scores_are_a_message_on_every_page() -> None:
    """Weights whose scores overflow (q k^T of two 1e300 entries) as could come from an import that skipped
    the checks: the engine's ValueError is a readable message on every page, never a traceback or a chart."""
    at = open_app()
    mats = at.session_state["m.matrices"]
    for name in ("w_q", "w_k"):
        w = np.array(mats[name], copy=True)
        w[:, 0, 0] = 1e300
        mats[name] = w
    at.session_state["m.matrices"] = mats
    for page in ("app.py", *(p for p in PAGES if p not in OWN_MODEL_PAGES)):
        if page == "app.py":
            home(at)
        else:
            at.switch_page(page).run()
        assert not at.exception, (page, at.exception)
        errors = " ".join(e.value for e in at.error)
        assert "cannot be computed" in errors and "overflow" in errors, (page, errors)
        assert "Traceback" not in errors
        drawn = set(charts(at))
        assert drawn <= {"why.variance", "why.maxweight", "why.entropy"}, (page, drawn)


def test_engine_errors_are_returned_not_raised() -> None:
    ex = conform(Example())
    w = np.array(ex.w_q, copy=True)
    w[0, 0, 0] = 1e300
    for bad in (
        ex.with_(w_q=w, w_k=w),
        ex.with_(w_q=w, scale_mode="custom", scale_custom=1e300),
        ex.with_(w_q=np.full_like(ex.w_q, np.nan)),
        ex.with_(w_o=np.zeros((1, 1))),
    ):
        res = pipeline.run(bad)
        assert res.error and res.attention is None
        assert "Traceback" not in res.error and len(res.error) < 400


def test_custom_scale_limits_cannot_overflow() -> None:
    """The widest the widgets allow (scale 1e3, d = 64, every weight and embedding at the editors' limit)
    stays finite: overflow can only come from outside the widgets, and then it is a message."""
    d, h, k = settings_table.MAX_D_MODEL, settings_table.MAX_HEADS, settings_table.MAX_D_K
    sentence = " ".join(f"w{i}" for i in range(settings_table.MAX_TOKENS))
    big = np.full((h, d, k), editors.LIMIT)
    ex = conform(
        Example(
            sentence=sentence,
            d_model=d,
            n_heads=h,
            d_k=k,
            scale_mode="custom",
            scale_custom=1e3,
            emb_source="table",
            pe_scale=True,
        )
    )
    ex = ex.with_(emb=np.full_like(ex.emb, editors.LIMIT), w_q=big, w_k=big, w_v=big)
    res = pipeline.run(ex)
    assert res.error is None
    assert np.isfinite(res.attention.scores).all() and np.isfinite(res.attention.weights).all()
    assert math.isfinite(float(np.abs(res.attention.scaled).max()))


# ---------------------------------------------------------------- security


APP_CODE = [
    ROOT / "app.py",
    # explorer/ and its packages (sharing/, lessons/, export/, chart/)
    *sorted((ROOT / "explorer").rglob("*.py")),
    *sorted((ROOT / "app_pages").glob("*.py")),
]


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)]


def _name(node: ast.AST) -> str:
    return ast.unparse(node)


def _module_constants(path: Path) -> dict[str, bool]:
    """Module-level names bound once to static text (True) or to anything else (False).

    Static: a str or number literal, or an f-string / concatenation of static parts (e.g. a CSS constant
    built from a font-size constant). Nothing a person sends can be in it.
    """
    out: dict[str, bool] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    out[t.id] = _static(node.value, out) and t.id not in out
    return out


def _own_file(node: ast.AST) -> bool:
    """`Path(__file__).with_name("x.js").read_text(...)`: a file of the app's own, beside the module."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "read_text"
        and isinstance(named := node.func.value, ast.Call)
        and isinstance(named.func, ast.Attribute)
        and named.func.attr == "with_name"
        and all(isinstance(a, ast.Constant) for a in named.args)
        and isinstance(root := named.func.value, ast.Call)
        and getattr(root.func, "id", "") == "Path"
        and [getattr(a, "id", "") for a in root.args] == ["__file__"]
    )


def _own_asset_name(node: ast.AST) -> bool:
    """`asset_names()["css"]`: the content-hashed name of a file of the app's own (explorer.ui.chart)."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Call)
        and getattr(node.value.func, "id", "") == "asset_names"
        and isinstance(node.slice, ast.Constant)
    )


def _static(node: ast.AST, consts: dict[str, bool]) -> bool:
    if _own_file(node) or _own_asset_name(node):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str | int | float)
    if isinstance(node, ast.Name):
        return consts.get(node.id, False)
    if isinstance(node, ast.JoinedStr):
        return all(_static(v, consts) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return _static(node.value, consts)
    if isinstance(node, ast.BinOp):
        return _static(node.left, consts) and _static(node.right, consts)
    return False


def _static_text(arg: ast.AST, path: Path) -> bool:
    """True if `arg` is static text: a literal, or a module-level static constant (here or explorer.<mod>)."""
    if isinstance(arg, ast.Name | ast.Constant | ast.JoinedStr | ast.Subscript):
        return _static(arg, _module_constants(path))
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):
        mods = [m for m in (ROOT / "explorer").rglob(f"{arg.value.id}.py")]
        return len(mods) == 1 and _module_constants(mods[0]).get(arg.attr, False)
    return False


@pytest.mark.parametrize("path", APP_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_raw_html_with_user_text(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for call in _calls(tree):
        fn = _name(call.func)
        for kw in call.keywords:
            if kw.arg == "unsafe_allow_html":
                assert isinstance(kw.value, ast.Constant) and kw.value.value is False, f"{path}: {fn}"
        if fn in ("st.html", "components.html", "st.components.v1.html") or fn.endswith("components.v1.html"):
            assert call.args and _static_text(call.args[0], path), (
                f"{path}:{call.lineno} {fn} of non-static text"
            )
        if fn.startswith(("components.declare_component", "st.components")):
            # Only st.components.v2 components whose HTML, CSS and JavaScript are the app's own static text
            # (a literal, a module constant, or a file of the package's assets): no v1 iframe, nothing built
            # from what a person sends (explorer.ui.clicker, explorer.ui.chart).
            assert fn == "st.components.v2.component", f"{path}:{call.lineno} {fn}"
            for kw in call.keywords:
                if kw.arg in ("html", "css", "js"):
                    assert _static_text(kw.value, path), f"{path}:{call.lineno} {fn}({kw.arg}=...) not static"


@pytest.mark.parametrize("path", [*APP_CODE, *sorted((ROOT / "attention_core").glob("*.py"))], ids=str)
def test_no_pickle_or_eval_of_what_people_send(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    banned_modules = {"pickle", "cPickle", "dill", "marshal", "shelve", "cloudpickle", "joblib"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not {a.name.split(".")[0] for a in node.names} & banned_modules, path
        if isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] not in banned_modules, path
    for call in _calls(tree):
        fn = _name(call.func)
        assert fn not in ("eval", "exec", "compile", "__import__", "yaml.load"), f"{path}:{call.lineno} {fn}"
        if fn in ("np.load", "numpy.load"):  # arrays only: refusing pickles is said where the file is read
            pickles = [kw.value for kw in call.keywords if kw.arg == "allow_pickle"]
            assert len(pickles) == 1 and isinstance(pickles[0], ast.Constant) and pickles[0].value is False, (
                f"{path}:{call.lineno} {fn} without allow_pickle=False"
            )


def test_dependencies_are_pinned() -> None:
    for req in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / req).read_text(encoding="utf-8").splitlines():
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("-r"):
                assert re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[0-9][0-9A-Za-z.\-+]*", line), f"{req}: {line!r}"


def test_server_config_keeps_xsrf_and_cors_and_limits_uploads() -> None:
    """.streamlit/config.toml (when present) must not turn XSRF or CORS protection off, and caps uploads."""
    path = ROOT / ".streamlit" / "config.toml"
    if not path.exists():
        pytest.skip("no .streamlit/config.toml: Streamlit's defaults (XSRF and CORS protection on) apply")
    server = tomllib.loads(path.read_text(encoding="utf-8")).get("server", {})
    assert server.get("enableXsrfProtection", True) is True
    assert server.get("enableCORS", True) is True
    from explorer import sharing

    # uploads are the JSON files the app writes: the largest (every cell of a SmolLM2 layer) and no more
    assert int(server.get("maxUploadSize", 200)) == sharing.UPLOAD_MB
    assert (sharing.UPLOAD_MB - 1) * 1_000_000 < sharing.MAX_JSON_BYTES <= sharing.UPLOAD_MB * 1_000_000
    client = tomllib.loads(path.read_text(encoding="utf-8")).get("client", {})
    assert client.get("showErrorDetails") in (False, "false", "none", "type"), "no tracebacks for visitors"

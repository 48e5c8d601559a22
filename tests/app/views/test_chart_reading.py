"""Charts read as a student reads them: labels that fit, numbers that do not run together, on the figures the
builders return (pure functions) and the pages send (AppTest)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from streamlit.testing.v1.element_tree import Block

from explorer.ui import widgets as ui
from explorer.views import figures as fg
from explorer.views import style as style_mod
from tests.app.fixtures import open_app

THIRTY_THREE = " ".join(f"w{i}" for i in range(33))


def test_each_curve_and_its_markers_share_one_colour_past_ten_curves() -> None:
    """Plotly's default cycle wraps at 10 and paints a curve's markers in the next trace's colour."""
    x = np.linspace(0, 10, 50)
    ys = np.sin(x[:, None] * np.arange(1, 13)[None, :] / 10)
    fig = fg.lines(
        x, ys, [f"d{j}" for j in range(12)], style=fg.Style(), title="t", x_title="position", y_title="v",
        markers_x=np.arange(5.0), markers_y=ys[:5],
    )  # fmt: skip
    line_colours = [t.line.color for t in fig.data if t.mode == "lines"]
    marker_colours = [t.marker.color for t in fig.data if t.mode == "markers"]
    assert len(line_colours) == 12 and None not in line_colours
    assert line_colours == marker_colours
    assert len(set(line_colours)) == 12


def test_the_concatenation_title_is_one_line_without_raw_underscores(kit) -> None:
    at = kit.open("heads", via_app=False)
    assert not at.exception, at.exception
    title = kit.charts(at)["heads.concat"]["layout"]["title"]["text"]
    assert "_" not in title and "<br>" not in title, title
    assert "Aₕ Vₕ" in title


def test_bar_numbers_at_33_tokens_are_legible_or_upright_never_shrunk() -> None:
    weights = np.full(33, 1 / 33)
    for style, width in ((fg.Style(), fg.FULL_PX), (fg.Style(present=True), fg.HALF_PX)):
        fig = fg.bars([f"w{i}" for i in range(33)], weights, style=style, title="t", x_title="key",
                      y_title="weight", width_px=width)  # fmt: skip
        bar = fig.data[0]
        assert bar.constraintext == "none"  # Plotly would shrink the text to fit (7 px at 33 tokens)
        bar_px = (style_mod._drawn_px(width, style) - 110) / 33
        if bar.text is not None:
            assert bar.textfont.size >= style_mod._min_font(style, cell=True)
            if bar.textangle == 0:
                assert fg.text_px("0.030", bar.textfont.size) + 4 <= bar_px
            else:
                assert bar.textangle == -90 and bar.textfont.size + 4 <= bar_px


def test_the_token_page_names_a_weight_one_way(kit) -> None:
    at = kit.open("token", via_app=False, state={"sentence": THIRTY_THREE})
    assert not at.exception, at.exception
    cs = kit.charts(at)
    texts = [
        cs["token.stack"]["layout"]["title"]["text"],
        cs["token.stack"]["layout"]["yaxis"]["title"]["text"],
        cs["token.weights"]["layout"]["yaxis"]["title"]["text"],
    ]
    assert all("aᵢⱼ" in t for t in texts), texts
    assert not [t for t in texts if "w_j" in t or "a_ij" in t]


def _walk(node):  # noqa: ANN001, ANN202 - an AppTest node
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def test_encoder_charts_two_a_row_and_the_relu_scale_starts_at_0(kit) -> None:
    at = kit.open("encoder", via_app=False)
    assert not at.exception, at.exception
    cs = kit.charts(at)
    relu = next(spec for key, spec in cs.items() if "ReLU" in key)["data"][0]
    assert relu["zmin"] == 0 and relu["zmax"] > 0  # ReLU's output is >= 0: no negative colours
    assert "zmid" not in relu
    signed = cs["encoder.X (input)"]["data"][0]
    assert signed["zmin"] == -signed["zmax"]  # a signed matrix keeps the diverging scale centred on 0
    rows = [
        b for b in _walk(at.main) if isinstance(b, Block) and b.children
        and all(getattr(c, "type", "") == "column" for c in b.children.values())
        and any(getattr(n, "type", "") == "bidi_component" for n in _walk(b))
    ]  # fmt: skip
    assert rows and all(len(r.children) == 2 for r in rows), [len(r.children) for r in rows]


def test_33_tokens_in_tables_of_twelve_none_scrolls() -> None:
    at = open_app(THIRTY_THREE)
    tables = [d.value for d in at.dataframe if list(d.value.index) == ["token", "label in charts"]]
    assert all(len(t.columns) <= ui.TOKENS_PER_TABLE for t in tables)
    whole = pd.concat(tables, axis=1)
    assert list(whole.columns) == [str(i) for i in range(33)]
    assert list(whole.loc["token"]) == THIRTY_THREE.split()


def test_why_scale_ticks_do_not_crowd_and_reach_past_100(kit) -> None:
    at = kit.open("why-scale", via_app=False)
    assert not at.exception, at.exception
    variance = kit.charts(at)["why.variance"]
    ys = [float(v) for v in kit.array(variance["layout"]["yaxis"]["tickvals"])]
    top = max(float(np.nanmax(kit.array(t["y"]))) for t in variance["data"])
    assert any(100 < v <= top for v in ys), (ys, top)  # 200 and 500 below the 512 at the top
    for key in ("why.maxweight", "why.entropy"):  # half the width: 1 .. 512 in 10 labels touched
        xaxis = kit.charts(at)[key]["layout"]["xaxis"]
        ticks = [float(v) for v in kit.array(xaxis["tickvals"])]
        assert ticks[-1] == 512 and len(ticks) <= 6, (key, ticks)
        assert set(ticks) <= {2.0**k for k in range(10)}


SIDEBAR_SELECT_PX = 200  # the text a sidebar select box shows without cutting it (sidebar 300 px, 14 px font)
MAIN_PX = 880  # the main column at 1280 px with the sidebar open


def test_sidebar_and_control_labels_fit_their_boxes(kit) -> None:
    """Labels such as "...colour-blind safe" and "...√d_model first" are not cut short at 1280 px."""
    for _seq, _div, description in fg.PALETTES.values():
        assert fg.text_px(description, 14) <= SIDEBAR_SELECT_PX, description
    at = kit.open("positional-encoding", via_app=False)
    assert not at.exception, at.exception
    toggle = at.toggle(key="pe.scale")
    holder = next(
        b for b in _walk(at.main)
        if isinstance(b, Block) and getattr(b, "type", "") == "flex_container"
        and any(n is toggle or getattr(n, "key", None) == "pe.scale" for n in _walk(b))
    )  # fmt: skip
    columns = list(holder.children.values())
    weights = [c.weight for c in columns]
    mine = next(c for c in columns if any(getattr(n, "key", None) == "pe.scale" for n in _walk(c)))
    width = MAIN_PX * mine.weight / sum(weights)
    assert fg.text_px(toggle.label, 14) + 60 <= width, (toggle.label, width)  # the switch, the help icon

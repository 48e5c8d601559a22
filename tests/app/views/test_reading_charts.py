"""Charts a student can read, checked on the figures the pages send (AppTest)."""

from __future__ import annotations

import numpy as np

from explorer.model import settings_table as table
from explorer.ui import state

LONG = " ".join(f"w{i}" for i in range(40))  # 40 tokens: past the 32 every label must fit up to


def test_default_sentence_in_presentation_mode_labels_every_key(kit) -> None:
    """At 1920x1080 presenting, the softmax chart of the 11-token sentence labelled 4 of 11 keys, and not
    "mat", the key "it" attends to most."""
    ref = kit.reference()
    for step, key in (("scores", "scores.raw"), ("masking", "scores.scaled"), ("softmax", "scores.weights")):
        at = kit.app()
        at.query_params["present"] = "1"
        at.query_params["step"] = step
        at.switch_page(kit.scripts()["scores"]).run()
        assert not at.exception, at.exception
        spec = kit.charts(at)[key]
        assert kit.labels(spec, "xaxis") == ref.labels and kit.labels(spec) == ref.labels, key


def test_past_32_tokens_the_selected_querys_strongest_key_keeps_its_label(kit) -> None:
    at = kit.open("scores", via_app=False, state={"sentence": LONG, state.K_QUERY: 23})
    assert not at.exception, at.exception
    weights = kit.charts(at)["scores.weights"]
    w = kit.z(weights)
    strongest = int(np.nanargmax(w[23]))
    xs = [int(v) for v in kit.array(weights["layout"]["xaxis"]["tickvals"])]
    ys = [int(v) for v in kit.array(weights["layout"]["yaxis"]["tickvals"])]
    assert strongest in xs and 23 in ys
    labels = [f"w{i}" for i in range(40)]
    assert kit.labels(weights, "xaxis") == [labels[j] for j in xs]


def test_up_to_32_tokens_every_label_at_full_width(kit) -> None:
    sentence = " ".join(f"w{i}" for i in range(32))
    at = kit.open("scores", via_app=False, state={"sentence": sentence})
    assert not at.exception, at.exception
    labels = [f"w{i}" for i in range(32)]
    for key in ("scores.raw", "scores.scaled", "scores.weights"):
        spec = kit.charts(at)[key]
        assert kit.labels(spec, "xaxis") == labels and kit.labels(spec) == labels, key


def test_weights_colour_range_0_to_1_by_default_and_fitted_on_request(kit) -> None:
    at = kit.open("scores", via_app=True)
    ref = kit.reference()
    w = ref.trace.weights[0]
    trace = kit.charts(at)["scores.weights"]["data"][0]
    assert (trace["zmin"], trace["zmax"]) == (0.0, 1.0)
    grid_at = kit.open("heads", via_app=False)
    axis = kit.charts(grid_at)["heads.grid"]["layout"]["coloraxis"]
    assert (axis["cmin"], axis["cmax"]) == (0.0, 1.0)
    at.sidebar.toggle(key=state.K_FIT).set_value(True).run()
    trace = kit.charts(at)["scores.weights"]["data"][0]
    assert (trace["zmin"], trace["zmax"]) == (w.min(), w.max())
    assert trace["colorbar"]["title"]["text"] == "min to max"


def test_weights_at_full_width(kit) -> None:
    """The weights chart is not in a column: it is a direct child of the page, as wide as the page."""
    from explorer.ui import chart

    at = kit.open("scores", via_app=False)
    on_page = [chart.key_of(el.proto) for el in at.main.get("bidi_component")]
    in_columns = [chart.key_of(el.proto) for col in at.columns for el in col.get("bidi_component")]
    assert "scores.weights" in on_page and "scores.weights" not in in_columns
    assert "scores.raw" in in_columns  # the default sentence: raw and scaled side by side, half width each


# ----------------------------------------------------------------------------- item 6: /why-scale


def test_why_scale_log_ticks_title_and_decimals(kit) -> None:
    at = kit.open("why-scale", via_app=False)
    assert not at.exception, at.exception
    cs = kit.charts(at)
    var = cs["why.variance"]["layout"]
    # Every tick of a log axis names its whole value: the top label read "5" for 500.
    assert var["xaxis"]["ticktext"] == ["1", "2", "4", "8", "16", "32", "64", "128", "256", "512"]
    ys = var["yaxis"]["ticktext"]
    series = {f"{m * 10**e:g}" for e in range(-1, 4) for m in (1, 2, 5)}  # 1, 2, 5 x powers of ten
    assert {"1", "10", "100", "200"} <= set(ys) and set(ys) <= series, ys
    # The half-width title is wrapped, never cut at the chart's edge.
    title = cs["why.maxweight"]["layout"]["title"]["text"]
    assert "<br>" in title and "1 = all on one key)" in title.replace("<br>", " ")
    # Every number of the table with three decimals.
    import json

    columns = json.loads(at.dataframe[0].proto.columns)
    numeric = [c for c in columns if c not in ("head", "_index")]
    assert len(numeric) == 6
    assert all(columns[c]["type_config"]["format"] == "%.3f" for c in numeric), columns


# ------------------------------------------------------------------------ item 7: the smaller ones


def test_e_p_x_share_one_colour_range(kit) -> None:
    at = kit.open("positional-encoding", via_app=False)
    cs = kit.charts(at)
    ranges = {(cs[k]["data"][0]["zmin"], cs[k]["data"][0]["zmax"]) for k in ("pe.e", "pe.p", "pe.x")}
    assert len(ranges) == 1
    ref = kit.reference()
    bound = max(np.abs(ref.emb).max(), np.abs(ref.pe).max(), np.abs(ref.x).max())
    assert ranges.pop() == (-bound, bound)


DIMENSION = r"^(h\d+·)?[dqkvf]\d+$"


def test_one_naming_of_dimensions_on_every_page(kit) -> None:
    """d0.. (d_model), q0.. / k0.. / v0.. (a head's query, key, value), f0.. (feed-forward), h1·v0 (head 1's
    v0 in the concatenation): V's columns were labelled k0..k3, the token page said "dim 0"."""
    import re

    at = kit.open("projections", via_app=False)
    cs = kit.charts(at)
    d_k = kit.reference().ex.d_k
    for name, letter in (("w_q", "q"), ("w_k", "k"), ("w_v", "v")):
        assert kit.labels(cs[f"projections.{name}"], "xaxis") == [f"{letter}{j}" for j in range(d_k)]
    token = kit.charts(kit.open("token", via_app=False))["token.stack"]
    assert list(token["data"][0]["x"]) == [f"v{j}" for j in range(d_k)]
    heads = kit.charts(kit.open("heads", via_app=False))
    assert kit.labels(heads["heads.concat"], "xaxis")[:2] == ["h1·v0", "h1·v1"]
    for url in ("", "positional-encoding", "encoder"):
        for key, spec in kit.charts(kit.open(url, via_app=False)).items():
            axis = spec["layout"].get("xaxis", {})
            if axis.get("title", {}).get("text") == "dimension":
                assert all(re.match(DIMENSION, t) for t in axis["ticktext"]), (key, axis["ticktext"])


def test_w_o_editor_shows_all_its_rows_and_columns(kit) -> None:
    """The W_O editor has the page's width, so no column hides behind a scroll bar (at half width d7 would),
    and the height of its rows, so no empty rows show."""
    at = kit.open("heads", via_app=False)
    (editor,) = [e for e in at.data_editor if e.key.startswith("ed.w_o.")]
    in_columns = [e.key for col in at.columns for e in col.data_editor]
    assert editor.key not in in_columns


def test_refused_cell_is_a_toast_not_an_alert_above_the_page() -> None:
    """An alert above the page pushed the editor down, away from the cell just typed in."""
    from tests.app.fixtures import edit_cells, editor_key, go, open_app

    at = go(open_app(), "app_pages/projections.py")
    edit_cells(at, editor_key(at, "w_q", 0), {"0": {"c0": "abc"}})
    assert not at.exception, at.exception
    assert any("'abc' is not a number" in t.value for t in at.toast)
    assert not any("not a number" in a.value for kind in ("warning", "error", "info") for a in at.get(kind))


# Emoji drawn in colour only where an emoji font is installed (a box elsewhere, e.g. the 🎲 of
# Re-randomize): code points from U+1F000 up, the emoji variation selector, and the emoji-presentation
# symbols of the basic plane.
EMOJI_BMP = set(
    "⌚⌛⏩⏪⏫⏬⏰⏳◽◾☔☕♈♉♊♋♌♍♎♏♐♑♒♓♿⚓⚡⚪⚫⚽⚾⛄⛅⛎⛔⛪⛲⛳⛵⛺⛽✅✊✋✨❌❎❓❔❕❗➕➖➗➰➿⬛⬜⭐⭕"
)


def test_no_emoji_in_what_the_app_shows() -> None:
    """Icons are Material icons (drawn by the app's own font); no emoji that renders as a box."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    found = []
    for path in [root / "app.py", *(root / "explorer").rglob("*.py"), *(root / "app_pages").glob("*.py")]:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            bad = [c for c in line if ord(c) >= 0x1F000 or c == "\ufe0f" or c in EMOJI_BMP]
            if bad:
                found.append(f"{path.relative_to(root)}:{n}: {''.join(bad)}")
    assert not found, found


def _lines(spec: dict) -> int:
    return str(spec["layout"]["title"]["text"]).count("<br>") + 1


def test_two_charts_side_by_side_start_level_when_one_title_wraps(kit) -> None:
    """/scores with a causal mask at 1280 px: "Softmax input: scaled (× 0.5), masked" takes two lines in half
    the width, "Raw scores Q Kᵀ (head 1)" one; the raw scores' plot got as much room above it, so the two
    heatmaps start at one height (explorer.views.figures.level)."""
    at = kit.open("scores", via_app=False, state={table.row("mask_kind").key: "causal"})
    assert not at.exception, at.exception
    raw, scaled = kit.charts(at)["scores.raw"], kit.charts(at)["scores.scaled"]
    assert _lines(raw) == 1 < _lines(scaled), (raw["layout"]["title"], scaled["layout"]["title"])
    assert raw["layout"]["margin"]["t"] == scaled["layout"]["margin"]["t"]
    pairs = {
        "positional-encoding": ("pe.matrix", "pe.similarity"),
        "why-scale": ("why.maxweight", "why.entropy"),
    }
    for page, (a, b) in pairs.items():  # the other pairs: level too (their titles fit one line today)
        cs = kit.charts(kit.open(page, via_app=False))
        assert cs[a]["layout"]["margin"]["t"] == cs[b]["layout"]["margin"]["t"], page

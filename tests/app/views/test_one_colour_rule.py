"""One colour rule on a page: attention weights on 0 to 1 unless the student asks (a diffuse head on /head no
longer glows as if it were sure: 0.34 is the colour of 0.34 on /model's grid too), and one colour per token
across /token (a key's bar of weight and its part of the sum are the same colour; keys past the twelve
kept share the grey of "other keys" in both).
"""

from __future__ import annotations

import numpy as np
import pytest

from explorer.views import figures as fg
from tests.app.fixtures import model_page, need

LONG = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"


@pytest.mark.parametrize("sentence", [None, LONG])
def test_token_draws_each_key_in_one_colour_in_both_charts(kit, sentence: str | None) -> None:  # noqa: ANN001
    at = kit.open("token", via_app=False, state={} if sentence is None else {"sentence": sentence})
    charts = kit.charts(at)
    weights, stack = charts["token.weights"]["data"][0], charts["token.stack"]["data"]
    keys = list(charts["token.weights"]["layout"]["xaxis"]["ticktext"])
    colour_of_bar = dict(zip(keys, weights["marker"]["color"], strict=True))
    in_sum = {t["name"]: t["marker"]["color"] for t in stack if t["type"] == "bar"}
    assert len(keys) > 1 and len(set(colour_of_bar.values())) > 1
    for name, colour in in_sum.items():
        if name.endswith("other keys"):
            others = [k for k, c in colour_of_bar.items() if c == fg.OTHER_GREY]
            assert int(name.split()[0]) == len(others) and colour == fg.OTHER_GREY
        else:
            assert colour_of_bar[name] == colour, (name, colour_of_bar[name], colour)
    if sentence is not None:  # 15 words and more: 11 keys in colours, the rest grey
        assert sum(c != fg.OTHER_GREY for c in colour_of_bar.values()) == 11


def test_a_head_is_coloured_0_to_1_unless_asked(kit) -> None:  # noqa: ANN001
    need("minilm")
    at = model_page("head", "minilm")
    w = kit.charts(at)["head.w"]["data"][0]
    assert (w["zmin"], w["zmax"]) == (0.0, 1.0)
    fitted = model_page("head", "minilm", **{"ui.fit_weights": True})
    w = kit.charts(fitted)["head.w"]["data"][0]
    z = kit.z(kit.charts(fitted)["head.w"])
    assert (w["zmin"], w["zmax"]) == pytest.approx((np.nanmin(z), np.nanmax(z)))
    assert w["zmax"] - w["zmin"] < 1.0

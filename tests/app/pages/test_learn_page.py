"""/learn: the shipped run's loss with the phase change marked, every head's scores through training, the
attention at the checkpoint the slider picks, and the trained model with its previous-token head off."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose

from attention_core import training as tr
from explorer.compute import learning as lc
from tests.app.fixtures import opened_from_link


def test_the_page_draws_the_run_as_it_was_shipped(kit) -> None:  # noqa: ANN001
    at = kit.open("learn", via_app=True)
    assert not at.exception, at.exception
    run, m = lc.shipped(), lc.moments()
    charts = kit.charts(at)
    assert {"learn.loss", "learn.previous", "learn.induction", "learn.patterns"} <= set(charts)
    loss = charts["learn.loss"]
    assert_allclose(kit.array(loss["data"][0]["y"]), lc.smoothed_loss(run), rtol=1e-9)
    assert_allclose(kit.array(loss["data"][1]["y"]), run.repeat_loss, rtol=1e-9)
    marks = {a["text"]: a["x"] for a in loss["layout"]["annotations"] if "text" in a}
    assert marks == {"phase change": m.drop_step}
    for key, scores in (("learn.previous", run.previous[:, 0]), ("learn.induction", run.induction[:, 1])):
        drawn = np.stack([kit.array(t["y"]) for t in charts[key]["data"]], axis=1)
        assert_allclose(drawn, scores, rtol=1e-9)
    text = " ".join(md.value for md in at.markdown)
    assert (
        f"previous-token head* (over half its weight on the token just before) at step {m.previous_step}"
        in text
    )
    assert f"at step {m.induction_step}" in text
    assert len(at.get("download_button")) == 1  # the notebook that trains the same model


def test_the_slider_redraws_the_attention_of_that_checkpoint(kit) -> None:  # noqa: ANN001
    at = kit.open("learn", via_app=True)
    run = lc.shipped()
    first = int(run.checkpoints[1])
    at.select_slider(key="learn.step").set_value(first).run()
    assert not at.exception, at.exception
    grid = kit.charts(at)["learn.patterns"]
    expected = tr.run(run.recipe.cfg, run.params_at(1), lc.display_tokens()).attentions[0]  # (L, H, T, T)
    z = kit.z(grid)
    drawn = z[~np.isnan(z)]
    assert drawn.size == expected.size  # every weight of every head, and nothing else
    assert_allclose(np.sort(drawn), np.sort(expected.astype(np.float32).ravel()), rtol=1e-6)
    assert f"step {first}," in grid["layout"]["title"]["text"]
    assert f"step {first}" not in str(kit.charts(at)["learn.loss"])  # the curves mark the phase change only


def test_switching_the_previous_token_head_off_undoes_the_induction_head(kit) -> None:  # noqa: ANN001
    at = kit.open("learn", via_app=True)
    m = lc.moments()
    off = lc.switch_off(m.previous_head[1])
    h = m.induction_head[1]
    # K-composition: the trained induction head needs the previous-token head's output in its keys
    assert off.induction_off[h] < off.induction_on[h] - 0.3, (off.induction_on, off.induction_off)
    assert off.loss_off > off.loss_on + 0.5, (off.loss_on, off.loss_off)
    bars = kit.charts(at)["learn.off.induction"]
    assert_allclose(kit.array(bars["data"][0]["y"]), off.induction_on, rtol=1e-9)
    assert_allclose(kit.array(bars["data"][1]["y"]), off.induction_off, rtol=1e-9)
    text = " ".join(md.value for md in at.markdown)
    assert f"scores {off.induction_off[h]:.2f} instead of {off.induction_on[h]:.2f}" in text


def test_train_it_yourself_draws_the_run_from_the_settings_and_a_link_sets_them(kit, monkeypatch) -> None:  # noqa: ANN001
    from explorer.compute import jobs
    from explorer.compute import learn_live as ll
    from explorer.model import learning

    monkeypatch.setattr(
        learning, "LIVE_STEPS", (20, 40)
    )  # a short run: the page's own bounds are tested apart
    monkeypatch.setitem(learning.LIVE_DEFAULTS, "steps", 20)
    jobs.RESULTS.clear()
    link = {"train_seed": "7", "train_lr": "0.01", "train_heads": "2"}
    at = opened_from_link(link, "app_pages/learn.py")
    assert not at.exception, at.exception
    assert (at.number_input(key="learn.seed").value, at.radio(key="learn.heads").value) == (7, 2)
    assert "learn.live.loss" not in kit.charts(at)  # nothing trains until Train is pressed
    at.button(key="learn.train").click().run()  # jobs run inline under test: the run is done at once
    assert not at.exception, at.exception
    run = ll.train_live(learning.live_recipe(7, 1e-2, 2, 20))
    charts = kit.charts(at)
    loss = charts["learn.live.loss"]
    np.testing.assert_allclose(kit.array(loss["data"][1]["y"]), run.repeat_loss, rtol=1e-6)
    assert kit.array(loss["data"][1]["x"]).tolist() == [0, 10, 20]
    assert loss["layout"]["xaxis"]["range"] == [0, 20]
    drawn = np.stack([kit.array(t["y"]) for t in charts["learn.live.induction"]["data"]], axis=1)
    np.testing.assert_allclose(drawn, run.induction[:, 1], rtol=1e-6)
    assert len(charts["learn.live.previous"]["data"]) == 2  # one line per head of layer 1

"""The head and token pickers keep their choice across pages, the same way: each is bound to its
shared key in explorer.ui.state with persist_state="session"."""

from __future__ import annotations

from numpy.testing import assert_allclose

from explorer.ui import state


def test_head_and_query_chosen_on_one_page_hold_on_the_others(kit) -> None:
    at = kit.open("scores", via_app=True)
    at.button_group(key=state.K_HEAD).set_value(1).run()
    at.selectbox(key=state.K_QUERY).set_value(3).run()
    assert not at.exception, at.exception
    ref = kit.reference()
    at.switch_page(kit.scripts()["token"]).run()
    assert not at.exception, at.exception
    assert at.button_group(key=state.K_HEAD).value == 1 and at.selectbox(key=state.K_QUERY).value == 3
    bars = kit.charts(at)["token.weights"]  # head 2's weights of token 3
    assert_allclose(kit.array(bars["data"][0]["y"]), ref.trace.weights[1, 3], rtol=1e-12, atol=1e-15)
    at.switch_page(kit.scripts()["projections"]).run()
    assert at.button_group(key=state.K_HEAD).value == 1
    assert_allclose(kit.z(kit.charts(at)["projections.w_q"]), ref.trace.q[1], rtol=1e-12, atol=1e-14)
    at.switch_page(kit.scripts()["scores"]).run()  # and back where it was chosen
    assert at.button_group(key=state.K_HEAD).value == 1 and at.selectbox(key=state.K_QUERY).value == 3

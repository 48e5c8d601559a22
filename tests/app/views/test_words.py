"""Words a student of 18 reads, with the precise term one click away (a help tooltip): no "|mean| 8e-17",
no "entropy (nats)", no "fitted" under a colour bar."""

from __future__ import annotations

from explorer.views import figures as fg


def test_the_post_norm_note_says_mean_0_in_words_and_the_rounding_one_click_away(kit) -> None:  # noqa: ANN001
    at = kit.open("encoder", via_app=False)
    note = next(md for md in at.markdown if md.value.startswith("**Post-norm:**"))
    assert "|mean|" not in note.value and "mean 0 (up to the computer's rounding)" in note.value
    assert "largest |mean|" in note.proto.help and "e-" in note.proto.help  # the number, one click away


def test_entropy_is_said_in_words_and_nats_one_click_away(kit) -> None:  # noqa: ANN001
    at = kit.open("why-scale", via_app=False)
    axis = kit.charts(at)["why.entropy"]["layout"]["yaxis"]["title"]["text"]
    assert "nats" not in axis and "spread" in axis
    said = next(c for c in at.caption if c.value.startswith("Entropy says how spread out"))
    assert "nats" in said.proto.help and "ln" in said.proto.help


def test_a_fitted_colour_bar_says_min_to_max() -> None:
    w = fg.heatmap(
        [[0.1, 0.2], [0.3, 0.4]],
        list("ab"),
        list("ab"),
        title="A",
        style=fg.Style(fit_weights=True),
        cells=fg.Cells(weights=True),
    )
    assert w.data[0].colorbar.title.text == "min to max"

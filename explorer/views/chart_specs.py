"""One declaration per chart that a page draws and the offline HTML page draws again: its key on the page, its
title and its axes.

The pages (app_pages/) and explorer.export.html_charts both read these, so a title cannot drift between
the app and its export (tests/app/views/test_chart_specs.py compares the HTML's titles with the pages'). A title
is a format string; {head} is a head's name as the reader sees it ("head 2", or "layer 5, head 3" in a real
model's export). Titles and axes are English, marked for the catalogs and translated by `titled` and `axes`
(a number in a title is written as the language on screen writes it). Pure: no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer import i18n
from explorer.i18n import N_
from explorer.views.formulas import CONCAT_TITLE


@dataclass(frozen=True)
class ChartSpec:
    """key: the chart's key on its page (ui.chart); title: its title, a format string; x_title, y_title:
    its axes ("" for none)."""

    key: str
    title: str
    x_title: str = ""
    y_title: str = ""

    def titled(self, **names: object) -> str:
        """The title in the language on screen with its fields filled in (the HTML export and the page pass
        the same names)."""
        return i18n._(self.title, **names)

    @property
    def axes(self) -> dict[str, str]:
        """The axis titles as the figure builders take them (x_title=, y_title=), in the language on screen."""
        return {
            name: i18n._(text)
            for name, text in (("x_title", self.x_title), ("y_title", self.y_title))
            if text
        }


INPUT = ChartSpec(
    "sentence.embeddings", N_("{input}"), N_("dimension"), N_("token")
)  # {input}: Description.input_title
PE_MATRIX = ChartSpec("pe.matrix", N_("Encodings P"), N_("dimension"), N_("position"))
PE_SIMILARITY = ChartSpec(
    "pe.similarity", N_("Similarity P Pᵀ between positions"), N_("position"), N_("position")
)
PROJECTION = ChartSpec(
    "projections.{name}", N_("{out} ({head})"), N_("dimension"), N_("token")
)  # {out}: Q, K or V
PROJECTION_OF = ChartSpec(
    "projections.{name}", N_("{out} = X {weights} ({head})"), N_("dimension"), N_("token")
)
RAW_SCORES = ChartSpec("scores.raw", N_("Raw scores Q Kᵀ ({head})"))
# "×" and its number keep to one line (a no-break space) when the title wraps in half a page's width.
SCALED_SCORES = ChartSpec("scores.scaled", N_("Softmax input: scaled (×\u00a0{scale:.4g})"))
WEIGHTS = ChartSpec("scores.weights", N_("Softmax weights A ({head}; rows sum to 1)"))
HEAD_GRID = ChartSpec("heads.grid", N_("Attention weights of every head (one colour scale for all)"))
CONCAT = ChartSpec("heads.concat", CONCAT_TITLE, N_("dimension (head · dimension of its value)"), N_("token"))
OUTPUT = ChartSpec("heads.output", N_("Output = concat · W_O"), N_("dimension"), N_("token"))
TOKEN_WEIGHTS = ChartSpec(
    "token.weights",
    N_("Weights of “{token}” over the keys ({head}) (sum {total:.3f})"),
    N_("key"),
    N_("weight aᵢⱼ"),
)
TOKEN_STACK = ChartSpec("token.stack", N_("Output of “{token}”: each key's share aᵢⱼ · vⱼ, stacked"))


# The real-model pages' charts ({layer}, {head}: 1-based).
HEAD_WEIGHTS = ChartSpec("head.w", N_("Weights of layer {layer}, head {head} (rows sum to 1)"))
# The same beside the toy model's head (half the width: shorter)
HEAD_WEIGHTS_BESIDE = N_("Real model, layer {layer}, head {head} (rows sum to 1)")
HEAD_VECTORS = ChartSpec(
    "head.{name}", N_("{out} of head {head}"), N_("dimension"), N_("token")
)  # {out}: Q, K or V
INDUCTION_PATTERN = ChartSpec(
    "induction.pattern", N_("Layer {layer}, head {head} (score {score:.2f}); the stripe between the dashes")
)
INDUCTION_SCORES = ChartSpec(
    "induction.scores", N_("Induction score (on the stripe)"), N_("head"), N_("layer")
)
PREVIOUS_SCORES = ChartSpec(
    "induction.previous", N_("Previous-token score (on the diagonal below)"), N_("head"), N_("layer")
)
NEXT_MASK = ChartSpec(
    "next.mask", N_("Causal mask: layer {layer}, head {head} (grey = a later token, hidden)")
)


# The softmax's input as its title says it: scaled, plus ALiBi's bias, masked (each a whole title).
SCALED_TITLES = {
    (False, False): SCALED_SCORES.title,
    (True, False): N_("Softmax input: scaled (×\u00a0{scale:.4g}) + ALiBi bias"),
    (False, True): N_("Softmax input: scaled (×\u00a0{scale:.4g}), masked"),
    (True, True): N_("Softmax input: scaled (×\u00a0{scale:.4g}) + ALiBi bias, masked"),
}


def scaled_title(scale: float, alibi: bool, masked: bool) -> str:
    """Exactly what the softmax reads: the scores scaled, plus ALiBi's bias, -inf where masked."""
    return i18n._(SCALED_TITLES[alibi, masked], scale=scale)


TOKEN_WEIGHTS_ONE_HEAD = N_("Weights of “{token}” over the keys (sum {total:.3f})")


def token_weights_title(token: str, head: str, n_heads: int, total: float) -> str:
    """One query's weights over the keys; the head is named when there is more than one."""
    if n_heads > 1:
        return TOKEN_WEIGHTS.titled(token=token, head=head, total=total)
    return i18n._(TOKEN_WEIGHTS_ONE_HEAD, token=token, total=total)

"""One declaration per chart that a page draws and the offline HTML page draws again: its key on the page, its
title and its axes.

The pages (app_pages/) and explorer.export.html_charts both read these, so a title cannot drift between
the app and its export (tests/app/views/test_chart_specs.py compares the HTML's titles with the pages'). A title
is a format string; {head} is a head's name as the reader sees it ("head 2", or "layer 5, head 3" in a real
model's export). Pure: no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass

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
        """The title with its fields filled in (the HTML export and the page pass the same names)."""
        return self.title.format(**names)

    @property
    def axes(self) -> dict[str, str]:
        """The axis titles as the figure builders take them (x_title=, y_title=)."""
        return {name: text for name, text in (("x_title", self.x_title), ("y_title", self.y_title)) if text}


INPUT = ChartSpec("sentence.embeddings", "{input}", "dimension", "token")  # {input}: Description.input_title
PE_MATRIX = ChartSpec("pe.matrix", "Encodings P", "dimension", "position")
PE_SIMILARITY = ChartSpec("pe.similarity", "Similarity P Pᵀ between positions", "position", "position")
PROJECTION = ChartSpec("projections.{name}", "{out} ({head})", "dimension", "token")  # {out}: Q, K or V
PROJECTION_OF = ChartSpec("projections.{name}", "{out} = X {weights} ({head})", "dimension", "token")
RAW_SCORES = ChartSpec("scores.raw", "Raw scores Q Kᵀ ({head})")
# "×" and its number keep to one line (a no-break space) when the title wraps in half a page's width.
SCALED_SCORES = ChartSpec("scores.scaled", "Softmax input: scaled (×\u00a0{scale:.4g}){bias}{masked}")
WEIGHTS = ChartSpec("scores.weights", "Softmax weights A ({head}; rows sum to 1)")
HEAD_GRID = ChartSpec("heads.grid", "Attention weights of every head (one colour scale for all)")
CONCAT = ChartSpec("heads.concat", CONCAT_TITLE, "dimension (head · dimension of its value)", "token")
OUTPUT = ChartSpec("heads.output", "Output = concat · W_O", "dimension", "token")
TOKEN_WEIGHTS = ChartSpec(
    "token.weights", "Weights of “{token}” over the keys{head} (sum {total:.3f})", "key", "weight aᵢⱼ"
)
TOKEN_STACK = ChartSpec("token.stack", "Output of “{token}”: each key's share aᵢⱼ · vⱼ, stacked")


# The real-model pages' charts ({layer}, {head}: 1-based).
HEAD_WEIGHTS = ChartSpec(
    "head.w", "{what} layer {layer}, head {head} (rows sum to 1)"
)  # {what}: "Weights of"
HEAD_VECTORS = ChartSpec("head.{name}", "{out} of head {head}", "dimension", "token")  # {out}: Q, K or V
INDUCTION_PATTERN = ChartSpec(
    "induction.pattern", "Layer {layer}, head {head} (score {score:.2f}); the stripe between the dashes"
)
INDUCTION_SCORES = ChartSpec("induction.scores", "Induction score (on the stripe)", "head", "layer")
PREVIOUS_SCORES = ChartSpec(
    "induction.previous", "Previous-token score (on the diagonal below)", "head", "layer"
)
NEXT_MASK = ChartSpec("next.mask", "Causal mask: layer {layer}, head {head} (grey = a later token, hidden)")


def scaled_title(scale: float, alibi: bool, masked: bool) -> str:
    """Exactly what the softmax reads: the scores scaled, plus ALiBi's bias, -inf where masked."""
    return SCALED_SCORES.titled(
        scale=scale, bias=" + ALiBi bias" if alibi else "", masked=", masked" if masked else ""
    )


def token_weights_title(token: str, head: str, n_heads: int, total: float) -> str:
    """One query's weights over the keys; the head is named when there is more than one."""
    return TOKEN_WEIGHTS.titled(token=token, head=f" ({head})" if n_heads > 1 else "", total=total)

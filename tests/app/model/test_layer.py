"""explorer.model.layer: one typed layer. The toy and a real model's layer implement the same `Layer`, run
through one engine function, and nothing outside them asks which kind of layer is on screen."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import numpy as np

import attention_core as ac
from explorer.compute import pipeline
from explorer.model import bridge, layer, tiny, toy
from explorer.model.example import Example, conform

ROOT = Path(__file__).resolve().parents[3]

# The layer implementations: the only code that may know which kind of layer it is.
IMPLEMENTATIONS = ("explorer/model/layer.py", "explorer/model/toy.py", "explorer/model/bridge.py",
                   "explorer/model/tiny.py", "explorer/model/description.py")  # fmt: skip

# A decision site is a line that asks "toy or real?" instead of asking the layer or its description:
DECISION = re.compile(
    r"""[=!]=\s*["']toy["']"""  # a comparison with the toy's key
    r"""|[=!]=\s*TOY\b|\bTOY\b"""  # or with its constant
    r"""|\.real\s*[=!]="""  # a comparison of the example's model
    r"""|\.(trained|seeded)\b"""  # the two names of the question, as attributes
    r"""|\b(names_a_layer|is_real|implementation|model_of|use_layers)\("""  # the dispatchers that answered it
    r"""|\.layer\s+is\s+(not\s+)?None"""  # "is the description a layer's?"
    r"""|\bisinstance\([^)]*\b(LayerBase|Toy\w*|Bridge\w*)\b"""  # a type check on a layer kind
    r"""|(?<!["'])\bbridge\.(?!py\b)\w+|import\s+.*\bbridge\b"""  # reaching a real layer's implementation
    r"""|\blayer_look\b|\bloaded\("""  # the page table's fork; a page asking whether a model is loaded
)


def decision_sites(root: Path = ROOT) -> list[str]:
    """Every decision site (DECISION) in the app outside the layer implementations, as "path:line: text"."""
    paths = [root / "app.py", *(root / "explorer").rglob("*.py"), *(root / "app_pages").glob("*.py")]
    return [
        f"{path.relative_to(root)}:{n}: {line.strip()}"
        for path in sorted(paths)
        if str(path.relative_to(root)) not in IMPLEMENTATIONS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DECISION.search(line.split("#")[0])
    ]


def test_nothing_outside_the_layer_implementations_asks_toy_or_real() -> None:
    assert decision_sites() == []
    # the pattern finds the sites it is there to find
    for site in (
        'if ex.real == "toy":',
        "if describe(ex).trained:",
        "seeded = state.description().seeded",
        "if names_a_layer(real):",
        "if d.layer is None:",
        "from explorer.model import bridge",
        "base = bridge.base(ex.real, ex.real_layer)",
        "model = implementation(ex)",
        "changes.update(real=TOY, real_layer=0)",
        "if step.layer_look:",
    ):
        assert DECISION.search(site), site


def _imports(path: Path) -> set[str]:
    """Every explorer.model module `path` imports, at the top or inside a function."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
            out |= {n for n in names if n.startswith("explorer.model.")}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("explorer.model.")}
    return out


def test_the_model_package_has_no_import_cycle_even_inside_functions() -> None:
    modules = {p.stem: p for p in (ROOT / "explorer/model").glob("*.py") if p.stem != "__init__"}
    graph = {
        name: {m.split(".")[2] for m in _imports(p) if m.split(".")[2] in modules} - {name}
        for name, p in modules.items()
    }

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in graph[start])

    assert [name for name in graph if reaches(name, name, {name})] == []
    assert "bridge" not in graph["description"] and "layer" not in graph["description"]


def test_no_codec_is_handed_a_loader() -> None:
    ui = (ROOT / "explorer/ui/__init__.py").read_text(encoding="utf-8")
    assert "import" not in ui.split('"""')[-1]  # the package's docstring only: nothing wired at import
    for path in (ROOT / "explorer/sharing").glob("*.py"):
        assert not any("bridge" in m for m in _imports(path)), path


def test_the_toy_and_a_real_layer_implement_the_layer_and_run_through_transformer_layer() -> None:
    wanted = [n for n, v in inspect.getmembers(layer.Layer) if not n.startswith("_") and callable(v)]
    assert {"describe", "tokens", "defaults", "reference", "run_block"} <= set(wanted)
    for implementation in (toy, bridge, tiny):
        missing = [n for n in wanted if not callable(getattr(implementation, n, None))]
        assert missing == [] and isinstance(implementation.DRAWN, bool), implementation
        assert "transformer_layer" in inspect.getsource(
            implementation
        ) or "encoder_layer" in inspect.getsource(implementation)
    assert (
        layer.of(Example()) is toy and layer.of_key("minilm") is bridge and layer.of_key("smollm2") is bridge
    )
    assert layer.of_key("tiny") is tiny
    assert toy.DRAWN and not bridge.DRAWN and not tiny.DRAWN
    # encoder_layer is a thin name for transformer_layer (tests/core/test_transformer.py checks the numbers)
    assert "transformer_layer(" in inspect.getsource(ac.encoder_layer)


def test_the_toy_runs_through_its_layer_with_the_numbers_of_transformer_layer() -> None:
    ex = conform(Example(alibi=True, rope=True, norm_first=True, scale_mode="custom", scale_custom=0.4))
    res = pipeline.run(ex)
    assert res.error is None and res.encoder is not None and res.bias is not None
    weights, config, mask, bias, scale = ac.transformer.toy_layer(
        res.x, ex.w_q, ex.w_k, ex.w_v, ex.w_o, ex.w1, ex.w2, mask=res.mask, norm_first=True, scale=res.scale,
        bias=res.bias, use_rope=True,
    )  # fmt: skip
    want = ac.transformer_layer(res.x, weights, config, mask, scale=scale, bias=bias)
    np.testing.assert_array_equal(res.encoder.output, want.output)
    np.testing.assert_array_equal(res.attention.weights, want.attention.weights)
    assert res.attention.scale == 0.4 == want.attention.scale


def test_the_toys_seeded_matrices_are_drawn_once_and_handed_out_as_copies() -> None:
    """Every student of a class resets to the teacher's example on each move: the draws are kept once per
    process, each caller gets arrays of its own, and other sizes, tokens or draws are drawn for what they are."""
    from explorer.model import seeding

    ex = Example(sentence="the cat sat")
    tokens = ["the", "cat", "sat"]
    first = toy.defaults(ex, tokens)
    first["w_q"][0, 0, 0] += 100.0  # a caller's own copy
    again = toy.defaults(ex, tokens)
    want = seeding.matrices(ex, tokens)
    for name, m in want.items():
        np.testing.assert_array_equal(again[name], m)
        assert again[name].flags.writeable
    assert again["w_q"][0, 0, 0] != first["w_q"][0, 0, 0]
    redrawn = toy.defaults(ex, tokens, {"w_q": 2})
    np.testing.assert_array_equal(redrawn["w_q"], seeding.matrices(ex, tokens, {"w_q": 2})["w_q"])
    assert not np.array_equal(redrawn["w_q"], want["w_q"])
    wider = toy.defaults(ex.with_(d_model=ex.d_model + 2), tokens)
    assert wider["emb"].shape == (3, ex.d_model + 2)
    assert toy.defaults(ex, ["the", "dog"])["emb"].shape[0] == 2

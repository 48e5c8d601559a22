"""Which glossary terms each page explains in its "Words on this page" fold (keys of entries.TERMS)."""

from __future__ import annotations


def _terms(keys: str) -> tuple[str, ...]:
    """Glossary keys written as one line of words."""
    return tuple(keys.split())


# The terms each page explains in its fold (by the page's url_path): at least every term its text uses,
# whichever model is on screen (tests/app/pages/test_glossary_on_pages.py).
ON_PAGE: dict[str, tuple[str, ...]] = {
    "": _terms(
        "token embedding vector position qkv softmax weight attention head mask layer ffn residual rmsnorm "
        "encoder decoder logit temperature variance rollout lens induction ablation patching activation "
        "minimal dmodel massive"
    ),
    "positional-encoding": _terms(
        "token embedding vector position qkv attention head layer residual rmsnorm massive cosine dmodel "
        "activation mask softmax"
    ),
    "projections": _terms("token vector position qkv attention head layer encoder rmsnorm massive"),
    "scores": _terms(
        "token vector position qkv dot score softmax attention head mask layer encoder rmsnorm massive dmodel"
    ),
    "heads": _terms("token vector position qkv weight attention head layer encoder rmsnorm massive dmodel"),
    "token": _terms("token vector position qkv weight attention head layer encoder rmsnorm massive"),
    "encoder": _terms(
        "token vector position qkv attention head layer ffn residual layernorm rmsnorm encoder massive "
        "variance activation"
    ),
    "why-scale": _terms(
        "token vector position qkv dot score softmax attention head mask layer encoder rmsnorm entropy "
        "variance dmodel gradient"
    ),
    "learn": _terms("token qkv attention head layer probability loss nats induction previous gradient"),
    "model": _terms(
        "token vector qkv attention head layer encoder decoder cls sink entropy induction previous dmodel"
    ),
    "head": _terms(
        "token vector position qkv score softmax weight attention head mask layer encoder decoder cls sink "
        "dmodel"
    ),
    "next-token": _terms(
        "token vector qkv score softmax attention head mask layer decoder logit probability temperature "
        "vocabulary loss logp dmodel"
    ),
    "ablation": _terms(
        "token embedding vector qkv head layer hidden encoder decoder cls probability cosine ablation dmodel"
    ),
    "rollout": _terms(
        "token vector qkv weight attention head layer ffn residual encoder decoder cls rollout dmodel"
    ),
    "logit-lens": _terms(
        "token embedding vector qkv softmax head layer residual rmsnorm decoder logit probability lens tied "
        "dmodel"
    ),
    "induction": _terms(
        "token vector qkv head layer decoder probability loss logp nats induction previous ablation dmodel"
    ),
    "patching": _terms(
        "token vector qkv attention head layer decoder logit patching clean restored activation dmodel"
    ),
    "minimal-pairs": _terms("token attention head mask layer encoder decoder minimal dmodel"),
}

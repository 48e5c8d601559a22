from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core import token_index_labels, token_labels, tokenize

from .conftest import fast


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("It's snowing outside.", ["It's", "snowing", "outside", "."]),
        ("It’s snowing", ["It’s", "snowing"]),
        ("I don't know", ["I", "don't", "know"]),
        ("a state-of-the-art model", ["a", "state-of-the-art", "model"]),
        ("Hello, world!", ["Hello", ",", "world", "!"]),
        ("Wait...", ["Wait", ".", ".", "."]),
        ("[CLS] the cat [SEP] [PAD] [PAD]", ["[CLS]", "the", "cat", "[SEP]", "[PAD]", "[PAD]"]),
        ("[MASK]ed", ["[MASK]", "ed"]),
        ("[pad]", ["[", "pad", "]"]),
        ("'quoted'", ["'", "quoted", "'"]),
        ("3.14 is pi", ["3", ".", "14", "is", "pi"]),
        ("snake_case", ["snake", "_", "case"]),
        ("café naïve", ["café", "naïve"]),
        ("cafe\u0301", ["cafe\u0301"]),  # a combining accent stays in its word
        ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),
        ("我喜欢猫。", ["我", "喜", "欢", "猫", "。"]),
        ("I ❤️ NY 👍🏽", ["I", "❤️", "NY", "👍🏽"]),
        ("family 👨\u200d👩\u200d👧 here", ["family", "👨\u200d👩\u200d👧", "here"]),
        ("🇫🇷🇩🇪", ["🇫🇷", "🇩🇪"]),
        ("  many \t\n  spaces\u00a0\u2003here ", ["many", "spaces", "here"]),
        ("zero\u200bwidth", ["zero", "width"]),
        ("", []),
        ("   \n\t ", []),
    ],
)
def test_tokenize_examples(sentence: str, expected: list[str]) -> None:
    assert tokenize(sentence) == expected


_DROPPED = re.compile(r"[\s\x00-\x1f\x7f\u200b\u200c\u200d\u2060\ufeff]")


@fast
@given(st.text(max_size=40))
def test_tokenize_drops_only_whitespace(sentence: str) -> None:
    tokens = tokenize(sentence)
    assert "".join(tokens) == _DROPPED.sub("", sentence)
    assert all(tok and not any(ch.isspace() for ch in tok) for tok in tokens)


def test_token_labels_repeated_words() -> None:
    tokens = tokenize("the cat sat on the mat")
    assert token_labels(tokens) == ["the ·0", "cat", "sat", "on", "the ·4", "mat"]


def test_token_labels_adversarial() -> None:
    tokens = ["a ·1", "a", "a"]
    labels = token_labels(tokens)
    assert len(set(labels)) == 3
    assert all(tok in lab for tok, lab in zip(tokens, labels, strict=True))


def test_token_labels_empty() -> None:
    assert token_labels([]) == []


@fast
@given(st.lists(st.sampled_from(["a", "b", "a ·1", "a ·2", "a ·1 ·0", "·", "1", " ·0"]), max_size=12))
def test_token_labels_always_unique(tokens: list[str]) -> None:
    labels = token_labels(tokens)
    assert len(labels) == len(tokens)
    assert len(set(labels)) == len(labels)
    for tok, lab in zip(tokens, labels, strict=True):
        assert lab.startswith(tok)


@fast
@given(st.lists(st.sampled_from(["the", "cat", "sat", ".", "[PAD]"]), max_size=12))
def test_token_labels_rule(tokens: list[str]) -> None:
    expected = [tok if tokens.count(tok) == 1 else f"{tok} ·{i}" for i, tok in enumerate(tokens)]
    assert token_labels(tokens) == expected


def test_unique_tokens_keep_their_text() -> None:
    assert token_labels(["It's", "snowing", "outside", "."]) == ["It's", "snowing", "outside", "."]


def test_token_index_labels() -> None:
    assert token_index_labels(["the", "cat", "the"]) == ["0 the", "1 cat", "2 the"]


@pytest.mark.parametrize("bad", [None, 3, ["a", 1]])
def test_labels_reject_non_strings(bad: object) -> None:
    with pytest.raises(ValueError, match="tokens"):
        token_labels(bad)  # type: ignore[arg-type]


def test_labels_reject_a_bare_string() -> None:
    with pytest.raises(ValueError, match="single string"):
        token_labels("the cat")


def test_tokenize_rejects_non_string() -> None:
    with pytest.raises(ValueError, match="sentence must be a string"):
        tokenize(None)  # type: ignore[arg-type]

"""explorer.views.text: literal Markdown and the end of a sentence shown in a title."""

from explorer.views.text import probability, tail


def test_tail_keeps_a_short_text_whole() -> None:
    assert tail("The capital of France is") == "The capital of France is"
    assert tail("  two   spaces ") == "two spaces"


def test_tail_cuts_before_a_whole_word_and_says_so() -> None:
    text = "The cat sat on the mat because the cat was very tired"
    got = tail(text, 20)
    assert got == "…cat was very tired"
    assert text.endswith(got[1:])
    assert len(got) - 1 <= 20


def test_tail_at_a_space_keeps_the_word_after_it() -> None:
    assert tail("The cat sat on the mat", 12) == "…on the mat"
    assert tail("aaaa bbbb", 4) == "…bbbb"
    assert tail("aaaa bbbb cc", 7) == "…bbbb cc"


def test_tail_of_one_long_word_is_cut_inside_it() -> None:
    assert tail("x" * 50, 10) == "…" + "x" * 10


def test_a_probability_says_how_to_read_it() -> None:
    """A number of the e-notation is said in words: 2.1e-72 is practically zero; 0.00042 about 1 in 2,400;
    the everyday ones as they are."""
    assert probability(2.1e-72) == "2.1e-72 (practically zero)"
    assert probability(4.2e-4) == "0.00042 (about 1 in 2,400)"
    assert probability(0.2231) == "0.223"
    assert probability(0.0) == "0.000"

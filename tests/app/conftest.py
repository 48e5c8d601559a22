"""The pytest fixtures of the AppTest tests; the helpers they use are in tests/app/fixtures.py."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from jupyter_client.manager import start_new_kernel

from tests.app.fixtures import (
    PAGE_CHARTS,
    array_of,
    charts,
    open_app,
    open_page,
    page_scripts,
    reference,
    row_labels,
    z_of,
)


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers of tests/app/fixtures.py most tests use, as one fixture."""
    return SimpleNamespace(
        open=open_page,
        app=open_app,
        charts=charts,
        array=array_of,
        z=z_of,
        labels=row_labels,
        reference=reference,
        scripts=page_scripts,
        page_charts=PAGE_CHARTS,
    )


@pytest.fixture(autouse=True, scope="session")
def _full_error_details() -> None:
    """AppTest failures show the app's real error message (.streamlit/config.toml redacts it for visitors)."""
    from streamlit import config

    config.set_option("client.showErrorDetails", "full")


@pytest.fixture(scope="session")
def kernel():  # noqa: ANN201
    """One Jupyter kernel per test process (starting one takes seconds); each notebook starts with %reset -f
    (fixtures.execute)."""
    km, kc = start_new_kernel(kernel_name="python3")
    yield km
    kc.stop_channels()
    km.shutdown_kernel(now=True)

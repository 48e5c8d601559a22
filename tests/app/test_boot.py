"""explorer.boot.freeze_imports: what the imports made is kept out of the collector's sight, once per module."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import gc, json, sys
    import plotly.graph_objects, streamlit, pandas
    from explorer import boot, figures, pipeline
    out = {"tracked_before": len(gc.get_objects())}
    boot.freeze_imports()
    out["frozen"] = gc.get_freeze_count()
    out["tracked_after"] = len(gc.get_objects())
    boot.freeze_imports()  # no new module: nothing is collected or frozen
    out["frozen_again"] = gc.get_freeze_count()
    junk = [[] for _ in range(1000)]
    boot.freeze_imports()
    out["junk_not_frozen"] = gc.get_freeze_count() == out["frozen"]
    import explorer.export.notebook  # a page's first visit imports more
    boot.freeze_imports()
    out["frozen_after_import"] = gc.get_freeze_count()
    print(json.dumps(out))
    """
)


def test_the_imports_are_frozen_and_a_run_that_imports_nothing_freezes_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )
    out = __import__("json").loads(done.stdout.strip().splitlines()[-1])
    # Streamlit, Plotly and pandas make well over 50,000 objects; after the freeze the collector tracks
    # almost none of them (what gc.collect(2) after every run walks).
    assert out["tracked_before"] > 50_000, out
    assert out["frozen"] > 0.9 * out["tracked_before"], out
    assert out["tracked_after"] < 0.05 * out["tracked_before"], out
    assert out["frozen_again"] == out["frozen"], out
    assert out["junk_not_frozen"], out
    assert out["frozen_after_import"] > out["frozen"], out

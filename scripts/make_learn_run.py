"""Train the shipped run of /learn from its seed and write explorer/assets/learn_run.npz.

Usage: OPENBLAS_NUM_THREADS=1 python scripts/make_learn_run.py  (a few minutes; prints the final scores)
       python scripts/make_learn_run.py --figures  (the shipped file's three figures against their targets)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.model import learning  # noqa: E402


def figures() -> int:
    prev, ind, loss = learning.final_figures(learning.load())
    want_prev, want_ind, want_loss = learning.TARGETS
    print(f"layer 1's best previous-token score {prev:.3f} (target >= {want_prev})")
    print(f"layer 2's best induction score {ind:.3f} (target >= {want_ind})")
    print(f"the copied tokens' loss {loss:.3f} nats (target <= {want_loss})")
    return 0 if prev >= want_prev and ind >= want_ind and loss <= want_loss else 1


def main() -> int:
    if "--figures" in sys.argv[1:]:
        return figures()
    start = time.process_time()
    run = learning.train_run(
        learning.Recipe(), progress=lambda s: print(s, flush=True) if s % 250 == 0 else None
    )
    learning.save(run)
    print(
        f"{time.process_time() - start:.0f} CPU s; {learning.RUN_FILE} {learning.RUN_FILE.stat().st_size} bytes"
    )
    print(
        "induction (layer 2):",
        run.induction[-1, 1].round(3),
        "previous (layer 1):",
        run.previous[-1, 0].round(3),
    )
    print("copied tokens' loss:", round(float(run.repeat_loss[-1]), 3))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

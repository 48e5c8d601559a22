"""Train it yourself on /learn: seconds from pressing Train to the phase change on the page's curves.

The default run (learning.LIVE_DEFAULTS) goes to a local pool of one worker process (and its short lane), as
the server runs it; the page's fragment looks every POLL_S seconds, so the phase change shows on screen at the
first look after the job reports a measurement in which a layer-2 head passed the induction score FORMED.
Printed: seconds to the first report, to that report, to the end of the run, and the worker's CPU seconds
per step implied; the load average before and after (the machine is shared: read the seconds beside it).
The target is 60 s on the 2-CPU machine.

Usage: python -m benchmarks learn_live [--seed 0] [--lr 0.01] [--heads 4] [--steps 1500]
"""

from __future__ import annotations

import argparse
import os
import time

from _common import load, machine, save

from explorer.compute import jobs
from explorer.compute import learn_live as ll
from explorer.compute.jobs import local, probe
from explorer.model import learning
from explorer.ui.learn_ui import POLL_S

TARGET_S = 60.0


def main() -> int:
    d = learning.LIVE_DEFAULTS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=d["seed"])
    ap.add_argument("--lr", type=float, default=d["lr"])
    ap.add_argument("--heads", type=int, default=d["heads"])
    ap.add_argument("--steps", type=int, default=d["steps"])
    args = ap.parse_args()
    os.environ.setdefault("ATTENTION_EXPLORER_WORKER_WARM", "0")  # no real model loaded before the job
    pool = local.LocalPool(1)
    loads = [load()]
    try:
        warm = pool.submit(jobs.spec(probe.where, "ready", keep=False), "warm-up")
        while warm.wait(POLL_S).state in ("queued", "running"):  # the worker up before the clock starts
            pass
        began = time.monotonic()
        place = pool.submit(ll.job(args.seed, args.lr, args.heads, args.steps), "presenter")
        first = formed = None
        while (now := place.wait(POLL_S)).state in ("queued", "running"):
            run = now.partial
            if run is not None and first is None:
                first = time.monotonic() - began
            if run is not None and formed is None and run.formed_at is not None:
                formed, formed_step = time.monotonic() - began, run.formed_at
        run = place.result()
        total = time.monotonic() - began
        if formed is None and run.formed_at is not None:
            formed, formed_step = total, run.formed_at
    finally:
        pool.close()
    loads.append(load())
    shown = "never" if formed is None else f"{formed:.1f} s (the induction head formed at step {formed_step})"
    lines = [
        "# Train it yourself: from Train to the phase change on screen",
        "",
        f"{machine()}; seed {args.seed}, learning rate {args.lr:g}, {args.heads} heads, {args.steps} steps; "
        f"{loads[0]} before, {loads[1]} after",
        "",
        f"- first curves drawn: {first:.1f} s" if first is not None else "- first curves drawn: never",
        f"- phase change shown: {shown}",
        f"- the whole run: {total:.1f} s ({1000 * total / args.steps:.1f} ms a step, measuring included)",
        "",
        f"Target: the phase change within {TARGET_S:g} s: "
        f"{'met' if formed is not None and formed <= TARGET_S else 'NOT met'}",
    ]
    save(
        "learn_live.md", "\n".join(lines), {"first": first, "formed": formed, "total": total, "loads": loads}
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

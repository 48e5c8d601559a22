"""A tab that lost its connection runs the app again once it is back: the page is rebuilt on whichever server took it.

Behind a load balancer (scripts/serve.sh, deploy/), a session lives in the process of one replica. When that
replica dies, Streamlit's page reconnects through the proxy to another replica, which knows nothing of the
session, and then waits: the page keeps showing what the dead replica drew, and nothing runs until the student
clicks something. This small keyed st.components.v2 component (no visible content, mounted by the frame)
watches the app's connection state and, when the connection comes back, sends one trigger: Streamlit's rerun
carries the address bar, and the new session's first run reads the whole example from it
(explorer.ui.frame.read_url). On the same server (a network blip, the session still there) it is one ordinary
rerun.

The script is ours and static (no user text reaches it). tests/e2e/test_replicas.py kills a replica in the
middle of a lesson and checks the page the other one rebuilds.
"""

from __future__ import annotations

import functools
from typing import Any

NAME = "attention_explorer.reconnect"
KEY = "frame.reconnect"

JS = r"""
export default function (component) {
  window.__aeReconnectTrigger = component.setTriggerValue; // the mounted instance's (a rerun remounts it)
  if (window.__aeReconnect) return;
  window.__aeReconnect = true;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return;
  let lost = false;
  // Streamlit keeps its connection state on the app's root element (CONNECTED, PINGING_SERVER, ...).
  new MutationObserver(() => {
    if (app.dataset.testConnectionState !== 'CONNECTED') {
      lost = true;
    } else if (lost) {
      lost = false;
      window.__aeReconnectTrigger('back', String(Date.now()));
    }
  }).observe(app, { attributes: true, attributeFilter: ['data-test-connection-state'] });
}
"""


def mount() -> None:
    """Install the watcher in the page (once per browser tab; the script ignores a second mount)."""
    _component()(key=KEY, height=0, on_back_change=_ignore)


def _ignore() -> None:
    """The trigger's callback: the rerun it starts is all it is for."""


@functools.cache
def _component() -> Any:
    import streamlit as st

    return st.components.v2.component(NAME, js=JS, isolate_styles=False)

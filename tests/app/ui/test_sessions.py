"""Many users: every person's example lives in their own session only.

- two sessions side by side never see each other's sentence or edits;
- no module-level mutable state in the app or the engine (nothing a session could write for another to read);
- nothing per-user in st.cache_resource; every cache is bounded in bytes (explorer.cache.shared(max_bytes=)),
  none is st.cache_data (bounded only in entries).

The load test with 30+ real sessions against one server is tests/load (short form) and
benchmarks/load_test.py (full form).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from explorer.ui import chart
from tests.app.fixtures import PAGES, edit_cells, editor_key, go, matrix, open_app

ROOT = Path(__file__).resolve().parents[3]
CODE = [
    ROOT / "app.py",
    *sorted((ROOT / "explorer").rglob("*.py")),
    *sorted((ROOT / "app_pages").glob("*.py")),
    *sorted((ROOT / "attention_core").glob("*.py")),
]
MUTATORS = {
    "append",
    "extend",
    "insert",
    "update",
    "setdefault",
    "pop",
    "popitem",
    "clear",
    "add",
    "discard",
    "remove",
    "sort",
    "reverse",
    "__setitem__",
}
# Process-wide wiring, the same for every session: the layer kinds a test hands in (explorer.model.layer.use).
WIRING = {
    "explorer/model/layer.py": ("_HANDED",),
    "explorer/ui/chart/serve.py": ("_static",),  # Streamlit's bundle, gzipped at server start
    "explorer/compute/jobs/__init__.py": ("_backend",),  # the process's one pool of workers (or Redis queue)
    # One lock per session with a run under way (removed when its last run ends): what keeps a session's
    # reruns one at a time is the process's to hold, keyed by the session, never a session's data.
    "explorer/ui/patches.py": ("_TURNS",),
    # Where the session's language is read (explorer.ui.state binds its getter at import): the same getter
    # for every session, each reading its own session's state.
    "explorer/i18n/__init__.py": ("_language",),
}
MUTABLE_CALLS = {"list", "dict", "set", "defaultdict", "OrderedDict", "Counter", "deque", "bytearray"}


def texts(at) -> str:  # noqa: ANN001 - AppTest
    """Everything a session shows as text: input values, tables, chart specs, messages."""
    parts = [str(t.value) for t in at.text_input]
    parts += [df.value.to_csv() for df in at.dataframe]
    parts += [el.proto.bytes.decode() for el in at.get("bidi_component") if chart.spec_of(el.proto)]
    parts += [str(e.value) for kind in ("markdown", "info", "warning", "error") for e in at.get(kind)]
    return "\n".join(parts)


def test_two_sessions_see_only_their_own_sentence_and_edits() -> None:
    alice = open_app("alice likes zebras")
    bob = open_app("bob prefers quokkas")
    assert "zebras" in texts(alice) and "quokkas" not in texts(alice)
    assert "quokkas" in texts(bob) and "zebras" not in texts(bob)
    go(alice, "app_pages/projections.py")
    edit_cells(alice, editor_key(alice, "w_q", 0), {"0": {"c0": 42.0}})
    for page in PAGES:
        go(bob, page)
        assert "zebras" not in texts(bob), page
    assert matrix(alice, "w_q")[0, 0, 0] == 42.0
    assert matrix(bob, "w_q")[0, 0, 0] != 42.0
    bob.run()
    alice.run()
    assert "quokkas" not in texts(alice) and "zebras" not in texts(bob)
    # the same example in two sessions is computed once (shared, content-keyed cache) and drawn the same
    carol = open_app("bob prefers quokkas")
    assert (
        carol.get("bidi_component")[0].proto.bytes
        == open_app("bob prefers quokkas").get("bidi_component")[0].proto.bytes
    )


def test_session_state_is_not_shared_by_reference() -> None:
    """Matrices are never module-level arrays that two sessions hold by reference: editing one session's
    matrix in place does not change another's."""
    a, b = open_app(), open_app()
    wa = a.session_state["m.matrices"]["w_q"]
    wb = b.session_state["m.matrices"]["w_q"]
    assert not np.shares_memory(wa, wb)


def _module_mutables(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound to a mutable container (display or constructor call) -> line."""
    out: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            value = node.value
            mutable = isinstance(
                value, ast.List | ast.Dict | ast.Set | ast.ListComp | ast.DictComp | ast.SetComp
            )
            if isinstance(value, ast.Call):
                fn = value.func
                name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
                mutable = name in MUTABLE_CALLS
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and mutable:
                    out[t.id] = node.lineno
    return out


def shared_state_problems(source: str) -> list[str]:
    """Module-level containers mutated or rebound by functions (`global`, .append, x[k] = v, ...)."""
    tree = ast.parse(source)
    mutables = _module_mutables(tree)
    problems = [f"line {n.lineno}: global {n.names}" for n in ast.walk(tree) if isinstance(n, ast.Global)]
    functions = [
        n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    ]
    for fn in functions:
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id in mutables and node.func.attr in MUTATORS:
                    problems.append(f"line {node.lineno}: {owner.id}.{node.func.attr}()")
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign | ast.Delete):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for t in targets:
                base = t
                while isinstance(base, ast.Subscript | ast.Attribute):
                    base = base.value
                if t is not base and isinstance(base, ast.Name) and base.id in mutables:
                    problems.append(f"line {node.lineno}: {ast.unparse(t)} changed in place")
    return problems


def test_the_shared_state_check_finds_shared_state() -> None:
    bad = """
SEEN = []
CACHE: dict = {}
TABLE = {"a": 1}
counter = 0
def remember(x):
    SEEN.append(x)
    CACHE[x] = 1
def bump():
    global counter
    counter += 1
def fine(x):
    local = []
    local.append(TABLE["a"])
    return local
"""
    problems = shared_state_problems(bad)
    assert len(problems) == 3, problems
    assert any("SEEN.append" in p for p in problems) and any("CACHE[x]" in p for p in problems)
    assert any("global" in p for p in problems)


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_level_mutable_state(path: Path) -> None:
    """Module-level containers are constants: never mutated after import, never rebound (`global`).

    Constant tables (PALETTES, PRESETS, ...) are fine; a module-level list that functions append to would be
    shared by every session of the server. Named in WIRING: what the app sets once per process at import,
    the same for every session.
    """
    allowed = WIRING.get(path.relative_to(ROOT).as_posix(), ())
    problems = shared_state_problems(path.read_text(encoding="utf-8"))
    assert [p for p in problems if not any(re.search(rf"\b{name}\b", p) for name in allowed)] == []


def _decorators(path: Path) -> list[tuple[str, ast.AST, ast.FunctionDef]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for dec in node.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                out.append((ast.unparse(target), dec, node))
    return out


@pytest.mark.parametrize("path", CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_caches_are_bounded_and_hold_nothing_per_user(path: Path) -> None:
    for name, dec, fn in _decorators(path):
        assert not name.endswith("cache_data"), f"{path}: @{name} on {fn.name}: use explorer.cache.shared"
        if name.endswith("cache.shared"):
            kws = {k.arg for k in dec.keywords} if isinstance(dec, ast.Call) else set()
            assert "max_bytes" in kws, f"{path}: @{name} on {fn.name} without max_bytes"
        if name.endswith("cache_resource"):
            # a resource is shared by every session: only argument-free, app-wide objects
            assert not fn.args.args, f"{path}: @{name} on {fn.name} takes arguments (per-user data?)"
        if name in ("functools.cache", "cache", "functools.lru_cache", "lru_cache"):
            unbounded = name in ("functools.cache", "cache") or (
                isinstance(dec, ast.Call)
                and any(
                    k.arg == "maxsize" and isinstance(k.value, ast.Constant) and k.value.value is None
                    for k in dec.keywords
                )
            )
            if unbounded:
                assert not fn.args.args, f"{path}: unbounded @{name} on {fn.name}, which takes arguments"

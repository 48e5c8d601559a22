#!/usr/bin/env bash
# Installs what the tests need and runs every test: lint, engine, app (AppTest), browser (Playwright).
# Usage: bash scripts/test.sh [extra pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt

# A browser for tests/e2e: the system's Chromium where there is one, else Playwright's own.
if [ -z "${CHROMIUM_PATH:-}" ]; then
  for c in /usr/bin/chromium /usr/bin/chromium-browser; do
    if [ -x "$c" ]; then export CHROMIUM_PATH="$c"; break; fi
  done
fi
if [ -z "${CHROMIUM_PATH:-}" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "No Chromium found: installing Debian's chromium package..."
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || true
  [ -x /usr/bin/chromium ] && export CHROMIUM_PATH=/usr/bin/chromium
fi
if [ -z "${CHROMIUM_PATH:-}" ]; then
  .venv/bin/python -m playwright install chromium || true
fi

echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .

echo "== pytest"
# Exit code 5 (no tests collected) is a failure here, as every other non-zero code.
.venv/bin/python -m pytest -n 2 "$@"

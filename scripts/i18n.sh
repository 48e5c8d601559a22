#!/usr/bin/env bash
# The message catalogs: extract the marked strings from the code into locale/messages.pot, then bring every
# language's locale/<code>/LC_MESSAGES/messages.po up to date with it (new strings empty, changed ones
# fuzzy: both shown in English until translated). docs/LANGUAGES.md says how to translate and add a language.
#
#   bash scripts/i18n.sh            # extract, then update every catalog
#   bash scripts/i18n.sh init de    # extract, then start a catalog for a new language (and add its row to
#                                   # explorer/i18n/languages.py)
#   bash scripts/i18n.sh stats      # how many strings each catalog translates
set -euo pipefail
cd "$(dirname "$0")/.."
PYBABEL=${PYBABEL:-.venv/bin/pybabel}
POT=locale/messages.pot

extract() {  # returns 1 when the template's strings did not change (then no file is touched)
  local new
  new=$(mktemp)
  # --add-location=file: a string's file, not its line (a line moved elsewhere changes no catalog)
  "$PYBABEL" -q extract -F babel.cfg -o "$new" -c TRANSLATORS: --add-location=file --sort-by-file \
    --project="Attention Explorer" --version=1 --msgid-bugs-address="" \
    --copyright-holder="The Attention Explorer's authors" -w 110 .
  if [ -f "$POT" ] && diff -q <(grep -v '^"POT-Creation-Date' "$POT") <(grep -v '^"POT-Creation-Date' "$new") >/dev/null; then
    rm -f "$new"
    return 1
  fi
  mv "$new" "$POT"
}

case "${1:-update}" in
  update)
    extract || { echo "the catalogs are up to date"; exit 0; }
    "$PYBABEL" -q update -i "$POT" -d locale -D messages -w 110 --ignore-obsolete --no-fuzzy-matching
    ;;
  init)
    [ -n "${2:-}" ] || { echo "usage: bash scripts/i18n.sh init CODE" >&2; exit 2; }
    extract || true
    "$PYBABEL" -q init -i "$POT" -d locale -D messages -l "$2" -w 110
    ;;
  stats)
    extract || true
    .venv/bin/python -m explorer.i18n.stats
    ;;
  *)
    echo "usage: bash scripts/i18n.sh [update|init CODE|stats]" >&2
    exit 2
    ;;
esac

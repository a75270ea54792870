#!/usr/bin/env bash
# Make (or refresh) .venv with the project installed in editable mode and its dev tools.
# Sourced by tools/try and tools/test; installs only when pyproject.toml changed, and
# says what it is doing before each slow step. A .venv made with a Python older than
# 3.11 (or one whose Python is gone) is made again, and it says so.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'tools/venv.sh: %s\n' "$*"; }
# The Python version of $1 as "3.11", or nothing when $1 does not run.
py_version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true; }
# Whether version $1 ("3.11") is 3.11 or later.
new_enough() { [ -n "$1" ] && [ "${1%%.*}" -eq 3 ] && [ "${1#*.}" -ge 11 ]; }

candidates=${PYTHON:-python3.11 python3.12 python3.13 python3}
PY=''
for candidate in $candidates; do
  if new_enough "$(py_version "$candidate")"; then
    PY=$candidate
    break
  fi
done
if [ -z "$PY" ]; then
  say "abcd needs Python 3.11 or later, and none of: $candidates is;" \
    "install one, or name it: PYTHON=/path/to/python3.11 $0" >&2
  return 1 2>/dev/null || exit 1
fi

if [ -e .venv ]; then
  have=$(py_version .venv/bin/python)
  if ! new_enough "$have"; then
    say ".venv was made with Python ${have:-that no longer runs}; abcd needs 3.11 or later:" \
      "removing it and making it again with $PY ($(py_version "$PY"))"
    rm -rf .venv
  fi
fi

stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if [ ! -f "$stamp" ]; then
  if [ ! -x .venv/bin/python ]; then
    say "making .venv with $PY ($(py_version "$PY"))"
    "$PY" -m venv .venv
  fi
  # pip before 25.0 writes console scripts that import `re` before abcd's first line (~4 ms
  # on every prompt the hook answers through .venv/bin/abcd; pypa/pip#13166).
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade 'pip>=25'
  say "installing abcd and its dev tools into .venv (pip install -e '.[dev]'; about 20 s the first time)"
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
  rm -f .venv/.installed-*
  touch "$stamp"
  say "done"
fi

#!/usr/bin/env bash
# Makes the virtual environment `make interop` runs Home Assistant's Hue and LIFX integrations in: VENV (by
# default .build/ha-venv) with every package of tests/interop/homeassistant/requirements.txt, at its pinned
# version, on Python 3.13 or newer (what Home Assistant 2025.4 needs; Debian 12's is 3.11). The Python is
# $HA_PYTHON if given, else the first of python3.14, python3.13 and python3 on PATH that is new enough, else
# the newest such under pyenv ($PYENV_ROOT, by default ~/.pyenv). Where there is none it fails, so that
# `make interop` does not pass without Home Assistant; with HA_INTEROP=skip it says SKIPPED and succeeds instead.
#
# The environment is kept: it is made again only when the requirements or the Python change (a copy of the
# requirements and the Python's path are kept in it once the install has succeeded).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$here/.build/ha-venv}
requirements=$here/tests/interop/homeassistant/requirements.txt

new_enough() {
  "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 13) else 1)' >/dev/null 2>&1
}

find_python() {
  local candidate
  for candidate in python3.14 python3.13 python3; do
    if command -v "$candidate" >/dev/null && new_enough "$candidate"; then command -v "$candidate"; return 0; fi
  done
  # pyenv's versions, newest first.
  for candidate in $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.*/bin/python3 2>/dev/null | sort -V -r); do
    if new_enough "$candidate"; then echo "$candidate"; return 0; fi
  done
  return 1
}

if [ -n "${HA_PYTHON:-}" ]; then
  new_enough "$HA_PYTHON" || { echo "HA_PYTHON=$HA_PYTHON is not Python 3.13 or newer" >&2; exit 1; }
  python=$(command -v "$HA_PYTHON")
elif ! python=$(find_python); then
  if [ "${HA_INTEROP:-}" = skip ]; then
    echo "SKIPPED: Home Assistant needs Python 3.13 or newer; none found"
    exit 0
  fi
  echo "Home Assistant needs Python 3.13 or newer; none found (HA_PYTHON names one; HA_INTEROP=skip skips it)" >&2
  exit 1
fi

stamp=$venv/lumen-requirements.txt
if [ -f "$stamp" ] && cmp -s "$stamp" "$requirements" && [ "$(cat "$venv/lumen-python" 2>/dev/null)" = "$python" ]; then
  exit 0
fi

echo "Installing Home Assistant's pinned packages into $venv with $python ($("$python" --version 2>&1))"
start=$(date +%s)
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
echo "$python" > "$venv/lumen-python"
cp "$requirements" "$stamp"
echo "Installed in $(( $(date +%s) - start )) s"

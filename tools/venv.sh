#!/bin/sh
# Create (if needed) the project's virtual environment and install VRAM Lab into it, pinned by constraints.txt.
# Usage: sh tools/venv.sh VENV_DIR. Called by the Makefile only when pyproject.toml or constraints.txt changed.
set -eu
venv="${1:-.venv}"
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1; then
    echo "error: $python not found. Install Python 3.11 or newer (Debian/Ubuntu: sudo apt-get install python3)." >&2
    exit 1
fi
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "error: VRAM Lab needs Python 3.11 or newer; $python is $("$python" -V 2>&1)." >&2
    exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
    if ! "$python" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        ver=$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
        echo "error: $python cannot create virtual environments (no ensurepip)." >&2
        echo "       On Debian/Ubuntu run: sudo apt-get install python3-venv  (or python${ver}-venv)" >&2
        exit 1
    fi
    echo "Creating $venv ..."
    "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade "pip>=24"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[test]"
touch "$venv/.installed"

#!/usr/bin/env bash
# Installs the pinned test environment into .venv (CPU builds) and runs the
# test suite once per Keras backend. Usage: bash scripts/test.sh [backend ...]
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${VENV:-.venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -r requirements-ci.txt -e .

backends=${*:-tensorflow jax torch}
failed=""
for backend in $backends; do
  echo "=== tests on KERAS_BACKEND=$backend ==="
  KERAS_BACKEND=$backend TF_CPP_MIN_LOG_LEVEL=3 \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider || failed="$failed $backend"
done
if [ -n "$failed" ]; then
  echo "FAILED on:$failed"
  exit 1
fi
echo "all tests passed on: $backends"

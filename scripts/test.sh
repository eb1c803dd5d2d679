#!/usr/bin/env bash
# Installs the pinned test environment into .venv (CPU builds), checks lint
# and format (ruff, configured in pyproject.toml) and runs the
# test suite once per Keras backend. Usage: bash scripts/test.sh [backend ...]
#
# The backends run side by side (separate processes, logs printed when all
# have finished); TEST_JOBS=1 runs them one after another, streaming output.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${VENV:-.venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -r requirements-ci.txt -e .
echo "=== ruff check, ruff format --check ==="
"$venv/bin/ruff" check . && "$venv/bin/ruff" format --check .

backends=${*:-tensorflow jax torch}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_backend() {  # $1: backend; pytest's temporary files stay apart per backend
  KERAS_BACKEND=$1 TF_CPP_MIN_LOG_LEVEL=3 \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --durations=15 --basetemp "$work/tmp-$1"
}

failed=""
if [ "${TEST_JOBS:-0}" = "1" ]; then
  for backend in $backends; do
    echo "=== tests on KERAS_BACKEND=$backend ==="
    run_backend "$backend" || failed="$failed $backend"
  done
else
  declare -A pids
  for backend in $backends; do
    run_backend "$backend" >"$work/$backend.log" 2>&1 &
    pids[$backend]=$!
  done
  echo "running the tests on: $backends (side by side; TEST_JOBS=1 for one at a time)"
  for backend in $backends; do
    status=0
    wait "${pids[$backend]}" || status=$?
    echo "=== tests on KERAS_BACKEND=$backend (exit $status) ==="
    cat "$work/$backend.log"
    [ "$status" = 0 ] || failed="$failed $backend"
  done
fi
if [ -n "$failed" ]; then
  echo "FAILED on:$failed"
  exit 1
fi
echo "all tests passed on: $backends"

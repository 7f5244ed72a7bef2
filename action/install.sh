#!/usr/bin/env bash
# Installs pytest-plugin-eval from the action's own checkout (ACTION_PATH) into a virtual environment of the job
# (VENV; no wheel in the user's repository) and puts its commands on PATH for the steps that follow.
set -euo pipefail
venv="${VENV:-${RUNNER_TEMP:-/tmp}/plugin-eval-venv}"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${ACTION_PATH:?the folder of the action}"
echo "$venv/bin" >>"${GITHUB_PATH:-/dev/null}"
"$venv/bin/plugin-eval" --version

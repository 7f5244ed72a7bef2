#!/usr/bin/env bash
# Installs pytest-plugin-eval from the action's own checkout into a virtual environment of the job (no wheel in
# the user's repository), puts its commands on PATH, and installs the OS sandbox Claude Code needs for Bash
# (bubblewrap, socat) when SANDBOX is true — or, with auto, when "Bash" appears in ARGS or the plugin's evals.
# Reads: ACTION_PATH, PLUGIN, ARGS, SANDBOX, VENV.
set -euo pipefail
venv="${VENV:-${RUNNER_TEMP:-/tmp}/plugin-eval-venv}"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${ACTION_PATH:?the folder of the action}"
echo "$venv/bin" >>"${GITHUB_PATH:-/dev/null}"
"$venv/bin/plugin-eval" --version

sandbox="${SANDBOX:-auto}"
if [ "$sandbox" = auto ]; then
  sandbox=false
  if [[ " ${ARGS:-} " == *Bash* ]] || grep -rqsw Bash "${PLUGIN:-.}/evals" 2>/dev/null; then sandbox=true; fi
fi
if [ "$sandbox" = true ] && [ "$(uname -s)" = Linux ] && ! { command -v bwrap && command -v socat; } >/dev/null; then
  echo "plugin-eval: installing bubblewrap and socat (Claude Code's sandbox for Bash)"
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -qq >/dev/null
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap socat >/dev/null
fi

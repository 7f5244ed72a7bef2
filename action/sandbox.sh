#!/usr/bin/env bash
# Installs the OS sandbox Claude Code needs before it runs a shell command for the agent (bubblewrap and socat,
# on Linux, when missing): with SANDBOX=true, or with auto when "Bash" appears in ARGS or the plugin's evals/ (a
# case or a trigger set that may grant it). Reads: SANDBOX, ARGS, PLUGIN.
set -euo pipefail
sandbox="${SANDBOX:-auto}"
if [ "$sandbox" = auto ]; then
  sandbox=false
  if [[ " ${ARGS:-} " == *Bash* ]] || grep -rqsw Bash "${PLUGIN:-.}/evals" 2>/dev/null; then sandbox=true; fi
fi
if [ "$sandbox" != true ]; then
  echo "plugin-eval: no case grants Bash: the sandbox packages are not needed"
elif [ "$(uname -s)" != Linux ] || { command -v bwrap && command -v socat; } >/dev/null; then
  echo "plugin-eval: the sandbox is there (or not Linux's)"
else
  echo "plugin-eval: installing bubblewrap and socat (Claude Code's sandbox for Bash)"
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -qq >/dev/null
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap socat >/dev/null
fi

"""The Claude Code hooks of an authoring session: `python -m pytest_plugin_eval.cli.hooks KIND CONFIG`.

Claude Code passes the event as JSON on stdin. Exit 0 lets the session go on; exit 2 blocks (the tool call, or
the end of the turn) and Claude Code shows our stderr to the model. Any other status is a non-blocking error
Claude Code only shows the author, so a guard that fails itself exits 2 (it fails closed) while the checks
after a write and at the end of a turn exit 1 (an error of ours must not hold the session hostage).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..authoring.settings import AuthoringConfig, guard, post, stop

HOOKS = {"guard": guard, "post": post, "stop": stop}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in HOOKS:
        print(f"usage: python -m pytest_plugin_eval.cli.hooks {{{'|'.join(HOOKS)}}} CONFIG", file=sys.stderr)
        return 1
    kind, config = argv
    try:
        cfg = AuthoringConfig.load(Path(config))
        event = json.loads(sys.stdin.read() or "{}")
        answer = HOOKS[kind](event if isinstance(event, dict) else {}, cfg)
    except Exception as e:  # a bug of ours, or a config that went missing
        print(f"plugin-eval {kind} hook failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 2 if kind == "guard" else 1
    if answer.message:
        print(answer.message, file=sys.stderr)
    return answer.code


if __name__ == "__main__":
    sys.exit(main())

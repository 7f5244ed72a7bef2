"""What a run without the plugin depends on: its conditions, recorded with it so a later session can reuse it.

A without-plugin run sees the case's prompt and settings, the files its context stages, the mocks served without
the plugin, the agent's model, the Claude Code binary and the way the harness isolates a run — and nothing of the
plugin. When none of these changed, a stored run can stand for a new one (--reuse-baseline, analysis/baseline.py).
Files are recorded by a digest of their content, names and numbers as they are, so that the notice of a refusal
can say what changed ("prompt changed", "Claude Code 2.1.327 → 2.1.330").

A run that loads the plugin (the with arm, or --against's other version) depends on the same, with the mocks served
with the plugin, its arm of scripted.yaml, and the plugin's content: its conditions add `plugin`, a digest of the
files the agent is given (version control, caches and the eval dir left out, as a version's copy leaves them out).
So a stored with-plugin run made on exactly the version --against names can stand for that arm's run.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..load.plugin_facts import hash_files, plugin_files
from ..load.suite import plugin_at
from .stand_ins import plan_mocks

# The version of what the harness shows the agent of a run: the workspace and its layout, the flags, settings,
# environment, permissions and sandbox it gives `claude -p`, how mocks are served. Bump it with any change to
# those that a run could notice (CONTRIBUTING.md says so): runs recorded before it are not reused after it.
ISOLATION_VERSION = 1

MODEL_DEFAULT = "(Claude Code's default)"


def digest(value: Any) -> str:
    """A short digest of a JSON-able value (16 hex digits: enough to tell two versions of a case apart)."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def file_digest(path: Path) -> str:
    """The content of a file, or of a folder's files by their relative paths (a missing one is named so)."""
    try:
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file())
            return digest([[str(p.relative_to(path)), file_digest(p)] for p in files])
        return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    except OSError as e:
        return f"unreadable: {e.strerror or e}"


# Not what the agent is given: left out of a plugin's digest (a git revision's copy has none of them either).


def without_conditions(plan: Any, claude_version: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The conditions of a without-plugin run of `plan` (run.execute.RunPlan), as the results document keeps
    them (RunResult.conditions). `claude_version`: `claude --version` of the binary the run uses."""
    return _conditions(plan, "without", plan.case.plugin_dirs, claude_version, environ)


def plugin_conditions(
    plan: Any,
    claude_version: str,
    environ: Mapping[str, str] | None = None,
    digest_of: Callable[[Path, Path], str] | None = None,
) -> dict[str, Any]:
    """The conditions of a run of `plan` that loads a version of the plugin (the with arm, --against's): the
    without-plugin run's, with what it serves and answers with the plugin, and the plugins' content
    (`digest_of`: plugin_digest, or a session's memo of it — every case loads the same plugin)."""
    arms = plan.case.script.arms if plan.case.script is not None else {}
    # the arm of scripted.yaml that answers: the run's own (`against:`), else the with arm's (engine/endpoints.py)
    arm = plan.arm if plan.arm in arms else "with"
    folders = plan.plugin_dirs
    eval_root = plan.case.eval_root
    return {
        **_conditions(plan, arm, folders, claude_version, environ),
        "plugin": digest([(digest_of or plugin_digest)(folder, eval_root) for folder in folders]),
    }


def plugin_digest(folder: Path, eval_root: Path) -> str:
    """The content of a plugin's folder as the agent is given it: the files the results' `contentHash` counts
    (load/plugin_facts.plugin_files: not the eval dir, version control, dependency folders or a results folder
    kept inside the plugin) and, in a git work tree, only those git tracks or would track — what a checkout of a
    revision holds, with the edits not yet committed; a file git ignores (build output, a log) is not the plugin."""
    files = plugin_files(folder, (eval_root,))
    listed = _git_listed(folder)
    return hash_files(files if listed is None else [(rel, path) for rel, path in files if rel in listed])


def _git_listed(folder: Path) -> set[str] | None:
    """The files below `folder` that git tracks or does not ignore (relative to it), or None outside a work tree."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return {os.fsdecode(name) for name in done.stdout.split(b"\0") if name}


def _conditions(
    plan: Any, arm: str, plugin_dirs: tuple[Path, ...], claude_version: str, environ: Mapping[str, str] | None
) -> dict[str, Any]:
    case, settings = plan.case, plan.settings
    env: Mapping[str, str] = os.environ if environ is None else environ
    context = case.context
    script = case.script.arms.get(arm) if plan.base_url is not None and case.script is not None else None
    plugins = {plugin_at(folder).name: folder for folder in plugin_dirs}
    served = plan_mocks(case.mocks, plugins, arm, allow_real_servers=settings.allow_real_servers).stand_ins
    return {
        "prompt": digest(case.prompt),
        "systemPrompt": digest(case.append_system_prompt),
        "context": digest(
            {
                "files": [[rel, file_digest(source)] for source, rel in context.files],
                "history": file_digest(context.history_file) if context.history_file else None,
                "addDirs": [[str(d), file_digest(d)] for d in context.add_dirs],
                # the scaffold script shapes the workspace only when scaffolds run
                "scaffold": file_digest(context.scaffold_script)
                if context.scaffold_script is not None and settings.scaffold
                else None,
            }
        ),
        "tools": digest([case.allowed_tools, case.disallowed_tools, settings.allow_tools, settings.disallow_tools]),
        "limits": digest([case.max_turns, case.timeout_seconds]),
        "env": digest(sorted(case.env)),
        "mocks": digest(
            {
                "mode": settings.mocks,
                "realServers": settings.allow_real_servers,
                "served": [_stand_in(s) for s in served] if settings.mocks == "record" else [],
            }
        ),
        "model": plan.model or env.get("ANTHROPIC_MODEL") or MODEL_DEFAULT,
        # with --scripted the script's arm is the model; None: a real model answers
        "script": digest(repr(script)) if script is not None else None,
        "claudeCode": claude_version,
        "isolation": ISOLATION_VERSION,
        # what the user says after the prompt (turns, answers, a simulated user's persona): only for a case that
        # talks back, so that a one-prompt case's stored runs keep their conditions
        **({"conversation": digest(case.conversation.conditions())} if case.conversation.active else {}),
    }


def _stand_in(stand_in: Any) -> Any:
    """What a served mock answers: its tools as listed and each responder's configuration and file."""
    mocks = stand_in.mocks
    if mocks is None:
        return [stand_in.registered, None]
    responders = {name: [r.to_config(), file_digest(r.source)] for name, r in sorted(mocks.responders.items())}
    replay = file_digest(mocks.replay_dir) if mocks.replay_dir is not None else None
    return [stand_in.registered, mocks.tool_listing(), responders, replay]

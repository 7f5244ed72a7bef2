"""`plugin-eval init [TARGET]` (the interview, at a terminal) and `plugin-eval init --draft [TARGET]` (a first
draft, without one): a session of the real Claude Code writes the suite, under our settings (authoring.py).

Both ask for trust first — the interview's pilot runs the plugin's code, and Claude Code reads the folder's own
settings — remembered per folder as a session remembers it; `--trust-plugin` skips the question. After the
session the suite is checked once more (check.py) and the result decides the exit status.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from ..core.paths import display_path
from ..engine.option_values import OptionError, parse_models
from ..engine.trust import remember, trusted_folders
from ..load.suite import eval_dir_name, is_plugin_dir
from ..run.agent import ChildExit, ClaudeNotFound, classify, find_claude
from ..run.transcript import Transcript
from ..suite_check.suite import CheckResult, check_suite, finding_lines, plugin_eval_argv, requested_grants, summary
from .gitignore import GITIGNORE, ignore
from .settings import AuthoringConfig, first_turn, new_config, settings, system_prompt
from .traffic import TrafficError, read_traffic

NO_TERMINAL = """Error: plugin-eval init interviews you in an interactive Claude Code session, and this is not a terminal.
Without one, use:
  plugin-eval init --bare NAME                      one blank case that loads and runs as written
  plugin-eval init --draft [TARGET] [--from FILE…]  a first draft of the whole suite, for you to review"""


def has_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def confirm_trust(root: Path, flag: bool, can_ask: bool) -> str | None:
    """None when the folder may be used; otherwise why not. Remembered per folder, as a session does."""
    if flag or str(root.resolve()) in trusted_folders():
        return None
    if not can_ask:
        return (
            f"Error: {root} is not a trusted plugin directory, and this session cannot stop to ask (no terminal). "
            f"Writing its evals runs Claude Code in it, which reads its settings. Pass --trust-plugin."
        )
    sys.stderr.write(
        f"\nWriting evals for {root} runs Claude Code in it and pilots the plugin's skills, hooks and servers on\n"
        f"this machine, as you. Only do this for plugins you trust. The answer is remembered for this folder.\n"
        f"Trust this plugin directory? [y/N] "
    )
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        return f"Not trusted - nothing was started in {root}."
    remember([root])
    return None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--draft", action="store_true", help="draft a suite without asking anything (no terminal)")
    parser.add_argument(
        "--from",
        dest="sources",
        nargs="+",
        action="extend",
        default=[],
        metavar="FILE",
        help="real traffic: a list of prompts (one a line) or Claude Code transcripts (.jsonl)",
    )
    parser.add_argument("--trust-plugin", action="store_true", help="do not ask whether the plugin is trusted")
    parser.add_argument(
        "--model", default=None, metavar="MODEL", help="the agent's model in the pilot and the cost estimate"
    )
    parser.add_argument(
        "--judge-model", default=None, metavar="MODEL", help="the judge model in the pilot and the cost estimate"
    )
    parser.add_argument(
        "--claude", default=None, metavar="PATH", help="the Claude Code binary (default: the bundled one)"
    )
    parser.add_argument(
        "--scripted", action="store_true", help="rehearse: the pilot answers from the cases' scripted.yaml (free)"
    )
    parser.add_argument(
        "--max-cost-usd",
        type=float,
        default=None,
        metavar="USD",
        help="with --draft: a ceiling for the drafting session itself",
    )


def author(args: argparse.Namespace, target: str | None) -> int:
    """Interview (at a terminal) or draft (--draft) the suite of the plugin folder `target`."""
    if not args.draft and not has_terminal():
        print(NO_TERMINAL, file=sys.stderr)
        return 1
    root = Path(target or ".").absolute()
    if not root.is_dir():
        print(f"Error: {target}: not a folder — init writes the evals of a plugin folder", file=sys.stderr)
        return 1
    try:
        parse_models(args.model, None)  # refused as a session refuses it, before the interview starts
        traffic = read_traffic(Path(s) for s in args.sources)
        claude = find_claude(args.claude)
    except OptionError as e:
        print(e, file=sys.stderr)
        return 1
    except (TrafficError, ClaudeNotFound) as e:
        print(f"Error: {e}" if isinstance(e, TrafficError) else e, file=sys.stderr)
        return 1
    if args.sources and not traffic:
        print(f"Error: no prompt found in {', '.join(args.sources)}", file=sys.stderr)
        return 1
    refusal = confirm_trust(root, args.trust_plugin, can_ask=has_terminal())
    if refusal:
        print(refusal, file=sys.stderr)
        return 1
    eval_dir = eval_dir_name(root if is_plugin_dir(root) else None, args.eval_dir)
    (root / eval_dir).mkdir(parents=True, exist_ok=True)
    gitignore(root, eval_dir)
    cfg = new_config(
        root,
        eval_dir,
        "draft" if args.draft else "interview",
        eval_dir_option=bool(args.eval_dir),
        scripted=args.scripted,
        model=args.model,
        judge_model=args.judge_model,
    )
    with tempfile.TemporaryDirectory(prefix="plugin-eval-init-") as tmp:
        config_path, settings_path = Path(tmp) / "session.json", Path(tmp) / "settings.json"
        cfg.save(config_path)
        settings_path.write_text(json.dumps(settings(cfg, config_path), indent=1), encoding="utf-8")
        common = ["--settings", str(settings_path), "--permission-mode", "default"]
        common += ["--append-system-prompt", system_prompt(cfg)]
        opening = first_turn(cfg, traffic, args.sources)
        if args.draft:
            status = draft(
                cfg, [str(claude), "-p", "--output-format", "stream-json", "--verbose", *common], opening, args
            )
        else:
            status = interview(cfg, [str(claude), *common], opening)
    if status is not None:
        return status
    return report(cfg)


def gitignore(root: Path, eval_dir: str) -> None:
    entry = f"{eval_dir}/results/"
    try:
        if ignore(root / GITIGNORE, entry):
            print(f"Added {entry} to {GITIGNORE}", file=sys.stderr)
    except (OSError, UnicodeDecodeError) as e:
        print(f"Could not add {entry} to {GITIGNORE} ({e}): add it yourself", file=sys.stderr)


def interview(cfg: AuthoringConfig, argv: list[str], opening: str) -> int | None:
    session_id = str(uuid.uuid4())
    print(
        f"Starting Claude Code in {cfg.root} to write {cfg.eval_dir}/ with you. The plugin stays read-only; "
        f"every file written is checked. Leave with /exit.",
        file=sys.stderr,
    )
    try:
        child = subprocess.Popen([*argv, "--session-id", session_id, opening], cwd=cfg.root)
    except OSError as e:
        print(f"Error: Claude Code could not start ({argv[0]}): {e}", file=sys.stderr)
        return 1
    # Ctrl-C belongs to Claude Code (it interrupts the model); this process waits for it to end.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        child.wait()
    finally:
        signal.signal(signal.SIGINT, previous)
    config = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    transcript = next(iter((config / "projects").glob(f"*/{session_id}.jsonl")), None)
    if transcript is not None:
        print(f"Transcript: {transcript}")
    return None


def draft(cfg: AuthoringConfig, argv: list[str], opening: str, args: argparse.Namespace) -> int | None:
    stamp = time.strftime("%Y-%m-%dT%H-%M-%S")
    out = cfg.eval_root / "results" / "init" / f"draft-{stamp}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    if args.max_cost_usd is not None:
        argv += ["--max-budget-usd", f"{args.max_cost_usd:g}"]
    print(
        f"Drafting {cfg.eval_dir}/ with Claude Code (transcript: {os.path.relpath(out, cfg.root)}) …", file=sys.stderr
    )
    with open(out, "wb") as trace, open(out.with_suffix(".stderr"), "wb") as err:
        try:
            child = subprocess.Popen(
                argv, cwd=cfg.root, stdin=subprocess.PIPE, stdout=trace, stderr=err, start_new_session=True
            )
        except OSError as e:
            print(f"Error: Claude Code could not start ({argv[0]}): {e}", file=sys.stderr)
            return 1
        try:
            assert child.stdin is not None
            with contextlib.suppress(BrokenPipeError):
                child.stdin.write(opening.encode("utf-8"))
                child.stdin.close()
            child.wait()
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGTERM)
            child.wait()
            raise
    if child.returncode != 0:
        stderr = out.with_suffix(".stderr").read_text(encoding="utf-8", errors="replace").strip()[-2000:]
        print(failure_text(child.returncode, stderr, out), file=sys.stderr)
    new = [c for c in check_suite(cfg.root_path, cfg.eval_dir).cases if cfg.in_session(c.dir)]
    if new:
        names = ", ".join(os.path.relpath(c.dir, cfg.root) for c in new)
        print(f"Drafted {len(new)} case(s): {names}")
    else:
        print("The draft holds no new case that loads.")
    if cfg.notes and (cfg.root_path / cfg.notes).is_file():
        print(f"Notes for your review: {cfg.notes}")
    status = report(cfg)
    return status if new and child.returncode == 0 else 1


def failure_text(returncode: int, stderr: str, trace: Path) -> str:
    """Why the drafting session ended: Claude Code's own error (the trace's result line, as a run's is read), and
    what to do about it."""
    error = classify(ChildExit(returncode, False, 0.0, stderr), Transcript.from_file(trace), 0.0)
    said = error.message.split(": ", 1)[-1] if error is not None else ""
    text = f"Error: the drafting session failed (exit {returncode})"
    text += (
        f": Claude Code said: {said}" if said and not said.startswith("no output") else f": {stderr}" if stderr else ""
    )
    if error is not None and error.kind == "auth":
        return (
            f"{text}\nDrafting and the interview ask a real model through Claude Code: sign it in (`claude` then "
            "/login; in CI `claude setup-token` as CLAUDE_CODE_OAUTH_TOKEN; or an API key, or a cloud provider's "
            "variables), then run this again. --scripted cannot stand in for "
            "them (only the pilot runs offline); `plugin-eval init --bare NAME` writes a case without a model."
        )
    return f"{text}\nThe whole session is in {display_path(trace)}."


def report(cfg: AuthoringConfig) -> int:
    """The suite as it stands after the session: problems, cost, and what to run next. A draft answers for the
    cases it wrote and the suite's floor; problems of cases it found (and may not touch) are shown apart."""
    result: CheckResult = check_suite(cfg.root_path, cfg.eval_dir, model=cfg.model, judge_model=cfg.judge_model)
    ours = result.problems
    if cfg.mode == "draft":
        session = cfg.check(session_only=True)
        ours = session.problems
        others = [p for p in result.problems if p not in ours]
        if others:
            print(f"Problems of the cases that were there before the draft ({len(others)}; not the draft's to fix):")
            for problem in others:
                print(f"  ✗ {problem.render(cfg.root_path)}")
    for problem in ours:
        print(f"✗ {problem.render(cfg.root_path)}")
    for line in finding_lines(result.findings):
        print(line)
    for line in summary(result):
        print(line)
    cfg = dataclasses.replace(cfg, pe=plugin_eval_argv())  # for people: `plugin-eval` when it is on PATH
    if not ours and result.estimate and result.cases:
        grants = requested_grants(result.cases)
        print("Next:")
        print(f"  {shlex.join(cfg.plumbing_argv(grants))}    # free: the plumbing, offline")
        print(f"  {shlex.join(cfg.pilot_argv(result.estimate.pilot_bound, grants))}    # the pilot")
    elif ours:
        print(f"Fix these, then check again: {shlex.join(cfg.check_argv())}")
    return 0 if not ours else 1

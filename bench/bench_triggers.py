"""What a trigger sample costs next to a two-arm case of the same prompt, in one run. Prints ratios; asserts nothing.

"Does my skill fire for this phrasing?" can be asked two ways: a case folder whose `skill-fired` grader says so
(every run in both arms, to the end, graded and judged), or a trigger query (with the plugin only, each run held and
stopped at its first skill call). Both are run here through `pytest --scripted` on the same generated plugin, with
the same prompt and the same number of runs, at zero latency; the case's with-arm works as a skill would (the Skill
call, a Read, the answer), its without-arm answers after a Read, and it has an llm grader as a real case would.

Per sample (a trigger run, against a pair of case runs: one per arm), from the kept traces and the documents:
model calls (distinct assistant messages, judge calls included), cost, and wall time per sample (the session's
wall ÷ samples, and the runs' own durationSeconds), and how long a trigger run lasts from its prompt to its stop.

    .venv/bin/python bench/bench_triggers.py             # 10 runs each (about a minute)
    .venv/bin/python bench/bench_triggers.py --runs 20 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

PROMPT = "I renamed getUser to fetchUser in users.py. Write the commit message for it."
SKILL = """---
name: commit-message
description: Drafts a conventional-commit message for a change the user describes. Use when the user asks for one.
---
Write one line: type(scope): subject.
"""


def plugin(root: Path, runs: int) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "commit-craft"}))
    (root / "skills" / "commit-message").mkdir(parents=True)
    (root / "skills" / "commit-message" / "SKILL.md").write_text(SKILL)
    (root / "users.py").write_text("def fetchUser():\n    pass\n")
    case = root / "evals" / "drafts-commit-message"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text(f"---\nruns: {runs}\n---\n{PROMPT}\n")
    (case / "graders" / "skill-fired.md").write_text("---\ntype: tool_used\ntool: Skill\n---\n")
    (case / "graders" / "subject.md").write_text("---\ntype: regex\npattern: '^refactor\\('\n---\n")
    (case / "graders" / "reads-well.md").write_text("---\ntype: llm\n---\nThe message is one clear line.\n")
    read = {"tool": "Read", "input": {"file_path": "{cwd}/users.py"}}
    script = {
        "with": [{"tool": "Skill", "input": {"skill": "commit-craft:commit-message"}}, read, "refactor(users): rename"],
        "without": [read, "Here is a message: renamed getUser."],
        "judge": {"reads-well": ["PASS"]},
    }
    (case / "scripted.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    triggers = {"runs": runs, "skills": {"commit-message": {"should_fire": [{"query": PROMPT, "id": "rename"}]}}}
    (root / "evals" / "triggers.yaml").write_text(yaml.safe_dump(triggers, sort_keys=False))
    return root


def session(root: Path, marker: str, out: str) -> tuple[float, dict]:
    argv = [sys.executable, "-m", "pytest", "evals", "-p", "no:cacheprovider", "-q", "--trust-plugin", "--scripted"]
    argv += ["-m", marker, "--json", out]
    started = time.monotonic()
    subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=1800)
    return time.monotonic() - started, json.loads((root / out).read_text())


def model_calls(trace_path: str | None) -> int:
    """Distinct assistant messages in a kept trace: one per model call the agent made."""
    if not trace_path or not Path(trace_path).exists():
        return 0
    ids = set()
    for line in Path(trace_path).read_text().splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("type") == "assistant":
            ids.add((event.get("message") or {}).get("id"))
    return len(ids)


def case_figures(doc: dict) -> dict:
    [case] = doc["cases"]
    runs = [run for arm in case["arms"].values() for run in arm]
    judge_calls = sum(len(g.get("judgeVotes") or []) for run in runs for g in run.get("graders", []))
    pairs = len(runs) / 2
    return {
        "samples": pairs,
        "calls": (sum(model_calls(r.get("tracePath")) for r in runs) + judge_calls) / pairs,
        "cost": sum(r.get("costUsd", 0.0) for r in runs) / pairs,
        "duration": sum(r.get("durationSeconds", 0.0) for r in runs) / pairs,
    }


def trigger_figures(doc: dict) -> dict:
    runs = [run for s in doc["triggers"] for q in s["queries"] for run in q["runs"]]
    return {
        "samples": len(runs),
        "calls": sum(model_calls(r.get("tracePath")) for r in runs) / len(runs),
        "cost": sum(r.get("costUsd", 0.0) for r in runs) / len(runs),
        "duration": sum(r.get("durationSeconds", 0.0) for r in runs) / len(runs),
        "fired": sum(1 for r in runs if r.get("fired")) / len(runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="runs of the case per arm, and of the query")
    parser.add_argument("--repeat", type=int, default=1, help="sessions of each kind, alternating (median)")
    args = parser.parse_args()
    walls: dict[str, list[float]] = {"case": [], "trigger": []}
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = plugin(Path(tmp) / "plugin", args.runs)
        for _ in range(args.repeat):
            wall, doc = session(root, "not plugin_eval_trigger", "case.json")
            walls["case"].append(wall / case_figures(doc)["samples"])
            figures["case"] = case_figures(doc)
            wall, doc = session(root, "plugin_eval_trigger", "trigger.json")
            walls["trigger"].append(wall / trigger_figures(doc)["samples"])
            figures["trigger"] = trigger_figures(doc)
    case, trigger = figures["case"], figures["trigger"]
    wall_case, wall_trigger = statistics.median(walls["case"]), statistics.median(walls["trigger"])
    print(
        f"{args.runs} runs per arm (case) and per query (trigger), --scripted at zero latency, {args.repeat} session(s) each"
    )
    print(f"{'per sample':<34}{'two-arm case':>14}{'trigger':>10}{'ratio':>8}")
    rows = [
        ("model calls (agent + judge)", case["calls"], trigger["calls"], "{:.2f}"),
        ("cost, list prices ($)", case["cost"], trigger["cost"], "{:.5f}"),
        ("session wall ÷ samples (s)", wall_case, wall_trigger, "{:.2f}"),
        ("runs' own durationSeconds (s)", case["duration"], trigger["duration"], "{:.2f}"),
    ]
    for label, a, b, fmt in rows:
        ratio = b / a if a else float("nan")
        print(f"{label:<34}{fmt.format(a):>14}{fmt.format(b):>10}{ratio:>8.2f}")
    print(f"trigger runs that fired: {trigger['fired']:.0%} (the scripted model calls the skill in every run)")
    print("goals: ≤ 0.25× the model calls, ≤ 0.3× the wall time per sample")


if __name__ == "__main__":
    main()

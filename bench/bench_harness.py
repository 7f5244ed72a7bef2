"""Benchmarks, measured in one run, printed as ratios (no timed assertions anywhere in the tests).

1. Harness overhead per run: the same scripted conversation as a bare `claude -p` child, and as one run of
   `pytest evals/` (workspace, isolation, grading, artefacts). Ratio = harness time / bare time per run.
2. Parallel speed-up: a suite of 8 runs whose model answers take a set latency, at -n 1, 2 and 4.
   Ratio = measured wall time / ideal (serial time ÷ workers).

    .venv/bin/python bench/bench_harness.py [--runs 8] [--latency 1.0]

Both use the project's scripted endpoint, so they measure the harness, not a model.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.load.script import parse_script
from pytest_plugin_eval.run.agent import bundled_claude


def make_suite(root: Path, runs: int, latency: float) -> None:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "bench", "version": "0.0.1"}))
    (root / "skills" / "s").mkdir(parents=True)
    (root / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: says hi\n---\nSay hi.\n")
    case = root / "evals" / "bench"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text(f"---\nruns: {runs}\n---\nSay hi.\n")
    (case / "graders" / "hi.md").write_text("---\ntype: regex\npattern: hi\n---\n")
    (case / "scripted.yaml").write_text(yaml.safe_dump(script(latency)))


def script(latency: float) -> dict:
    # Two model turns per run: a tool call, then the answer.
    return {"all": [{"tool": "Glob", "input": {"pattern": "*"}, "delay": latency}, {"text": "hi", "delay": latency}]}


def bare_runs(n: int, latency: float) -> list[float]:
    """`claude -p` alone: a fresh HOME and cwd, the prompt on stdin, the scripted endpoint."""
    claude = str(bundled_claude())
    times = []
    with ScriptedEndpoint() as endpoint:
        for run in range(1, n + 1):
            with tempfile.TemporaryDirectory() as tmp:
                home, cwd = Path(tmp) / "home", Path(tmp) / "home" / "cwd"
                cwd.mkdir(parents=True)
                env = {
                    "PATH": os.environ["PATH"],
                    "HOME": str(home),
                    "CLAUDE_CONFIG_DIR": str(Path(tmp) / "config"),
                    "ANTHROPIC_API_KEY": "bench",
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    "ANTHROPIC_BASE_URL": endpoint.agent_url(parse_script(script(latency)), run=run, cwd=str(cwd)),
                }
                started = time.monotonic()
                subprocess.run(
                    [
                        claude,
                        "-p",
                        "--output-format",
                        "stream-json",
                        "--verbose",
                        "--max-turns",
                        "5",
                        "--permission-mode",
                        "dontAsk",
                        "--setting-sources",
                        "user",
                    ],
                    input="Say hi.",
                    cwd=cwd,
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                times.append(time.monotonic() - started)
    return times


def harness_session(root: Path, *extra: str) -> tuple[float, dict]:
    out = root / "bench.json"
    out.unlink(missing_ok=True)
    started = time.monotonic()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "evals",
            "-p",
            "no:cacheprovider",
            "-q",
            "--trust-plugin",
            "--scripted",
            "--ablation",
            "none",
            "--json",
            str(out),
            *extra,
        ],
        cwd=root,
        capture_output=True,
        check=False,
    )
    return time.monotonic() - started, json.loads(out.read_text()) if out.exists() else {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model answer")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "suite"
        make_suite(root, args.runs, args.latency)

        bare = bare_runs(args.runs, args.latency)
        _, doc = harness_session(root)
        per_run = [run["durationSeconds"] for run in doc["cases"][0]["arms"]["with"]]
        print(f"1. overhead per run ({args.runs} runs, {args.latency:g} s per model answer)")
        print(f"   bare claude -p      median {statistics.median(bare):6.2f} s")
        print(f"   harness run         median {statistics.median(per_run):6.2f} s")
        print(f"   ratio harness/bare  {statistics.median(per_run) / statistics.median(bare):6.2f}")

        # The ideal keeps the session's fixed start-up and divides the runs' time by the workers.
        fixed, _ = harness_session(root, "--collect-only")
        print(
            f"2. wall time of the suite at -n 1/2/4 against the ideal (start-up {fixed:.2f} s + runs ÷ workers; "
            f"{os.cpu_count()} CPUs)"
        )
        serial = None
        for workers in (1, 2, 4):
            extra = () if workers == 1 else ("-n", str(workers))
            wall, _ = harness_session(root, *extra)
            serial = serial or wall
            ideal = fixed + (serial - fixed) / workers
            print(f"   -n {workers}: {wall:6.2f} s   ideal {ideal:6.2f} s   ratio {wall / ideal:5.2f}")


if __name__ == "__main__":
    main()

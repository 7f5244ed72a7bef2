"""Speed of the harness, side by side with the reference tool, in one run. Prints ratios; asserts nothing.

Sections (default: all of them; pick some with the flags):

  --ab              A/B against `claude plugin eval` (the reference tool): wall time of the same generated suite
                    (default 10 cases × 3 runs × 2 arms) at -j 1 and -j 4, measured alternately (ours, reference,
                    ours, …; --repeat K, median), with a check that both produced the same per-case aggregates.
  --overhead        ours, serial, per run, against a bare `claude -p --output-format stream-json --verbose` child
                    answering the same prompt against the same model at zero latency (the floor).
  --scaling         ours at -j 1, 2, 4 with 1 s per model answer, against the ideal (serial ÷ N), and against the
                    reference tool at the same -j and latency (when it is installed).
  --profile         where one run's time goes: the package's own stages, timed in this process.
  --memory          peak RSS of the harness's process tree during a -j 4 session, and per running claude child.
  --installed-cost  what having the plugin installed costs a pytest session that evaluates nothing.

Every model answer comes from bench/policy_model.py, a local Messages API that answers by request content, so
one base URL serves both tools (the reference tool uses one for its whole session).

    .venv/bin/python bench/bench_speed.py                      # everything (about 15 minutes)
    .venv/bin/python bench/bench_speed.py --ab --repeat 1      # the A/B only
    .venv/bin/python bench/bench_speed.py --ab --jobs 1,4,8 --reference /path/to/claude

The reference binary: --reference PATH, else $CLAUDE_ANCHOR_DIR/node_modules/@anthropic-ai/claude-code-linux-x64/claude,
else the same under /tmp/anchor-cc. Without it the A/B section says so and is skipped.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from policy_model import PolicyModel

REFERENCE_REL = "node_modules/@anthropic-ai/claude-code-linux-x64/claude"
DEFAULT_ANCHOR = "/tmp/anchor-cc"
SESSION_TIMEOUT = 3600
WATCH_INTERVAL = 0.005  # seconds between looks at the trace file for the first stdout byte
SKILL_DESCRIPTION = "Summarizes a topic in one line starting with SUMMARY:. Use when asked for a summary."

SUMMARY: list[str] = []  # the lines printed again at the end


def say(line: str = "") -> None:
    print(line, flush=True)


def conclude(line: str) -> None:
    say(line)
    SUMMARY.append(line.strip())


# ---- the suite ----------------------------------------------------------------------------------------------


def make_suite(root: Path, cases: int, runs: int) -> Path:
    """Plugin `bp` with one skill, and cases case-000… that each ask for a summary of topic i."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "bp", "version": "1.0.0"}))
    (root / "skills" / "summarize").mkdir(parents=True)
    (root / "skills" / "summarize" / "SKILL.md").write_text(
        f"---\nname: summarize\ndescription: {SKILL_DESCRIPTION}\n---\n"
        "Answer with exactly one line: `SUMMARY: <the topic> in one line`.\n"
    )
    width = max(3, len(str(cases - 1)))
    for i in range(cases):
        case = root / "evals" / f"case-{i:0{width}d}"
        (case / "graders").mkdir(parents=True)
        (case / "prompt.md").write_text(f"---\nruns: {runs}\nmax_turns: 4\n---\nGive me a summary of topic {i}.\n")
        (case / "graders" / "answer.md").write_text(f"---\ntype: regex\npattern: '^SUMMARY: topic {i}'\n---\n")
        (case / "graders" / "skill-fired.md").write_text(
            "---\ntype: tool_used\ntool: Skill\ninput_match: summarize\n---\n"
        )
    return root


# ---- binaries and environments -----------------------------------------------------------------------------


def find_reference(explicit: str | None) -> Path | None:
    """--reference PATH, else the binary under $CLAUDE_ANCHOR_DIR (when set: only there), else under /tmp/anchor-cc."""
    path = Path(explicit) if explicit else Path(os.environ.get("CLAUDE_ANCHOR_DIR") or DEFAULT_ANCHOR) / REFERENCE_REL
    return path if path.is_file() and os.access(path, os.X_OK) else None


def ours_claude(explicit: str | None) -> Path | None:
    """The binary our harness starts as the child: --ours-claude, else the package's own choice."""
    if explicit:
        return Path(explicit)
    try:
        from pytest_plugin_eval.run.agent import find_claude

        return Path(find_claude(None))
    except Exception:  # the package may be mid-change; the sessions still find it themselves
        try:
            from pytest_plugin_eval.run.agent import bundled_claude

            return bundled_claude()
        except Exception:
            found = shutil.which("claude")
            return Path(found) if found else None


def version_of(binary: Path | None) -> str:
    if binary is None:
        return "?"
    try:
        out = subprocess.run(
            [str(binary), "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "DISABLE_AUTOUPDATER": "1"},
        ).stdout
        return out.split()[0] if out.split() else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def session_env(url: str, home: Path) -> dict[str, str]:
    """What both tools run with: the operator's environment without model credentials or Claude Code session
    variables, a throwaway HOME, and the policy model."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ANTHROPIC_", "CLAUDE_", "PYTEST_")) and k not in ("CLAUDECODE",)
    }
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        {
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "dummy",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
    )
    return env


# ---- running a session --------------------------------------------------------------------------------------


@dataclasses.dataclass
class Session:
    tool: str  # "ours" | "reference"
    jobs: int
    wall: float = 0.0
    returncode: int | None = None
    doc: dict | None = None
    launched: float = 0.0  # time.time() at launch
    stderr_tail: str = ""
    requests: dict = dataclasses.field(default_factory=dict)
    memory: TreeSampler | None = None

    @property
    def ok(self) -> bool:
        return self.doc is not None and self.returncode in (0, 1)

    def runs(self) -> list[dict]:
        return [
            run for case in (self.doc or {}).get("cases", []) for runs in case.get("arms", {}).values() for run in runs
        ]

    def errors(self) -> list[str]:
        return [str(run.get("error")) for run in self.runs() if run.get("error")]

    def startup(self) -> float | None:
        """Launch until the first run started (by the run's own startedAt)."""
        starts = [t for t in (_epoch(run.get("startedAt")) for run in self.runs()) if t is not None]
        return min(starts) - self.launched if starts else None

    def describe_failure(self) -> str:
        return (
            f"exit {self.returncode}, {'no' if self.doc is None else 'a'} results document; "
            f"stderr: {self.stderr_tail or '(empty)'}"
        )


def _epoch(iso: Any) -> float | None:
    if not isinstance(iso, str):
        return None
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def ours_command(via: str, suite: Path, out: Path, jobs: int, claude: str | None) -> list[str]:
    extra = ["--claude", claude] if claude else []
    if via == "cli":
        cli = Path(sys.executable).with_name("plugin-eval")
        return [str(cli), str(suite), "--trust-plugin", "--json", str(out), "-j", str(jobs), *extra]
    return [
        sys.executable,
        "-m",
        "pytest",
        str(suite / "evals"),
        "--trust-plugin",
        "--json",
        str(out),
        "-p",
        "no:cacheprovider",
        "-j",
        str(jobs),
        *extra,
    ]


def reference_command(ref: Path, suite: Path, out: Path, jobs: int) -> list[str]:
    return [
        str(ref),
        "plugin",
        "eval",
        str(suite),
        "--trust-plugin",
        "--no-publish",
        "--json",
        str(out),
        "-j",
        str(jobs),
    ]


def run_session(
    tool: str,
    argv: list[str],
    env: dict,
    cwd: Path,
    out: Path,
    jobs: int,
    model: PolicyModel,
    sample_memory: bool = False,
) -> Session:
    out.unlink(missing_ok=True)
    session = Session(tool, jobs)
    stderr_path = out.with_suffix(".stderr")
    since = time.perf_counter()
    with open(stderr_path, "wb") as err:
        session.launched = time.time()
        started = time.perf_counter()
        child = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
        )
        sampler = TreeSampler(child.pid).start() if sample_memory else None
        try:
            session.returncode = child.wait(timeout=SESSION_TIMEOUT)
        except subprocess.TimeoutExpired:
            child.kill()
            session.returncode = child.wait()
        session.wall = time.perf_counter() - started
        if sampler is not None:
            session.memory = sampler.stop()
    session.requests = model.counts(since)
    try:
        session.doc = json.loads(out.read_text())
    except (OSError, ValueError):
        session.doc = None
    lines = [line for line in stderr_path.read_text(errors="replace").splitlines() if line.strip()]
    session.stderr_tail = " | ".join(lines[-3:])[:400]
    return session


def aggregates_by_case(doc: dict | None) -> dict[str, dict]:
    return {case.get("name"): case.get("aggregates") or {} for case in (doc or {}).get("cases", [])}


def compare_aggregates(ours: dict | None, ref: dict | None) -> list[str]:
    """The per-case differences in score, scoreWithout and delta (empty: the same)."""
    a, b = aggregates_by_case(ours), aggregates_by_case(ref)
    out = []
    for name in sorted(set(a) | set(b), key=str):
        if name not in a or name not in b:
            out.append(f"{name}: only in {'ours' if name in a else 'the reference'}")
            continue
        for key in ("score", "scoreWithout", "delta"):
            x, y = a[name].get(key), b[name].get(key)
            same = (x is None and y is None) or (
                isinstance(x, (int, float)) and isinstance(y, (int, float)) and abs(x - y) < 1e-9
            )
            if not same:
                out.append(f"{name}: {key} ours {x} / reference {y}")
    return out


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def fmt_counts(counts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


# ---- 1. A/B against the reference tool ------------------------------------------------------------------------


def section_ab(args, tmp: Path, ours_binary: Path | None) -> None:
    say("== 1. A/B against the reference tool (`claude plugin eval`)")
    ref = find_reference(args.reference)
    if ref is None:
        where = args.reference or f"{os.environ.get('CLAUDE_ANCHOR_DIR') or DEFAULT_ANCHOR}/{REFERENCE_REL}"
        conclude(f"A/B skipped: no reference binary at {where} (pass --reference PATH or set CLAUDE_ANCHOR_DIR)")
        return
    suite = make_suite(tmp / "ab-suite", args.cases, args.runs)
    total_runs = args.cases * args.runs * 2
    with PolicyModel(latency=args.ab_latency) as model:
        env = session_env(model.url, tmp / "ab-home")
        say(
            f"   suite: {args.cases} cases × {args.runs} runs × 2 arms = {total_runs} runs; model latency "
            f"{args.ab_latency:g} s; {os.cpu_count()} CPUs; load average {load()}"
        )
        say(
            f"   ours: {args.ours} ({'pytest' if args.ours == 'pytest' else 'plugin-eval'}), child claude "
            f"{version_of(ours_binary)}; reference: {ref} ({version_of(ref)})"
        )
        for jobs in args.jobs:
            walls: dict[str, list[float]] = {"ours": [], "reference": []}
            last: dict[str, Session] = {}
            for rep in range(args.repeat):
                for tool in ("ours", "reference"):
                    out = tmp / f"ab-{tool}-j{jobs}-{rep}.json"
                    argv = (
                        ours_command(args.ours, suite, out, jobs, args.ours_claude)
                        if tool == "ours"
                        else reference_command(ref, suite, out, jobs)
                    )
                    s = run_session(tool, argv, env, tmp, out, jobs, model, sample_memory=jobs == max(args.jobs))
                    last[tool] = s
                    state = "" if s.ok else f"   FAILED: {s.describe_failure()}"
                    errs = s.errors()
                    startup = s.startup()
                    say(
                        f"   -j {jobs} #{rep + 1} {tool:9s} {s.wall:7.2f} s   start-up to first run "
                        f"{fmt_s(startup)}   load {load()}   model requests: {fmt_counts(s.requests)}"
                        f"{f'   {len(errs)} run errors: {errs[0][:120]}' if errs else ''}{state}"
                    )
                    if s.ok:
                        walls[tool].append(s.wall)
            if not walls["ours"] or not walls["reference"]:
                conclude(f"A/B -j {jobs}: not compared (a tool failed every time; see above)")
                continue
            o, r = median(walls["ours"]), median(walls["reference"])
            conclude(
                f"A/B -j {jobs}: ours {o:.1f} s / reference {r:.1f} s = {o / r:.2f}"
                f"   (per run: ours {o / total_runs * 1000:.0f} ms, reference {r / total_runs * 1000:.0f} ms;"
                f" median of {len(walls['ours'])})"
            )
            mem = {tool: s.memory for tool, s in last.items() if s.memory is not None and s.memory.samples}
            if len(mem) == 2:
                peak = {tool: max(x["rss"] for x in m.samples) for tool, m in mem.items()}
                most = {tool: max(len(x["claude_rss"]) for x in m.samples) for tool, m in mem.items()}
                conclude(
                    f"A/B -j {jobs} memory: peak tree RSS ours {peak['ours']:.0f} MiB / reference "
                    f"{peak['reference']:.0f} MiB = {peak['ours'] / peak['reference']:.2f}   (at most "
                    f"{most['ours']} / {most['reference']} claude children at once; last session each)"
                )
            diffs = compare_aggregates(last["ours"].doc, last["reference"].doc)
            if diffs:
                conclude(f"A/B -j {jobs}: per-case aggregates DIFFER in {len(diffs)} place(s):")
                for line in diffs:
                    say(f"     {line}")
            else:
                agg = (last["ours"].doc or {}).get("aggregates", {})
                conclude(
                    f"A/B -j {jobs}: per-case aggregates (score, scoreWithout, delta) identical in all "
                    f"{len(aggregates_by_case(last['ours'].doc))} cases (mean Δ {agg.get('meanDelta')})"
                )


# ---- 2. overhead per run at zero latency ---------------------------------------------------------------------


def bare_run(claude: Path, url: str, plugin: Path | None, prompt: str, max_turns: int) -> float:
    """One `claude -p` child alone: fresh HOME, config dir and cwd; the prompt on stdin."""
    with tempfile.TemporaryDirectory(prefix="bench-bare-") as tmp:
        home = Path(tmp) / "home"
        cwd = home / "cwd"
        cwd.mkdir(parents=True)
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(Path(tmp) / "config"),
            "TMPDIR": tmp,
            "ANTHROPIC_BASE_URL": url,
            "ANTHROPIC_API_KEY": "dummy",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        argv = [str(claude), "-p", "--output-format", "stream-json", "--verbose", "--max-turns", str(max_turns)]
        if plugin is not None:
            argv += ["--plugin-dir", str(plugin)]
        started = time.perf_counter()
        subprocess.run(
            argv,
            input=prompt.encode(),
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=300,
            check=False,
        )
        return time.perf_counter() - started


def section_overhead(args, tmp: Path, ours_binary: Path | None) -> None:
    say("== 2. overhead per run at zero model latency: ours (-j 1) against a bare `claude -p` child")
    if ours_binary is None:
        conclude("overhead: skipped (no claude binary found for the bare child)")
        return
    cases, runs = args.overhead_cases, args.overhead_runs
    suite = make_suite(tmp / "overhead-suite", cases, runs)
    say(
        f"   {cases} cases × {runs} runs × 2 arms, {args.overhead_repeat} round(s) of (our session, as many bare "
        f"children); child claude {version_of(ours_binary)}; load average {load()}"
    )
    bare: dict[str, list[float]] = {"with": [], "without": []}
    ours_runs: dict[str, list[float]] = {"with": [], "without": []}
    bare_requests: dict[str, dict] = {"with": {}, "without": {}}
    walls: list[float] = []
    startups: list[float] = []
    n = 0
    with PolicyModel(latency=0.0) as model:
        env = session_env(model.url, tmp / "overhead-home")
        for rep in range(args.overhead_repeat):
            out = tmp / f"overhead-ours-{rep}.json"
            s = run_session("ours", ours_command(args.ours, suite, out, 1, args.ours_claude), env, tmp, out, 1, model)
            if not s.ok:
                say(f"   round {rep + 1}: our session FAILED ({s.describe_failure()})")
            else:
                walls.append(s.wall)
                startup = s.startup()
                if startup is not None:
                    startups.append(startup)
                n = len(s.runs())
                for case in (s.doc or {}).get("cases", []):
                    for arm, arm_runs in case.get("arms", {}).items():
                        ours_runs.setdefault(arm, []).extend(float(r.get("durationSeconds") or 0) for r in arm_runs)
                say(
                    f"   round {rep + 1}: our session {s.wall:.2f} s for {n} runs (start-up to first run "
                    f"{fmt_s(s.startup())}); model requests {fmt_counts(s.requests)}"
                )
            for i in range(cases * runs):  # the bare children, arms interleaved
                for arm in ("with", "without"):
                    since = time.perf_counter()
                    bare[arm].append(
                        bare_run(
                            ours_binary,
                            model.url,
                            suite if arm == "with" else None,
                            f"Give me a summary of topic {i % cases}.",
                            4,
                        )
                    )
                    for kind, count in model.counts(since).items():
                        bare_requests[arm][kind] = bare_requests[arm].get(kind, 0) + count
    if not walls:
        conclude("overhead: our session failed every time")
        return
    for arm in ("with", "without"):
        b, o = median(bare[arm]), median(ours_runs[arm])
        say(
            f"   {arm:7s} arm: bare claude -p median {b * 1000:6.0f} ms ({fmt_counts(bare_requests[arm])});"
            f" ours per run median {o * 1000:6.0f} ms   ratio {o / b:.2f}"
        )
    all_bare, all_ours = bare["with"] + bare["without"], ours_runs["with"] + ours_runs["without"]
    bare_mean = statistics.mean(all_bare)
    runs_wall = median([wall - startup for wall, startup in zip(walls, startups, strict=False)]) / n
    conclude(
        f"overhead per run: ours {runs_wall * 1000:.0f} ms (session wall after start-up ÷ runs) / bare claude -p "
        f"{bare_mean * 1000:.0f} ms (mean) = {runs_wall / bare_mean:.2f}   (goal ≤ 1.05)"
    )
    conclude(
        f"   each run from its prompt: ours {median(all_ours) * 1000:.0f} ms (durationSeconds, median) / bare "
        f"{median(all_bare) * 1000:.0f} ms (median) = {median(all_ours) / median(all_bare):.2f}   (a run whose "
        f"agent was started ahead does not wait for Claude Code's start-up)"
    )
    per_run = median(walls) / n
    conclude(
        f"overhead per run incl. session start-up: ours {per_run * 1000:.0f} ms (wall ÷ runs; start-up "
        f"{median(startups):.2f} s) / bare {bare_mean * 1000:.0f} ms (mean) = {per_run / bare_mean:.2f}"
    )


def fmt_s(seconds: float | None) -> str:
    return "?" if seconds is None else f"{seconds:.2f} s"


def load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


# ---- 3. concurrency scaling, and 5. memory ---------------------------------------------------------------------


def section_scaling(args, tmp: Path, scaling: bool, memory: bool) -> None:
    jobs_list = args.scaling_jobs if scaling else [4]
    title = "3. concurrency scaling" if scaling else "5. memory"
    say(f"== {title} at {args.latency:g} s per model answer: ours at -j {', '.join(map(str, jobs_list))}")
    cases, runs = args.scaling_cases, args.scaling_runs
    suite = make_suite(tmp / "scaling-suite", cases, runs)
    sessions: dict[int, Session] = {}
    reference: dict[int, Session] = {}  # the reference tool at the same latency, for comparison
    ref = find_reference(args.reference) if scaling else None
    with PolicyModel(latency=args.latency) as model:
        env = session_env(model.url, tmp / "scaling-home")
        say(
            f"   {cases} cases × {runs} runs × 2 arms = {cases * runs * 2} runs; {os.cpu_count()} CPUs; "
            f"load average {load()}"
        )
        for jobs in jobs_list:
            out = tmp / f"scaling-j{jobs}.json"
            s = run_session(
                "ours",
                ours_command(args.ours, suite, out, jobs, args.ours_claude),
                env,
                tmp,
                out,
                jobs,
                model,
                sample_memory=memory and jobs == 4,
            )
            sessions[jobs] = s
            startup = s.startup()
            say(
                f"   -j {jobs}: {s.wall:6.2f} s   start-up to first run {fmt_s(startup)}   load {load()}"
                f"   model requests {fmt_counts(s.requests)}{'' if s.ok else f'   FAILED: {s.describe_failure()}'}"
            )
            if ref is not None:
                out = tmp / f"scaling-ref-j{jobs}.json"
                r = run_session("reference", reference_command(ref, suite, out, jobs), env, tmp, out, jobs, model)
                reference[jobs] = r
                say(
                    f"   -j {jobs} reference: {r.wall:6.2f} s   load {load()}"
                    f"{'' if r.ok else f'   FAILED: {r.describe_failure()}'}"
                )
    if scaling:
        serial = sessions.get(1)
        if serial is None or not serial.ok:
            conclude("scaling: no serial session to compare with")
        else:
            for jobs, s in sessions.items():
                if jobs == 1 or not s.ok:
                    continue
                ideal = serial.wall / jobs
                conclude(
                    f"scaling -j {jobs}: {s.wall:.1f} s / ideal {ideal:.1f} s (serial {serial.wall:.1f} s ÷ {jobs})"
                    f" = {s.wall / ideal:.2f}   (goal ≤ 1.3 at -j 4); against -j 1: {s.wall / serial.wall:.2f}"
                    f" (goal < 1)"
                )
                here, there = s.startup(), serial.startup()
                if here is not None and there is not None:
                    phase, serial_phase = s.wall - here, serial.wall - there
                    say(
                        f"     without the start-up (launch → first run: {here:.1f} s here, {there:.1f} s serial): "
                        f"{phase:.1f} s / {serial_phase / jobs:.1f} s = {phase / (serial_phase / jobs):.2f}"
                    )
        for jobs, r in reference.items():
            s = sessions[jobs]
            if r.ok and s.ok:
                conclude(
                    f"at {args.latency:g} s per answer, -j {jobs}: ours {s.wall:.1f} s / reference {r.wall:.1f} s = "
                    f"{s.wall / r.wall:.2f}"
                )
    if memory:
        sampled = sessions.get(4)
        if sampled is None or sampled.memory is None or not sampled.memory.samples:
            conclude("memory: no samples")
        else:
            report_memory(sampled.memory)


class TreeSampler:
    """RSS of a process and its descendants every 100 ms, from /proc/<pid>/status."""

    def __init__(self, root: int, interval: float = 0.1) -> None:
        self.root, self.interval = root, interval
        self.samples: list[dict] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="rss-sampler", daemon=True)

    def start(self) -> TreeSampler:
        self._thread.start()
        return self

    def stop(self) -> TreeSampler:
        self._stop.set()
        self._thread.join(timeout=5)
        return self

    def _loop(self) -> None:
        while not self._stop.is_set():
            sample = self.sample()
            if sample is not None:
                self.samples.append(sample)
            self._stop.wait(self.interval)

    def sample(self) -> dict | None:
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
            children.setdefault(ppid, []).append(int(entry))
        tree, todo = [], [self.root]
        while todo:
            pid = todo.pop()
            tree.append(pid)
            todo.extend(children.get(pid, []))
        procs = []
        for pid in tree:
            info = _proc_status(pid)
            if info is not None:
                procs.append(info)
        if not procs:
            return None
        parent = {pid: ppid for ppid, pids in children.items() for pid in pids}
        is_claude = {p["pid"]: p["claude"] and p["pid"] != self.root for p in procs}
        # A run is a claude process whose parent is not one (the reference tool's own process is a claude
        # binary too, and Claude Code may start helpers from its own binary).
        claude = [p for p in procs if is_claude[p["pid"]] and not is_claude.get(parent.get(p["pid"]), False)]
        for p in procs:
            p["claude"] = is_claude[p["pid"]]
        return {
            "t": time.perf_counter(),
            "rss": sum(p["rss"] for p in procs),
            "anon": sum(p["anon"] for p in procs),
            "claude_rss": [p["rss"] for p in claude],
            "claude_anon": [p["anon"] for p in claude],
            "claude_procs": sum(1 for p in procs if p["claude"]),
            "claude_all_rss": sum(p["rss"] for p in procs if p["claude"]),
            "harness_rss": sum(p["rss"] for p in procs if not p["claude"]),
            "harness_procs": sum(1 for p in procs if not p["claude"]),
        }


def _proc_status(pid: int) -> dict | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return None
    fields = {}
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon", "Name"):
            fields[name] = value.strip()
    kb = lambda name: int(fields.get(name, "0 kB").split()[0]) / 1024  # noqa: E731  (MiB)
    return {
        "pid": pid,
        "rss": kb("VmRSS"),
        "anon": kb("RssAnon"),
        "claude": Path(argv0).name == "claude" or fields.get("Name") == "claude",
    }


def report_memory(sampler: TreeSampler) -> None:
    samples = sampler.samples
    peak = max(samples, key=lambda s: s["rss"])
    running = [s for s in samples if s["claude_rss"]]
    most = max((len(s["claude_rss"]) for s in samples), default=0)
    say(f"   {len(samples)} samples; at most {most} claude children at once")
    say(
        f"   peak tree RSS {peak['rss']:.0f} MiB (anonymous {peak['anon']:.0f} MiB): harness "
        f"{peak['harness_rss']:.0f} MiB in {peak['harness_procs']} processes, {len(peak['claude_rss'])} claude runs "
        f"({peak['claude_procs']} claude processes) {peak['claude_all_rss']:.0f} MiB"
    )
    conclude(f"memory -j 4: peak total RSS {peak['rss']:.0f} MiB (anonymous {peak['anon']:.0f} MiB)")
    if running:
        single = max(max(s["claude_rss"]) for s in running)
        single_anon = max(max(s["claude_anon"]) for s in running)
        busiest = max(running, key=lambda s: (len(s["claude_rss"]), s["rss"]))
        per_run = busiest["rss"] / len(busiest["claude_rss"])
        conclude(
            f"memory -j 4: peak per running claude child {single:.0f} MiB RSS ({single_anon:.0f} MiB anonymous);"
            f" tree RSS ÷ runs with the most runs at once ({len(busiest['claude_rss'])}) {per_run:.0f} MiB"
        )
    say("   (VmRSS counts shared pages — the claude binary's mapped file — once per process; RssAnon does not)")


# ---- 4. where the time goes ----------------------------------------------------------------------------------------


class Stages:
    """Wrappers around the package's stage functions, each adding its time to the current run's record."""

    def __init__(self, model: PolicyModel) -> None:
        self.model = model
        self.records: list[dict[str, float]] = []
        self.current: dict[str, float] = {}
        self.missing: list[str] = []
        self._undo: list[Callable[[], None]] = []

    def new_run(self) -> None:
        self.current = {}
        self.records.append(self.current)

    def add(self, stage: str, seconds: float) -> None:
        self.current[stage] = self.current.get(stage, 0.0) + seconds

    def timed(self, stage: str, fn: Callable) -> Callable:
        def wrapper(*a, **k):
            started = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.add(stage, time.perf_counter() - started)

        wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapper

    def patch(self, module_name: str, attr: str, make: Callable[[Any], Any], label: str) -> None:
        try:
            module = __import__(module_name, fromlist=["_"])
            owner_name, _, name = attr.rpartition(".")
            owner = getattr(module, owner_name) if owner_name else module
            original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        except (ImportError, AttributeError, KeyError):
            self.missing.append(f"{label} ({module_name}.{attr})")
            return
        setattr(owner, name, make(original))
        self._undo.append(lambda: setattr(owner, name, original))

    def install(self) -> None:
        def workspace(original):
            fn = original.__func__ if isinstance(original, classmethod) else original
            return (
                classmethod(self.timed("workspace", fn))
                if isinstance(original, classmethod)
                else self.timed("workspace", fn)
            )

        self.patch("pytest_plugin_eval.run.workspace", "Workspace.create", workspace, "workspace creation")
        self.patch("pytest_plugin_eval.engine.evaluate", "run_agent", lambda f: self.timed("run_agent", f), "run_agent")
        self.patch("pytest_plugin_eval.run.agent", "Child.run", self.child_wrapper, "the child")
        self.patch("pytest_plugin_eval.engine.evaluate", "grade", lambda f: self.timed("grading", f), "grading")
        self.patch(
            "pytest_plugin_eval.run.artefacts", "RunFolder.keep", lambda f: self.timed("keep", f), "keeping artefacts"
        )
        self.patch(
            "pytest_plugin_eval.run.workspace",
            "Workspace.remove",
            lambda f: self.timed("remove", f),
            "removing the workspace",
        )

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()

    def child_wrapper(self, original):
        def run(child, *a, **k):
            trace_path = child.trace_path
            first: list[float] = []
            done = threading.Event()

            def watch() -> None:  # the first stdout byte: the trace file is the child's stdout
                while not done.is_set():
                    try:
                        if os.stat(trace_path).st_size > 0:
                            first.append(time.perf_counter())
                            return
                    except OSError:
                        pass
                    time.sleep(WATCH_INTERVAL)

            watcher = threading.Thread(target=watch, daemon=True)
            started = time.perf_counter()
            watcher.start()
            try:
                return original(child, *a, **k)
            finally:
                ended = time.perf_counter()
                done.set()
                watcher.join()
                answers = self.model.answered(started, ended)
                self.add("child", ended - started)
                self.add(
                    "model wait", sum(min(a.ended, ended) - a.started for a in answers if a.kind != "count_tokens")
                )
                self.add("requests", float(len(answers)))
                if first:
                    self.add("first byte", first[0] - started)
                if answers:
                    self.add("first request", answers[0].started - started)

        return run


def profile_in_process(suite: Path, runs_per_arm: int, stages: Stages, env: dict) -> str:
    """Runs through engine.evaluate.evaluate with a RunPlan built as EvalSession.run_case builds it."""
    from pytest_plugin_eval.engine.evaluate import Evaluation, evaluate
    from pytest_plugin_eval.grade.types import grader_types
    from pytest_plugin_eval.load.case import load_case
    from pytest_plugin_eval.results.store import ResultsFolder
    from pytest_plugin_eval.run.agent import find_claude
    from pytest_plugin_eval.run.execute import RunPlan, RunSettings

    eval_root = suite / "evals"
    case_dirs = sorted(p for p in eval_root.iterdir() if (p / "prompt.md").is_file())
    kinds = grader_types()
    folder = ResultsFolder(suite / "profile-results")
    claude = find_claude(env.get("BENCH_OURS_CLAUDE") or None)
    plan_fields = {f.name for f in dataclasses.fields(RunPlan)}
    how_fields = {f.name for f in dataclasses.fields(Evaluation)}
    for index in range(1, runs_per_arm + 1):
        for arm in ("with", "without"):
            case = load_case(case_dirs[(index - 1) % len(case_dirs)], eval_root, kinds)
            plan_args: dict[str, Any] = dict(
                case=case,
                arm=arm,
                index=index,
                settings=RunSettings(),
                claude=claude,
                base_url=None,
                mock_agent=None,
                record_dir=folder.path / "recordings",
                environ=dict(env),
            )
            plan = RunPlan(**{k: v for k, v in plan_args.items() if k in plan_fields})
            artefacts = folder.run_folder(os.path.relpath(case.dir, case.eval_root), arm, index)
            how_args: dict[str, Any] = dict(two_arm=True, artefacts=artefacts, judge=None, ledger=None, attempts=1)
            how = Evaluation(**{k: v for k, v in how_args.items() if k in how_fields})
            stages.new_run()
            stages.current["arm"] = 1.0 if arm == "with" else 0.0
            started = time.perf_counter()
            result = evaluate(plan, how)
            stages.add("total", time.perf_counter() - started)
            if getattr(result, "error", None):
                say(f"   note: {arm} run {index} ended with an error: {result.error}")
            # The floor, right after, under the same load: a bare child answering the same prompt.
            stages.current["bare"] = bare_run(
                Path(claude), env["ANTHROPIC_BASE_URL"], suite if arm == "with" else None, case.prompt, case.max_turns
            )
    return "engine.evaluate.evaluate, RunPlan as in EvalSession.run_case"


def profile_pytest(suite: Path, runs_per_arm: int, stages: Stages, env: dict) -> str:
    """Fallback: a whole in-process pytest session, each run timed by wrapping session.eval_session.evaluate."""
    import pytest

    def per_run(original):
        def evaluate(plan, how):
            stages.new_run()
            stages.current["arm"] = 1.0 if getattr(plan, "arm", "with") == "with" else 0.0
            started = time.perf_counter()
            try:
                return original(plan, how)
            finally:
                stages.add("total", time.perf_counter() - started)

        return evaluate

    stages.patch("pytest_plugin_eval.session.eval_session", "evaluate", per_run, "a run")
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        args = [
            str(suite / "evals"),
            "--trust-plugin",
            "-p",
            "no:cacheprovider",
            "-q",
            "--runs",
            str(runs_per_arm),
            "--case",
            "case-000",
            "--output-dir",
            str(suite / "profile-pytest-results"),
        ]
        if env.get("BENCH_OURS_CLAUDE"):
            args += ["--claude", env["BENCH_OURS_CLAUDE"]]
        pytest.main(args)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return "an in-process pytest session"


def section_profile(args, tmp: Path) -> None:
    say(
        f"== 4. where the time goes: one run's stages, timed in this process ({args.profile_runs} runs per arm, "
        f"model latency {args.profile_latency:g} s, medians)"
    )
    suite = make_suite(tmp / "profile-suite", 2, 1)
    with PolicyModel(latency=args.profile_latency) as model:
        env = session_env(model.url, tmp / "profile-home")
        if args.ours_claude:
            env["BENCH_OURS_CLAUDE"] = args.ours_claude
        stages = Stages(model)
        stages.install()
        try:
            try:
                how = profile_in_process(suite, args.profile_runs, stages, env)
            except Exception as e:  # the package is changing under us: time a whole pytest session instead
                say(f"   the in-process RunPlan path failed ({type(e).__name__}: {e}); timing a pytest session")
                stages.records.clear()
                how = profile_pytest(suite, args.profile_runs, stages, env)
        finally:
            stages.uninstall()
    if stages.missing:
        say(f"   not measured (not found in the package): {', '.join(stages.missing)}")
    records = [r for r in stages.records if "total" in r]
    if not records:
        conclude("profile: no run was timed")
        return
    say(f"   via {how}; {len(records)} runs")
    arms = {"with": [r for r in records if r.get("arm") == 1.0], "without": [r for r in records if r.get("arm") == 0.0]}

    def row_values(r: dict) -> dict[str, float]:
        child, wait, total = r.get("child", 0.0), r.get("model wait", 0.0), r["total"]
        values = {
            "workspace creation (Workspace.create)": r.get("workspace", 0.0),
            "staging, mocks, reading the trace (run_agent − child)": r.get("run_agent", 0.0) - child,
            "child: Claude Code itself (Child.run − model wait)": child - wait,
            "child: model wait (time the server spent answering)": wait,
            "grading (grade.engine.grade)": r.get("grading", 0.0),
            "keeping artefacts (RunFolder.keep)": r.get("keep", 0.0),
            "removing the workspace (Workspace.remove)": r.get("remove", 0.0),
        }
        values["rest of evaluate (the run's result)"] = total - sum(values.values())
        values["total (engine.evaluate.evaluate)"] = total
        return values

    info_rows = {
        "  of which: start → first stdout byte": "first byte",
        "  of which: start → first model request": "first request",
        "  floor: a bare claude -p child, same prompt (next to it)": "bare",
    }
    medians: dict[str, dict[str, float]] = {arm: {} for arm in arms}
    for arm, rs in arms.items():
        if not rs:
            continue
        table = [row_values(r) for r in rs]
        for name in table[0]:
            medians[arm][name] = median([t[name] for t in table])
        for name, key in info_rows.items():
            got = [r[key] for r in rs if key in r]
            if got:
                medians[arm][name] = median(got)
        medians[arm]["model requests per run"] = median([r.get("requests", 0.0) for r in rs])
    names = list(row_values(records[0]))
    names.insert(3, list(info_rows)[0])
    names.insert(4, list(info_rows)[1])
    names.insert(5, list(info_rows)[2])
    say(f"   {'stage':58s} {'with arm':>18s} {'without arm':>18s}")
    for name in names:
        cells = []
        for arm in ("with", "without"):
            m = medians[arm]
            total = m.get("total (engine.evaluate.evaluate)")
            if name not in m or not total:
                cells.append(f"{'-':>18s}")
            elif name.startswith("  "):
                cells.append(f"{m[name] * 1000:8.1f} ms {'':>8s}")
            else:
                cells.append(f"{m[name] * 1000:8.1f} ms {m[name] / total * 100:6.1f} %")
        say(f"   {name:58s} {cells[0]} {cells[1]}")
    say(
        f"   {'model requests per run':58s} {medians['with'].get('model requests per run', 0):>11.0f}        "
        f"{medians['without'].get('model requests per run', 0):>11.0f}"
    )
    for arm in ("with", "without"):
        m = medians[arm]
        if m:
            total = m["total (engine.evaluate.evaluate)"]
            harness = (
                total
                - m["child: Claude Code itself (Child.run − model wait)"]
                - m["child: model wait (time the server spent answering)"]
            )
            conclude(
                f"profile {arm} arm: run {total * 1000:.0f} ms, of which the harness (outside the child) "
                f"{harness * 1000:.0f} ms = {harness / total * 100:.1f} %"
            )
            floor = m.get(list(info_rows)[2])
            if floor:
                child = (
                    m["child: Claude Code itself (Child.run − model wait)"]
                    + m["child: model wait (time the server spent answering)"]
                )
                conclude(
                    f"profile {arm} arm: our claude child {child * 1000:.0f} ms / bare claude -p {floor * 1000:.0f}"
                    f" ms = {child / floor:.2f}; whole run / bare = {total / floor:.2f}"
                )


# ---- installed cost ------------------------------------------------------------------------------------------------


def section_installed_cost(args, tmp: Path) -> None:
    say("== installed cost: a pytest session that evaluates nothing, with and without the plugin loaded")
    project = tmp / "plain-project"
    project.mkdir()
    (project / "test_trivial.py").write_text("def test_trivial():\n    assert 1 + 1 == 2\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    variants = {"with plugin": base, "without (-p no:plugin_eval)": [*base, "-p", "no:plugin_eval"]}
    times: dict[str, list[float]] = {name: [] for name in variants}
    failures = []
    for rep in range(args.installed_repeat + 1):  # the first round warms the caches and is not counted
        for name, argv in variants.items():
            started = time.perf_counter()
            done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=300)
            elapsed = time.perf_counter() - started
            if done.returncode != 0:
                failures.append(f"{name}: exit {done.returncode}: {(done.stdout + done.stderr).strip()[-300:]}")
            if rep:
                times[name].append(elapsed)
    for line in failures[:2]:
        say(f"   FAILED {line}")
    w, wo = median(times["with plugin"]), median(times["without (-p no:plugin_eval)"])
    say(
        f"   with the plugin {w * 1000:.0f} ms, without {wo * 1000:.0f} ms (median of {args.installed_repeat}, "
        f"alternating)"
    )
    conclude(f"installed cost: {(w - wo) * 1000:+.0f} ms per pytest session (goal ≤ 50 ms)")


# ---- main ---------------------------------------------------------------------------------------------------------


def int_list(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n", 2)[2],
    )
    pick = parser.add_argument_group("sections (default: all)")
    for flag in ("ab", "overhead", "scaling", "profile", "memory", "installed-cost"):
        pick.add_argument(f"--{flag}", action="store_true")
    parser.add_argument("--reference", metavar="PATH", help="the reference Claude Code binary (claude plugin eval)")
    parser.add_argument(
        "--ours",
        choices=("pytest", "cli"),
        default="pytest",
        help="run ours as `python -m pytest PLUGIN/evals` (default) or as `plugin-eval PLUGIN`",
    )
    parser.add_argument(
        "--ours-claude",
        metavar="PATH",
        help="the child binary our harness starts (--claude); default: the package's choice",
    )
    parser.add_argument("--cases", type=int, default=10, help="A/B suite: cases (default 10)")
    parser.add_argument("--runs", type=int, default=3, help="A/B suite: runs per case and arm (default 3)")
    parser.add_argument("--jobs", type=int_list, default=[1, 4], help="A/B concurrency levels (default 1,4)")
    parser.add_argument("--repeat", type=int, default=3, help="A/B sessions per tool and level; median (default 3)")
    parser.add_argument("--ab-latency", type=float, default=0.0, help="A/B: seconds per model answer (default 0)")
    parser.add_argument("--overhead-cases", type=int, default=2)
    parser.add_argument("--overhead-runs", type=int, default=3)
    parser.add_argument("--overhead-repeat", type=int, default=2, help="rounds of (our session, bare children)")
    parser.add_argument("--latency", type=float, default=1.0, help="scaling/memory: seconds per model answer")
    parser.add_argument("--scaling-jobs", type=int_list, default=[1, 2, 4])
    parser.add_argument("--scaling-cases", type=int, default=4)
    parser.add_argument("--scaling-runs", type=int, default=2)
    parser.add_argument("--profile-runs", type=int, default=4, help="profiled runs per arm (default 4)")
    parser.add_argument("--profile-latency", type=float, default=0.0)
    parser.add_argument("--installed-repeat", type=int, default=7)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (suites, results, JSON)")
    args = parser.parse_args()

    chosen = {
        name: getattr(args, name.replace("-", "_"))
        for name in ("ab", "overhead", "scaling", "profile", "memory", "installed-cost")
    }
    if not any(chosen.values()):
        chosen = dict.fromkeys(chosen, True)

    tmp = Path(tempfile.mkdtemp(prefix="bench-speed-"))
    binary = Path(args.ours_claude) if args.ours_claude else ours_claude(None)
    try:
        for name, section in (
            ("ab", lambda: section_ab(args, tmp, binary)),
            ("overhead", lambda: section_overhead(args, tmp, binary)),
            ("scaling", lambda: section_scaling(args, tmp, True, chosen["memory"])),
            ("memory", lambda: None if chosen["scaling"] else section_scaling(args, tmp, False, True)),
            ("profile", lambda: section_profile(args, tmp)),
            ("installed-cost", lambda: section_installed_cost(args, tmp)),
        ):
            if not chosen[name]:
                continue
            try:
                section()
            except KeyboardInterrupt:
                raise
            except Exception as e:  # one broken section (the package may be mid-change) must not lose the others
                conclude(f"{name}: failed with {type(e).__name__}: {e}")
            say()
    finally:
        if args.keep:
            say(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    say("== summary")
    for line in SUMMARY:
        say(f"   {line}")


if __name__ == "__main__":
    main()

"""The rerun after a one-line edit of a SKILL.md, with --reuse-baseline, side by side with the reference tool.
Prints figures and ratios; asserts nothing (issue 26 item 4, the rerun half).

Both tools run the same generated suite (bench_speed.make_suite: 10 cases × 3 runs × 2 arms by default) against
the same local model (policy_model.py, LATENCY seconds per answer): a first session, then one line of the skill's
SKILL.md is edited, then the rerun — ours with --reuse-baseline, the reference tool as it is (it has no reuse).
For each rerun: the agent runs made (runs not taken from a stored session), the model calls by kind, the cost in
the results document, the wall time; and whether the two tools reached the same decision (per-case WITH,
W/OUT and Δ, and the exit code). Each tool gets a copy of the suite of its own, so neither reads the other's
results.

    .venv/bin/python bench/bench_reuse.py                           # 10 × 3, 2 s per answer, -j 4
    .venv/bin/python bench/bench_reuse.py --cases 4 --runs 2 --latency 0.5 --jobs 2
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_speed import (
    Session,
    compare_aggregates,
    find_reference,
    make_suite,
    ours_claude,
    ours_command,
    reference_command,
    run_session,
    session_env,
    version_of,
)
from policy_model import PolicyModel

SKILL_FILE = Path("skills/summarize/SKILL.md")
EDIT = ("in one line`.", "in one line`. Keep it short.")  # a one-line edit of the skill's body
AGENT_KINDS = ("agent-skill", "agent-summary", "agent-text")


def say(line: str = "") -> None:
    print(line, flush=True)


def agent_runs(session: Session) -> int:
    """Runs whose agent ran in this session (a reused run was graded again, not run)."""
    return sum(1 for run in session.runs() if not run.get("reusedFrom"))


def agent_calls(session: Session) -> int:
    return sum(session.requests.get(kind, 0) for kind in AGENT_KINDS)


def cost(session: Session) -> float:
    return float((session.doc or {}).get("costUsd") or 0.0)


def arm_cost(session: Session, arm: str) -> float:
    """What the session's document says it paid for the runs of one arm (a reused run: its judges only)."""
    return sum(
        float(run.get("costUsd") or 0.0)
        for case in (session.doc or {}).get("cases", [])
        for run in case.get("arms", {}).get(arm, [])
    )


def describe(label: str, session: Session) -> str:
    reused = len(session.runs()) - agent_runs(session)
    return (
        f"   {label:<22} exit {session.returncode}  runs {len(session.runs()):>3} (agent {agent_runs(session):>3}, "
        f"reused {reused:>3})  model calls {agent_calls(session):>4}  cost ${cost(session):.4f}  "
        f"wall {session.wall:6.1f} s"
    )


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×" if b else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=2.0, help="seconds per model answer (default 2)")
    parser.add_argument("--jobs", type=int, default=4, help="-j of both tools (default 4)")
    parser.add_argument("--reference", help="the reference binary (default: under /tmp/anchor-cc)")
    parser.add_argument("--ours-claude", help="the Claude Code binary our harness starts")
    args = parser.parse_args()
    ref = find_reference(args.reference)
    tmp = Path(tempfile.mkdtemp(prefix="bench-reuse-"))
    try:
        with PolicyModel(latency=args.latency) as model:
            say(
                f"== rerun after a one-line SKILL.md edit: {args.cases} cases × {args.runs} runs × 2 arms, "
                f"{args.latency:g} s per answer, -j {args.jobs}"
            )
            say(
                f"   ours: child claude {version_of(ours_claude(args.ours_claude))}; "
                f"reference: {ref} ({version_of(ref)})"
            )
            sessions: dict[str, dict[str, Session]] = {}
            tools = ["ours"] + (["reference"] if ref is not None else [])
            for tool in tools:
                suite = make_suite(tmp / f"{tool}-suite", args.cases, args.runs)
                env = session_env(model.url, tmp / f"{tool}-home")
                out = tmp / f"{tool}.json"

                def command(extra: list[str], tool: str = tool, suite: Path = suite, out: Path = out) -> list[str]:
                    if tool == "ours":
                        return [*ours_command("pytest", suite, out, args.jobs, args.ours_claude), *extra]
                    assert ref is not None
                    return reference_command(ref, suite, out, args.jobs)

                first = run_session(tool, command([]), env, suite, out, args.jobs, model)
                skill = suite / SKILL_FILE
                skill.write_text(skill.read_text().replace(*EDIT))
                rerun = run_session(tool, command(["--reuse-baseline"]), env, suite, out, args.jobs, model)
                sessions[tool] = {"first": first, "rerun": rerun}
                say(describe(f"{tool} first session", first))
                say(describe(f"{tool} rerun", rerun))
                for session in (first, rerun):
                    if not session.ok:
                        say(f"   ⚠ {tool}: {session.describe_failure()}")
            ours = sessions["ours"]["rerun"]
            if ref is None:
                say("   reference tool not found: no ratios (pass --reference PATH)")
                return
            theirs = sessions["reference"]["rerun"]
            differences = compare_aggregates(ours.doc, theirs.doc)
            same = not differences and ours.returncode == theirs.returncode
            say("")
            say(f"   same decision: {'yes' if same else 'NO'} (per-case WITH, W/OUT, Δ and exit code)")
            for line in differences[:10]:
                say(f"     {line}")
            say(
                f"   rerun, ours ÷ reference: agent runs {ratio(agent_runs(ours), agent_runs(theirs))} "
                f"({agent_runs(ours)} / {agent_runs(theirs)}), model calls "
                f"{ratio(agent_calls(ours), agent_calls(theirs))}, cost {ratio(cost(ours), cost(theirs))} "
                f"(${cost(ours):.4f} / ${cost(theirs):.4f}), wall {ratio(ours.wall, theirs.wall)} "
                f"({ours.wall:.1f} s / {theirs.wall:.1f} s)   goal: agent runs and cost ≤ 0.55×"
            )
            # What reuse can save is the without arm; the with arm must run again after the edit. So the lowest cost
            # ratio the reuse of the baseline can reach is the with arm's share of the reference's cost.
            ref_with, ref_without = arm_cost(theirs, "with"), arm_cost(theirs, "without")
            say(
                f"   rerun cost by arm: ours with ${arm_cost(ours, 'with'):.4f}, without ${arm_cost(ours, 'without'):.4f}"
                f"; reference with ${ref_with:.4f}, without ${ref_without:.4f} → the floor reuse of the baseline can "
                f"reach: {ratio(ref_with, ref_with + ref_without)} (ours with ÷ reference with: "
                f"{ratio(arm_cost(ours, 'with'), ref_with)})"
            )
            first_ours, first_ref = sessions["ours"]["first"], sessions["reference"]["first"]
            say(
                f"   first session, ours ÷ reference: wall {ratio(first_ours.wall, first_ref.wall)}, cost "
                f"{ratio(cost(first_ours), cost(first_ref))}; same decision: "
                f"{'yes' if not compare_aggregates(first_ours.doc, first_ref.doc) else 'NO'}"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

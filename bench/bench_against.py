"""What answering "did my edit help?" costs: one session with --against OLD --reuse-baseline, against two full
sessions (the old version's and the new one's, each with its own without-plugin arm) compared afterwards with
`plugin-eval compare`. Prints agent runs, model calls, list cost and wall time side by side, the ratios, and
whether both ways reached the same decision per case; asserts nothing (issue 38, bench).

One generated suite (bench_speed.make_suite: plugin `bp`, CASES cases × RUNS runs) against the local policy model
(policy_model.py, LATENCY seconds per answer). First an earlier session of the old version stands for what a CI
history holds: --reuse-baseline takes from it both the without-plugin runs and, since they were made on exactly
the version --against names, the with-plugin runs that stand for the against arm; it is counted in neither way.
Then one line of the skill's SKILL.md is edited (the edit under question), and:

- two full sessions: the old version (a copy of the plugin before the edit) and the new one, both arms each,
  compared with analysis/compare.py (the WITH change per case: better, worse or no detectable change);
- one session of the new version with --against <the old copy> --reuse-baseline (ΔAGAINST's verdict per case);
- for reference, the same --against session with nothing reused (--no-reuse-baseline).

    .venv/bin/python bench/bench_against.py                          # 6 cases × 3 runs, 0.5 s per answer, -j 2
    .venv/bin/python bench/bench_against.py --cases 10 --latency 2 --jobs 4
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_reuse import EDIT, SKILL_FILE, agent_calls, agent_runs, cost, ratio
from bench_speed import Session, make_suite, ours_command, run_session, session_env
from policy_model import PolicyModel

from pytest_plugin_eval.analysis.compare import compare_case
from pytest_plugin_eval.results.model import SuiteResult


def say(line: str = "") -> None:
    print(line, flush=True)


def line(label: str, sessions: list[Session]) -> str:
    runs = sum(len(s.runs()) for s in sessions)
    agent = sum(agent_runs(s) for s in sessions)
    calls = sum(agent_calls(s) for s in sessions)
    spent = sum(cost(s) for s in sessions)
    wall = sum(s.wall for s in sessions)
    codes = ",".join(str(s.returncode) for s in sessions)
    return (
        f"   {label:<34} exit {codes:<5} runs {runs:>3} (agent {agent:>3})  model calls {calls:>4}  "
        f"cost ${spent:.4f}  wall {wall:6.1f} s"
    )


def two_session_verdicts(old: Session, new: Session) -> dict[str, str | None]:
    """Per case, what `plugin-eval compare OLD NEW` decides of WITH."""
    a, b = SuiteResult.from_json(old.doc or {}), SuiteResult.from_json(new.doc or {})
    before = {case.name: case for case in a.cases}
    return {case.name: compare_case(before.get(case.name), case).with_score.verdict for case in b.cases}


def against_verdicts(session: Session) -> dict[str, str | None]:
    """Per case, what ΔAGAINST decides: better (its interval above 0), worse (below), or no detectable change."""
    out: dict[str, str | None] = {}
    for case in (session.doc or {}).get("cases", []):
        found = (case.get("aggregates") or {}).get("deltaAgainst") or {}
        low_high = found.get("deltaCI")
        out[case["name"]] = (
            None
            if not low_high
            else "better"
            if low_high[0] > 0
            else "worse"
            if low_high[1] < 0
            else "no_detectable_change"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=6)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per model answer (default 0.5)")
    parser.add_argument("--jobs", type=int, default=2, help="-j of every session (default 2)")
    parser.add_argument("--ours-claude", help="the Claude Code binary our harness starts")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-against-"))
    try:
        with PolicyModel(latency=args.latency) as model:
            say(
                f'== "did my edit help?": {args.cases} cases × {args.runs} runs, {args.latency:g} s per answer, '
                f"-j {args.jobs}"
            )
            env = session_env(model.url, tmp / "home")

            def session(suite: Path, out: str, *extra: str) -> Session:
                argv = [*ours_command("pytest", suite, tmp / out, args.jobs, args.ours_claude), *extra]
                found = run_session("ours", argv, env, suite, tmp / out, args.jobs, model)
                if not found.ok:
                    say(f"   ⚠ {out}: {found.describe_failure()}")
                return found

            # the new version (edited below) and the old one; each keeps its own results folder
            new = make_suite(tmp / "new", args.cases, args.runs)
            old = tmp / "old"
            shutil.copytree(new, old)
            earlier = session(new, "earlier.json")  # what CI history holds: its without arm is reused below
            say(line("earlier session (not counted)", [earlier]))
            skill = new / SKILL_FILE
            skill.write_text(skill.read_text().replace(*EDIT))

            old_full = session(old, "old.json")
            new_full = session(new, "new.json")
            against = session(new, "against.json", "--against", str(old), "--reuse-baseline")
            fresh = session(new, "fresh.json", "--against", str(old), "--no-reuse-baseline")
            say(line("two full sessions (old + new)", [old_full, new_full]))
            say(line("--against OLD --reuse-baseline", [against]))
            say(line("--against OLD, nothing reused", [fresh]))

            two = [old_full, new_full]
            say("")
            say(
                f"   --against + --reuse-baseline ÷ two full sessions: agent runs "
                f"{ratio(agent_runs(against), sum(agent_runs(s) for s in two))}, model calls "
                f"{ratio(agent_calls(against), sum(agent_calls(s) for s in two))}, list cost "
                f"{ratio(cost(against), sum(cost(s) for s in two))}, wall "
                f"{ratio(against.wall, sum(s.wall for s in two))}   goal: agent runs and cost ≤ 0.5×"
            )
            say(
                f"   --against with nothing reused ÷ two full sessions: agent runs "
                f"{ratio(agent_runs(fresh), sum(agent_runs(s) for s in two))}, list cost "
                f"{ratio(cost(fresh), sum(cost(s) for s in two))}"
            )
            # Had the old version's session been kept (it is the earlier one), the other way would be the new
            # version's full session compared with it: --against then saves that session's without arm.
            say(
                f"   --against + --reuse-baseline ÷ the new version's full session alone: agent runs "
                f"{ratio(agent_runs(against), agent_runs(new_full))}, list cost {ratio(cost(against), cost(new_full))}"
            )
            by_compare, by_against = two_session_verdicts(old_full, new_full), against_verdicts(against)
            same = by_compare == by_against
            say(f"   same decision per case: {'yes' if same else 'NO'} ({_counts(by_against)})")
            for name in sorted(set(by_compare) | set(by_against)):
                if by_compare.get(name) != by_against.get(name):
                    say(f"     {name}: compare {by_compare.get(name)} / --against {by_against.get(name)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _counts(verdicts: dict[str, str | None]) -> str:
    tally: dict[str, int] = {}
    for verdict in verdicts.values():
        tally[verdict or "no interval"] = tally.get(verdict or "no interval", 0) + 1
    return ", ".join(f"{n} {v.replace('_', ' ')}" for v, n in sorted(tally.items()))


if __name__ == "__main__":
    main()

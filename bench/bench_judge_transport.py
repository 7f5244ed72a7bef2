"""Judges through Claude Code against judges through the API: one session of `llm` graders, run twice against the
same local model (bench/policy_model.py, a set latency per answer) — once signed in with an API key (judges ask the
API directly: votes in parallel, early stop) and once with a setup token alone (CLAUDE_CODE_OAUTH_TOKEN: judges ask
through an isolated `claude -p` per vote, grade/clients.py). Prints wall time, judge cost and model requests side by
side, and their ratios; asserts nothing.

    .venv/bin/python bench/bench_judge_transport.py                       # 4 cases x 1 run x 2 arms, 2 s per answer
    .venv/bin/python bench/bench_judge_transport.py --cases 6 --graders 2 --latency 2 --jobs 2 --repeat 2
    .venv/bin/python bench/bench_judge_transport.py --profile --graders 3   # where a vote's time goes, in-process

Measured on the project's 2-core machine, shared (load average 3-6; one session per transport, the transports
alternating), 2 s per model answer, judge cost 1.00x throughout. Wall time Claude Code / API with three llm graders
per case, before the children started ahead were sized to the votes in flight (a fixed 2, and a vote's answer read
only once its child had exited) and after: 3 cases at -j 1, 1.34x before, 1.07x after; 4 cases at -j 2, 1.29x
before, 1.10x after (--profile: before, 16 of 48 votes started a cold child; after, 2). One grader per case, 3
cases at -j 1: 1.06x. Under a load average of 10-20 the transport is CPU-bound
(each vote is a Claude Code process, ~0.55 s of CPU: ~0.3 s starting, ~0.25 s answering) and the ratio grows with
the load (1.33x at -j 1 and -j 2 at a load average near 10).

A run's judges asked at once instead of one after the other (3 cases, three llm graders each, 2 s per answer, one
session per row at a load average of 8-20 from other work): wall time after / before, through the API 0.62x at
-j 1 (70.3 s -> 43.8 s) and 0.62x at -j 2 (46.5 s -> 29.0 s); through Claude Code 0.80x at -j 1 (133.9 s -> 106.9 s)
and 0.90x at -j 2 (77.3 s -> 69.4 s); the same 36 judge requests and judge cost. The API gains more, so at that load
the ratio Claude Code / API grew (1.90x -> 2.44x at -j 1, 1.66x -> 2.39x at -j 2): votes through Claude Code are
processes that compete for the two cores, and asking more of them at once does not make the cores faster.

`--profile` runs the Claude Code session in this process (pytest.main) with the judge client's functions wrapped:
per vote, how long it waited for a child (one started ahead, or a cold start), how many votes were in flight, and
its time over the model's own latency; per ballot, its time over the latency of its rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_speed import make_suite, ours_command, run_session, session_env
from policy_model import PolicyModel

TRANSPORTS = {
    "API (ANTHROPIC_API_KEY)": {"ANTHROPIC_API_KEY": "bench-key"},
    "Claude Code (CLAUDE_CODE_OAUTH_TOKEN)": {"CLAUDE_CODE_OAUTH_TOKEN": "bench-token"},
}


def add_llm_graders(suite: Path, graders: int) -> None:
    for case in sorted((suite / "evals").iterdir()):
        for g in range(graders):
            (case / "graders" / f"judged-{g}.md").write_text(
                f"---\ntype: llm\n---\nThe answer is a one-line summary (criterion {g}).\n"
            )


def judge_figures(doc: dict | None) -> tuple[float, int, int]:
    """(judge cost, judged graders, graders the judge could not decide) of a results document."""
    cost, judged, undecided = 0.0, 0, 0
    for case in (doc or {}).get("cases", []):
        for runs in case.get("arms", {}).values():
            for run in runs:
                cost += run.get("judgeCostUsd") or 0.0
                for grader in run.get("graders", []):
                    if grader.get("judgeModel"):
                        judged += 1
                        undecided += not grader.get("judgeVotes")
    return cost, judged, undecided


def prompt_sizes(claude: Path | None) -> tuple[int, int] | None:
    """The characters one vote sends to the model (system prompt and messages), asked directly and through Claude
    Code: what the price of a vote scales with (the local model reports fixed token counts)."""
    import anthropic

    from pytest_plugin_eval.core.claude_child import ClaudeCodeClient
    from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
    from pytest_plugin_eval.grade.judge import Judge

    if claude is None:
        return None
    content = [{"type": "text", "text": "<evidence>SUMMARY: topic 1 in one line</evidence>\nThe answer is a summary."}]
    with ScriptedEndpoint(keep_bodies=True) as endpoint:
        url = endpoint.session_url()
        direct = anthropic.Anthropic(base_url=url, api_key="bench", max_retries=0)
        env = {"PATH": "/usr/bin:/bin", "CLAUDE_CODE_OAUTH_TOKEN": "bench", "ANTHROPIC_BASE_URL": url}
        for client in (direct, ClaudeCodeClient(claude, env)):
            Judge("claude-haiku-4-5", lambda grader, c=client: c).ask("g", content)
            client.close()  # the Claude Code client's children started ahead, and its folders
        bodies = [c["body"] for c in endpoint.calls("judge")]
    sizes = [len(json.dumps(b.get("system"))) + len(json.dumps(b.get("messages"))) for b in bodies]
    return sizes[0], sizes[1]


class VoteProfile:
    """Wraps ClaudeCodeClient and Judge in this process to time each vote and each ballot."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = 0
        self.votes: list[dict] = []
        self.ballots: list[float] = []
        self.starts = 0
        self.undo: list = []

    def patch(self, owner, name: str, make) -> None:
        original = owner.__dict__[name]
        setattr(owner, name, make(original))
        self.undo.append(lambda: setattr(owner, name, original))

    def install(self) -> None:
        from pytest_plugin_eval.core.claude_child import ClaudeCodeClient
        from pytest_plugin_eval.grade.judge import Judge

        profile = self

        def create(original):
            def wrapper(client, **kwargs):
                with profile.lock:
                    profile.in_flight += 1
                    record = {"in_flight": profile.in_flight, "started": time.perf_counter()}
                try:
                    return original(client, **kwargs)
                finally:
                    record["total"] = time.perf_counter() - record["started"]
                    with profile.lock:
                        profile.in_flight -= 1
                        profile.votes.append(record)

            return wrapper

        def start(original):
            def wrapper(client, key):
                with profile.lock:
                    profile.starts += 1
                return original(client, key)

            return wrapper

        def ballot(original):
            def wrapper(judge, grader, content):
                started = time.perf_counter()
                try:
                    return original(judge, grader, content)
                finally:
                    with profile.lock:
                        profile.ballots.append(time.perf_counter() - started)

            return wrapper

        self.patch(ClaudeCodeClient, "create", create)
        self.patch(ClaudeCodeClient, "_start", start)
        self.patch(Judge, "ballot", ballot)

    def uninstall(self) -> None:
        while self.undo:
            self.undo.pop()()


def profile_session(args, root: Path, suite: Path, model: PolicyModel) -> None:
    """One session judged through Claude Code, in this process, with each vote and ballot timed."""
    import pytest

    from pytest_plugin_eval.core import claude_child

    profile = VoteProfile()
    took: list[tuple[float, bool]] = []
    original_take = claude_child.ClaudeCodeClient._take

    def take(client, key):
        ready = any(c.process.poll() is None for c in client._ready.get(key, []))
        started = time.perf_counter()
        try:
            return original_take(client, key)
        finally:
            with profile.lock:
                took.append((time.perf_counter() - started, ready))

    env = {k: v for k, v in session_env(model.url, root / "home-profile").items() if k != "ANTHROPIC_API_KEY"}
    env["CLAUDE_CODE_OAUTH_TOKEN"] = "bench-token"
    saved = dict(os.environ)
    profile.install()
    claude_child.ClaudeCodeClient._take = take  # type: ignore[method-assign]
    os.environ.clear()
    os.environ.update(env)
    since = time.perf_counter()
    started = time.perf_counter()
    try:
        pytest.main(
            [
                str(suite / "evals"),
                "--trust-plugin",
                "-p",
                "no:cacheprovider",
                "-q",
                "-j",
                str(args.jobs),
                "--output-dir",
                str(root / "profile-results"),
            ]
        )
    finally:
        wall = time.perf_counter() - started
        os.environ.clear()
        os.environ.update(saved)
        claude_child.ClaudeCodeClient._take = original_take  # type: ignore[method-assign]
        profile.uninstall()
    judged = [a.seconds for a in model.answered(since) if a.kind == "judge"]
    latency = statistics.median(judged) if judged else args.latency
    votes, ballots = profile.votes, profile.ballots
    cold = [t for t, ready in took if not ready]
    warm = [t for t, ready in took if ready]
    over = [v["total"] - latency for v in votes]
    print(
        f"profile (through Claude Code, in this process): session {wall:.1f} s, {len(votes)} votes, "
        f"{len(ballots)} ballots, {profile.starts} children started, model answer {latency:.2f} s (median)"
    )
    print(f"  votes that found a child waiting: {len(warm)}, that started one: {len(cold)}")
    if warm:
        print(f"  taking a waiting child: median {statistics.median(warm) * 1000:.0f} ms")
    if cold:
        print(f"  starting one (Popen, not its start-up): median {statistics.median(cold) * 1000:.0f} ms")
    if over:
        print(
            f"  a vote over the model's latency: median {statistics.median(over):.2f} s, max {max(over):.2f} s; "
            f"votes in flight: max {max(v['in_flight'] for v in votes)}"
        )
    if ballots:
        print(f"  a ballot: median {statistics.median(ballots):.2f} s (a two-vote round is {latency:.2f} s of model)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=4)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--graders", type=int, default=1, help="llm graders per case")
    parser.add_argument("--latency", type=float, default=2.0, help="seconds per model answer")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1, help="sessions per transport (median wall time)")
    parser.add_argument("--profile", action="store_true", help="only: time each vote through Claude Code in-process")
    args = parser.parse_args()

    if args.profile:
        with tempfile.TemporaryDirectory(prefix="bench-judges-") as tmp, PolicyModel(latency=args.latency) as model:
            suite = make_suite(Path(tmp) / "bp", args.cases, args.runs)
            add_llm_graders(suite, args.graders)
            profile_session(args, Path(tmp), suite, model)
        return

    with tempfile.TemporaryDirectory(prefix="bench-judges-") as tmp, PolicyModel(latency=args.latency) as model:
        root = Path(tmp)
        suite = make_suite(root / "bp", args.cases, args.runs)
        add_llm_graders(suite, args.graders)
        walls: dict[str, list[float]] = {name: [] for name in TRANSPORTS}
        loads: list[float] = []
        last: dict[str, tuple] = {}
        for i in range(args.repeat):  # the transports alternate, so that both see the machine's load alike
            for name, credential in TRANSPORTS.items():
                env = {k: v for k, v in session_env(model.url, root / f"home-{i}").items() if k != "ANTHROPIC_API_KEY"}
                env.update(credential)
                out = root / "out.json"
                session = run_session(
                    "ours", ours_command("pytest", suite, out, args.jobs, None), env, suite, out, args.jobs, model
                )
                walls[name].append(session.wall)
                loads.append(os.getloadavg()[0])
                last[name] = (*judge_figures(session.doc), session.requests.get("judge", 0))
                if session.doc is None or session.doc.get("partial"):
                    print(f"  {name}: session {i + 1} was partial or wrote nothing: {session.stderr_tail}")
                time.sleep(0.5)
        rows = {name: (statistics.median(walls[name]), *last[name]) for name in TRANSPORTS}
    print(
        f"{args.cases} case(s) x {args.runs} run(s) x 2 arms, {args.graders} llm grader(s) each, "
        f"{args.latency:g} s per answer, -j {args.jobs}, median of {args.repeat}, {os.cpu_count()} CPUs, "
        f"load average after each session {' '.join(f'{x:.1f}' for x in loads)}"
    )
    print(f"{'judges through':<40} {'wall s':>8} {'judge $':>10} {'judged':>7} {'undecided':>9} {'judge requests':>14}")
    for name, (wall, cost, judged, undecided, asked) in rows.items():
        print(f"{name:<40} {wall:>8.1f} {cost:>10.5f} {judged:>7} {undecided:>9} {asked:>14}")
    (api_wall, api_cost, *_), (cc_wall, cc_cost, *_) = rows.values()
    print(
        f"ratio Claude Code / API: wall {cc_wall / api_wall:.2f}x, judge cost {cc_cost / api_cost:.2f}x"
        if api_wall and api_cost
        else "ratio: n/a"
    )
    from pytest_plugin_eval.run.agent import bundled_claude

    sizes = prompt_sizes(bundled_claude())
    if sizes:
        print(
            f"one vote's prompt: {sizes[0]} characters asked directly, {sizes[1]} through Claude Code "
            f"({sizes[1] / sizes[0]:.1f}x: Claude Code's own system prompt and environment note ride along)"
        )
    print(json.dumps({"rows": rows, "promptChars": sizes}, default=str))


if __name__ == "__main__":
    main()

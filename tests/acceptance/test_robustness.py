"""Sessions that lose nothing: outputs checked before any run, one session per results folder and a fresh
ceiling each, interrupted runs recorded, a dead worker's run recorded, and nothing left behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers.e2e import GREETING_GRADERS, Suite

GOOD = {"all": ["Hello from the plugin."]}
SLOW = {"all": [{"text": "Hello from the plugin.", "delay": 6}]}
GREETING = {"greeting": GREETING_GRADERS["greeting"]}


def processes() -> dict[int, tuple[int, str]]:
    """pid → (parent pid, command line) of every process."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            out[int(entry.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), cmdline)
    return out


def descendants(pid: int) -> dict[int, str]:
    table, found, frontier = processes(), {}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, cmdline) in table.items():
            if ppid == parent and child not in found:
                found[child] = cmdline
                frontier.append(child)
    return found


def claude_runs(pid: int) -> list[int]:
    """The `claude` runs among a process's descendants. A run's own forks carry its command line until they exec,
    so a process whose parent is itself a run is not one: a busy machine gives a poll time to catch one."""
    table, found = processes(), descendants(pid)
    runs = {child for child, cmdline in found.items() if "stream-json" in cmdline}
    return [child for child in runs if table.get(child, (0, ""))[0] not in runs]


def wait_for(condition, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError("the condition never held")


def session(suite: Suite, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "evals", "-p", "no:cacheprovider", "--trust-plugin", "--scripted", *args],
        cwd=suite.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_outputs_that_cannot_be_written_stop_the_session_before_any_run(suite):
    suite.case("good", frontmatter={"runs": 1}, graders=GREETING, script=GOOD)
    (suite.root / "a-file").write_text("")
    (suite.root / "a-folder").mkdir()
    for args, said in (
        (["--json", "a-file/out.json"], "a-file is a file"),
        (["--output-dir", "a-file"], "that is a file, not a folder"),
        (["--report", "a-folder"], "that is a folder"),
        (["--output-dir", "/proc/plugin-eval-cannot-write-here"], "nothing was run"),
    ):
        run = suite.run(*args, json_out=False)
        assert run.rc == 1, (args, run.out)
        assert said in run.out + run.err, (args, run.out + run.err)
        assert "[with-plugin-1]" not in run.out  # no run started
    assert not (suite.root / "evals" / "results").exists()


def test_a_reused_output_dir_gets_a_fresh_ceiling_and_only_this_sessions_runs(suite):
    suite.case("good", frontmatter={"runs": 2}, graders=GREETING, script=GOOD)
    first = suite.run("--output-dir", "out", "--max-cost-usd", "0.0001")
    assert first.doc["skippedRuns"]  # the tiny ceiling was reached in the first session
    second = suite.run("--output-dir", "out", "--max-cost-usd", "0.0001")
    assert second.doc["cases"] and second.doc["cases"][0]["arms"]["with"]  # its own ceiling: a run started
    runs = sorted(p.name for p in (suite.root / "out" / "runs").rglob("*-*") if p.is_dir())
    started = [r["index"] for c in second.doc["cases"] for r in c["arms"]["with"]]
    assert len([r for r in runs if r.startswith("with-")]) == len(started)  # nothing left of the first session


def test_two_sessions_never_write_one_output_dir_at_once(suite):
    suite.case("slow", frontmatter={"runs": 1}, graders=GREETING, script=SLOW)
    first = session(suite, "--output-dir", "out", "--ablation", "none")
    wait_for(lambda: (suite.root / "out" / ".plugin-eval.lock").exists())
    second = suite.run("--output-dir", "out", "--ablation", "none")
    assert second.rc == 1 and "being written by another session" in second.out + second.err
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, out + err
    document = json.loads((suite.root / "out" / "aggregate-result.json").read_text())
    assert document["cases"][0]["arms"]["with"][0]["score"] == 1.0  # the first session's results are whole


def test_sigterm_with_runs_in_flight_records_them_interrupted_and_leaves_nothing(suite):
    suite.case("slow", frontmatter={"runs": 2}, graders=GREETING, script=SLOW)
    proc = session(suite, "--json", "out.json", "-j", "2")
    children = wait_for(lambda: claude_runs(proc.pid))
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, out + err
    document = json.loads((suite.root / "out.json").read_text())
    assert document["partial"] is True and document["partialReason"] == "interrupted"
    runs = [run for case in document["cases"] for arm in case["arms"].values() for run in arm]
    assert runs and any(run.get("errorKind") == "interrupted" for run in runs)
    assert all(run["score"] is None for run in runs if run.get("errorKind") == "interrupted")
    time.sleep(1)
    assert not any(Path(f"/proc/{pid}").exists() for pid in children)  # no claude child left


def interrupted_on_two_workers(suite: Suite) -> tuple[dict, str]:
    """Start the suite on two workers, SIGTERM it once both have an agent running, and return its document (partial:
    interrupted) and output, after checking that the session exits 143 and leaves no agent behind."""
    proc = session(suite, "--json", "out.json", "-n", "2")
    children = wait_for(lambda: len(found := claude_runs(proc.pid)) == 2 and found)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, out + err
    document = json.loads((suite.root / "out.json").read_text())
    assert document["partial"] is True and document["partialReason"] == "interrupted"
    time.sleep(1)
    assert not any(Path(f"/proc/{pid}").exists() for pid in children)  # no claude child left
    return document, out + err


def test_sigterm_before_any_run_came_back_from_two_workers_records_the_runs_in_flight(suite):
    suite.case("slow", frontmatter={"runs": 1}, graders=GREETING, script=SLOW)
    document, output = interrupted_on_two_workers(suite)
    assert len(document["cases"]) == 1, output
    [case] = document["cases"]
    assert {arm: [run["errorKind"] for run in runs] for arm, runs in case["arms"].items()} == {
        "with": ["interrupted"],
        "without": ["interrupted"],
    }
    assert list((suite.root / "evals" / "results").glob("*/aggregate-result.json")), output


def test_sigterm_with_trigger_runs_in_flight_on_two_workers_records_them_interrupted(suite):
    slow = [{"text": "Hello.", "delay": 6}]
    (suite.root / "evals" / "triggers.yaml").write_text(
        json.dumps(
            {"runs": 1, "skills": {"greet": {"should_fire": [{"query": q, "scripted": slow} for q in ("hi", "yo")]}}}
        )
    )
    document, output = interrupted_on_two_workers(suite)
    runs = {q["id"]: [r["errorKind"] for r in q["runs"]] for s in document["triggers"] for q in s["queries"]}
    assert runs == {"hi": ["interrupted"], "yo": ["interrupted"]}, output


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="runs are started ahead only with a core to spare")
def test_one_at_a_time_the_next_runs_agent_waits_ready_and_never_outlives_the_session(suite):
    suite.case("slow", frontmatter={"runs": 3}, graders=GREETING, script=SLOW)
    proc = session(suite, "--json", "out.json")  # one run at a time
    # While the first run waits for its (slow) model, the next run's claude is already started and waiting.
    children = wait_for(lambda: (found := claude_runs(proc.pid)) and len(found) == 2 and found)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, out + err
    document = json.loads((suite.root / "out.json").read_text())
    runs = [run for case in document["cases"] for arm in case["arms"].values() for run in arm]
    assert [run["errorKind"] for run in runs] == ["interrupted"]  # the run started ahead had not begun
    time.sleep(1)
    assert not any(Path(f"/proc/{pid}").exists() for pid in children)


def written(pid: int) -> int | None:
    """How much a child has written to its stdout (its trace file)."""
    try:
        return os.stat(f"/proc/{pid}/fd/1").st_size
    except OSError:
        return None


class ClaudeChildren:
    """Watches a session's `claude` children from a thread: when each was first seen and last seen alive. With
    `kill_waiting`, the first child started ahead (one that has written nothing while another runs) is killed
    while it waits."""

    def __init__(self, proc: subprocess.Popen, kill_waiting: bool = False):
        self.proc, self.kill_waiting = proc, kill_waiting
        self.seen: dict[int, list[float]] = {}  # pid → [first seen, last seen]
        self.killed: int | None = None
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        while self.proc.poll() is None:
            now = time.monotonic()
            alive = claude_runs(self.proc.pid)
            for pid in alive:
                self.seen.setdefault(pid, [now, now])[1] = now
            if self.kill_waiting and self.killed is None and len(alive) == 2:
                waiting = [pid for pid in alive if written(pid) == 0]  # nothing in its trace: no prompt yet
                if len(waiting) == 1 and now - self.seen[waiting[0]][0] > 1.0:
                    self.killed = waiting[0]
                    os.kill(self.killed, signal.SIGKILL)
            time.sleep(0.1)

    def longest_overlap(self) -> float:
        """The longest two children were alive at once (one waiting for its prompt while the other ran)."""
        spans = sorted(self.seen.values())
        return max((min(b[1], a[1]) - b[0] for a, b in zip(spans, spans[1:], strict=False)), default=0.0)


SLOW_4 = {"all": [{"text": "Hello from the plugin.", "delay": 4}]}  # a real model's seconds per answer


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="runs are started ahead only with a core to spare")
def test_a_run_started_ahead_waits_for_its_prompt_as_long_as_the_model_keeps_the_run_before_busy(suite):
    # Claude Code gives up on a piped prompt that has not begun after 3 s; each run here takes more than 4.
    suite.case("slow", frontmatter={"runs": 3}, graders=GREETING, script=SLOW_4)
    proc = session(suite, "--json", "out.json", "-k", "with-plugin")
    children = ClaudeChildren(proc)
    out, err = proc.communicate(timeout=300)
    children.thread.join(5)
    assert proc.returncode == 0, out + err
    runs = json.loads((suite.root / "out.json").read_text())["cases"][0]["arms"]["with"]
    assert [(run["score"], run.get("error")) for run in runs] == [(1.0, None)] * 3
    assert len(children.seen) == 3  # one child per run: each started ahead was used, none replaced
    assert children.longest_overlap() > 3.5  # and one waited longer than Claude Code waits for a first byte


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="runs are started ahead only with a core to spare")
def test_a_run_whose_child_died_while_started_ahead_starts_afresh_and_is_not_a_failed_run(suite):
    suite.case("slow", frontmatter={"runs": 2}, graders=GREETING, script=SLOW_4)
    proc = session(suite, "--json", "out.json", "-k", "with-plugin")
    children = ClaudeChildren(proc, kill_waiting=True)
    out, err = proc.communicate(timeout=300)
    children.thread.join(5)
    assert children.killed is not None, "no run was started ahead"
    assert proc.returncode == 0, out + err
    runs = json.loads((suite.root / "out.json").read_text())["cases"][0]["arms"]["with"]
    assert [(run["score"], run.get("error")) for run in runs] == [(1.0, None)] * 2
    assert len(children.seen) == 3  # the killed child was replaced by a fresh one


def test_a_worker_killed_mid_run_is_recorded_and_the_session_is_partial(suite):
    suite.case("slow", frontmatter={"runs": 2}, graders=GREETING, script=SLOW)
    proc = session(suite, "--json", "out.json", "-n", "2")

    def a_worker_in_a_run():
        for pid, cmdline in descendants(proc.pid).items():
            if "stream-json" in cmdline:
                worker = processes().get(pid, (0, ""))[0]
                while worker and "python" not in processes().get(worker, (0, ""))[1]:
                    worker = processes().get(worker, (0, ""))[0]
                return worker, pid
        return None

    worker, child = wait_for(a_worker_in_a_run)
    os.kill(worker, signal.SIGKILL)
    out, err = proc.communicate(timeout=300)
    assert (suite.root / "out.json").exists(), out + err
    document = json.loads((suite.root / "out.json").read_text())
    runs = [run for case in document["cases"] for arm in case["arms"].values() for run in arm]
    assert any(run.get("errorKind") == "worker_lost" for run in runs), out + err
    assert document["partial"] is True and document["partialReason"] == "worker_lost"
    assert proc.returncode == 2
    time.sleep(1)
    assert not Path(f"/proc/{child}").exists()  # the dead worker's claude did not outlive it


def test_a_killed_workers_workspace_is_removed_with_its_lost_run(suite, tmp_path_factory, monkeypatch):
    temp = tmp_path_factory.mktemp("session-temp")
    monkeypatch.setenv("TMPDIR", str(temp))  # this session's scratch folder alone is in it
    # 5 runs per arm: after the kill, 9 runs of 6 s (two at a time) keep the session going well past the removal,
    # however slowly a loaded machine lets the controller notice the lost worker
    suite.case("slow", frontmatter={"runs": 5}, graders=GREETING, script=SLOW)
    proc = session(suite, "--json", "out.json", "-n", "2")

    def a_worker_in_a_run():
        for pid, cmdline in descendants(proc.pid).items():
            if "stream-json" in cmdline:
                worker = processes().get(pid, (0, ""))[0]
                while worker and "python" not in processes().get(worker, (0, ""))[1]:
                    worker = processes().get(worker, (0, ""))[0]
                return worker, pid
        return None

    worker, child = wait_for(a_worker_in_a_run)
    workspace = Path(f"/proc/{child}/cwd").resolve().parents[1]  # <workspace>/home/cwd
    tmp = (workspace / "tmp").resolve()
    assert workspace.name.startswith("claude-eval-") and tmp.is_dir()
    os.kill(worker, signal.SIGKILL)
    # Removed when the controller records the lost run, while the other runs go on
    # in workspaces beside it: not only when the session's scratch folder goes at the end.
    wait_for(lambda: not workspace.exists() and not tmp.exists())
    assert workspace.parent.is_dir() and proc.poll() is None
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 2, out + err
    assert list(temp.iterdir()) == []

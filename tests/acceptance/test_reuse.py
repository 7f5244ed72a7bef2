"""--reuse-baseline through the real binary and the scripted endpoint (issue 26 item 1): a session takes the
without-plugin runs of an earlier one when nothing they depend on changed, grades them again, and runs only the
missing ones; each changed condition refuses them, and the notice says which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.e2e import GREETING_GRADERS, GREETING_SCRIPT, Suite

from pytest_plugin_eval.run.agent import find_claude


class Claude:
    """A `--claude` wrapper around the real binary: it logs each agent it starts (with or without the plugin)
    and answers `--version` with what the test says."""

    def __init__(self, folder: Path, version: str = "2.1.328"):
        self.log = folder / "agents.log"
        self.version_file = folder / "version"
        self.path = folder / "claude"
        self.version = version
        self.path.write_text(
            "#!/bin/sh\n"
            f'if [ "$1" = "--version" ]; then echo "$(cat {self.version_file}) (Claude Code)"; exit 0; fi\n'
            f'case " $* " in *" --plugin-dir"*) echo with >> {self.log};; *) echo without >> {self.log};; esac\n'
            f'exec {find_claude(None)} "$@"\n'
        )
        self.path.chmod(0o755)

    @property
    def version(self) -> str:
        return self.version_file.read_text().strip()

    @version.setter
    def version(self, value: str) -> None:
        self.version_file.write_text(value + "\n")

    def started(self) -> dict[str, int]:
        """Agents started since the last call, by arm."""
        lines = self.log.read_text().split() if self.log.exists() else []
        self.log.unlink(missing_ok=True)
        return {arm: lines.count(arm) for arm in ("with", "without")}


@pytest.fixture
def claude(tmp_path) -> Claude:
    return Claude(tmp_path)


def greeting(suite: Suite, runs: int = 2, **frontmatter) -> Path:
    return suite.case(
        "greets", frontmatter={"runs": runs, **frontmatter}, graders=GREETING_GRADERS, script=GREETING_SCRIPT
    )


def session(suite: Suite, claude: Claude, *args: str):
    return suite.run("--threshold", "0", "--claude", str(claude.path), *args)


def without(run) -> list[dict]:
    return run.case("greets")["arms"]["without"]


def test_a_second_session_reuses_the_baseline_and_runs_no_agent_without_the_plugin(suite, claude):
    greeting(suite)
    first = session(suite, claude)
    assert claude.started()["without"] == 2
    assert all(run["conditions"]["claudeCode"] == "2.1.328" for run in without(first))
    second = session(suite, claude, "--reuse-baseline", "-v", "--md", "summary.md")
    assert second.rc == 0, second.out
    assert "greets[no-plugin-1] PASSED score 0.00 ✗ greeting · reused" in second.out
    assert claude.started()["without"] == 0
    runs = without(second)
    assert [r["reusedFrom"]["session"] for r in runs] == [first.doc["startedAt"]] * 2
    assert [r["reusedFrom"]["index"] for r in runs] == [1, 2]
    assert [r["score"] for r in runs] == [r["score"] for r in without(first)]  # graded again, the same verdicts
    assert all(r["costUsd"] == r["judgeCostUsd"] for r in runs)  # this session paid no agent for them
    assert second.case("greets")["aggregates"]["scoreWithout"] == first.case("greets")["aggregates"]["scoreWithout"]
    assert any("reused from the session of" in n for n in second.doc["notices"])
    # the trace was kept in the new results folder, so a later session (or --regrade) finds it there
    assert all(Path(r["tracePath"]).is_file() and first.doc["startedAt"] not in r["tracePath"] for r in runs)
    # the table, the Markdown summary and the HTML report mark W/OUT as reused
    assert "0.00↺" in second.out and "2 of 2 without-plugin run(s) reused" in second.out
    assert "0.00↺" in (suite.root / "summary.md").read_text()
    report = Path(runs[0]["tracePath"]).parents[3] / "report.html"
    assert f"reused from the session of {first.doc['startedAt']} (run 1)" in report.read_text()


def test_more_runs_than_stored_run_only_the_missing_ones_and_the_ini_setting_turns_it_on(suite, claude):
    greeting(suite)
    session(suite, claude)
    claude.started()
    (suite.root / "pytest.ini").write_text("[pytest]\neval_reuse_baseline = true\n")
    third = session(suite, claude, "--runs", "3")
    assert claude.started()["without"] == 1
    assert [bool(r.get("reusedFrom")) for r in without(third)] == [True, True, False]
    off = session(suite, claude, "--no-reuse-baseline")
    assert claude.started()["without"] == 2 and not any(r.get("reusedFrom") for r in without(off))


def test_each_changed_condition_refuses_the_stored_runs_and_says_why(suite, claude):
    folder = greeting(suite)
    (folder / "input.txt").write_text("one\n")
    (folder / "case.yaml").write_text('schema_version: "1.0"\nname: greets\ncontext:\n  files:\n    - input.txt\n')
    session(suite, claude, "--reuse-baseline")
    model: list[str] = []

    def edit(name: str, old: str, new: str) -> None:
        (folder / name).write_text((folder / name).read_text().replace(old, new))

    # One change at a time; each session is the newest the next one is compared with.
    changes = [
        (lambda: edit("prompt.md", "Say hello.", "Say hello, please."), "prompt changed"),
        (lambda: edit("input.txt", "one", "two"), "context files changed"),
        (lambda: edit("prompt.md", "runs: 2", "runs: 2\ntimeout_seconds: 200"), "max turns or timeout changed"),
        (lambda: model.append("claude-opus-4-5"), "→ claude-opus-4-5"),
        (lambda: setattr(claude, "version", "2.1.330"), "Claude Code 2.1.328 → 2.1.330"),
    ]
    for change, said in changes:
        claude.started()
        change()
        again = session(suite, claude, "--reuse-baseline", *(["--model", model[0]] if model else []))
        assert again.rc == 0, again.out
        assert claude.started()["without"] == 2, said
        assert not any(r.get("reusedFrom") for r in without(again))
        notice = next(n for n in again.doc["notices"] if "not reused" in n)
        assert said in notice and notice.count("changed") + notice.count("→") == 1, notice
    # nothing changed since the last session: its runs stand
    claude.started()
    last = session(suite, claude, "--reuse-baseline", "--model", model[0])
    assert claude.started()["without"] == 0 and all(r.get("reusedFrom") for r in without(last))


def test_a_new_isolation_version_refuses_the_stored_runs(suite, claude, monkeypatch):
    greeting(suite)
    session(suite, claude)
    first = next((suite.root / "evals" / "results").glob("*/aggregate-result.json"))
    data = json.loads(first.read_text())
    for run in data["cases"][0]["arms"]["without"]:
        run["conditions"]["isolation"] = 0  # as a harness before the last bump recorded it
    first.write_text(json.dumps(data))
    claude.started()
    again = session(suite, claude, "--reuse-baseline")
    assert claude.started()["without"] == 2
    assert any("harness isolation version 0 → 1" in n for n in again.doc["notices"]), again.doc["notices"]


def test_regrade_and_lf_and_two_workers_with_reuse(suite, claude):
    folder = greeting(suite)
    first = session(suite, claude)
    # a grader of the without arm changes: the reused runs are graded with it
    (folder / "graders" / "polite.md").write_text("---\ntype: regex\npattern: ^Hi\n---\n")
    claude.started()
    second = session(suite, claude, "--reuse-baseline", "-n", "2")
    assert second.rc == 0, second.out
    assert claude.started()["without"] == 0
    polite = [next(g for g in r["graders"] if g["name"] == "polite") for r in without(second)]
    assert [g["passed"] for g in polite] == [True, True]
    # --regrade of the session with reused runs: its own folder holds their files
    stored = Path(without(second)[0]["tracePath"]).parents[3]
    regraded = session(suite, claude, "--regrade", str(stored))
    assert claude.started() == {"with": 0, "without": 0}
    assert [r["reusedFrom"]["session"] for r in without(regraded)] == [first.doc["startedAt"]] * 2
    assert [r["score"] for r in without(regraded)] == [r["score"] for r in without(second)]
    # a chain: a third session reuses the reused runs, still naming the session where the agent made them
    third = session(suite, claude, "--reuse-baseline")
    assert claude.started()["without"] == 0
    assert [r["reusedFrom"]["session"] for r in without(third)] == [first.doc["startedAt"]] * 2
    # --lf with reuse: the failed with runs run again, the baseline stays the reused one
    (folder / "graders" / "greeting.md").write_text("---\ntype: regex\npattern: never-said\n---\n")
    failing = suite.pytester.runpytest_subprocess(
        "evals", "--trust-plugin", "--scripted", "--claude", str(claude.path), "--reuse-baseline"
    )
    assert failing.ret == 1
    claude.started()
    (folder / "graders" / "greeting.md").write_text(GREETING_GRADERS["greeting"].replace("        ", "").lstrip())
    lf = suite.pytester.runpytest_subprocess(
        "evals",
        "--trust-plugin",
        "--scripted",
        "--claude",
        str(claude.path),
        "--reuse-baseline",
        "--lf",
        "--json",
        "lf.json",
    )
    assert claude.started()["without"] == 0, lf.stdout.str()
    doc = json.loads((suite.root / "lf.json").read_text())
    runs = doc["cases"][0]["arms"]["without"]
    assert len(runs) == 2 and all(r["reusedFrom"]["session"] == first.doc["startedAt"] for r in runs)


HAIKU, SONNET, OPUS = "claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5"


def by_model(run) -> dict[str, dict]:
    """A matrix session's documents (--json: one per model), by model."""
    return {doc["suite"]["modelOverride"]: doc for doc in run.doc["suites"]}


def test_a_model_matrix_reuses_each_models_own_baseline_and_a_model_alone_finds_its_runs_in_a_matrix(suite, claude):
    greeting(suite)
    first = session(suite, claude, "--model", f"{HAIKU},{SONNET}")
    assert first.rc == 0, first.out
    assert claude.started()["without"] == 4
    made = {model: doc["startedAt"] for model, doc in by_model(first).items()}
    again = session(suite, claude, "--model", f"{HAIKU},{SONNET}", "--reuse-baseline")
    assert again.rc == 0, again.out
    assert claude.started() == {"with": 4, "without": 0}
    for model, doc in by_model(again).items():
        runs = doc["cases"][0]["arms"]["without"]
        assert [r["reusedFrom"]["session"] for r in runs] == [made[model]] * 2
        assert {r["conditions"]["model"] for r in runs} == {model}  # each model's own runs, not the other's
    # one model alone finds its runs in the matrix's folder; a model new to the suite runs afresh and says why
    alone = session(suite, claude, "--model", SONNET, "--reuse-baseline")
    assert claude.started()["without"] == 0, alone.out
    assert all(r["reusedFrom"]["session"] == made[SONNET] for r in without(alone))
    mixed = session(suite, claude, "--model", f"{HAIKU},{OPUS}", "--reuse-baseline")
    assert mixed.rc == 0, mixed.out
    assert claude.started()["without"] == 2
    docs = by_model(mixed)
    assert all(r.get("reusedFrom") for r in docs[HAIKU]["cases"][0]["arms"]["without"])
    assert not any(r.get("reusedFrom") for r in docs[OPUS]["cases"][0]["arms"]["without"])
    assert any(f"→ {OPUS}" in n and "run afresh" in n for n in docs[OPUS]["notices"]), docs[OPUS]["notices"]

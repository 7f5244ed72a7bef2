"""The loop of `plugin-eval tune` (tune/loop.py) with a fake measurer and proposer: what the proposer sees (train
only), early stops, the choice, the siblings' check, the ceiling, and the refusals before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from pytest_plugin_eval.cli.commands.tune import parse, tune_command
from pytest_plugin_eval.tune.loop import TuneError, Tuning, git_dirty
from pytest_plugin_eval.tune.measure import Measured
from pytest_plugin_eval.tune.propose import Proposer
from pytest_plugin_eval.tune.result import Cost, Original, TuneResult
from pytest_plugin_eval.tune.rules import SetTooSmall

N = 6


def plugin(tmp_path: Path, fire: int = N, miss: int = N, sibling: bool = False) -> Path:
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter"}))
    (root / "skills" / "greet").mkdir(parents=True)
    (root / "skills" / "greet" / "SKILL.md").write_text("---\nname: greet\ndescription: Greets.\n---\nbody\n")
    skills = {
        "greet": {
            "should_fire": [{"query": f"fire query {i}", "id": f"f{i}"} for i in range(fire)],
            "should_not_fire": [{"query": f"miss query {i}", "id": f"m{i}"} for i in range(miss)],
        }
    }
    if sibling:
        (root / "skills" / "bye").mkdir(parents=True)
        (root / "skills" / "bye" / "SKILL.md").write_text("---\nname: bye\ndescription: Says bye.\n---\nbody\n")
        skills["bye"] = {"should_fire": [{"query": "sign off", "id": "b0"}]}
    (root / "evals").mkdir()
    (root / "evals" / "triggers.yaml").write_text(yaml.safe_dump({"runs": 1, "skills": skills}))
    return root


class FakeMeasurer:
    """Fire rates from `behaviour(description, query id)`; each run costs `cost`."""

    def __init__(self, behaviour, cost: float = 0.001, taken: dict | None = None):
        self.behaviour, self.cost, self.taken = behaviour, cost, taken or {}
        self.calls: list[tuple] = []

    def measure(self, description, trigger_set, ids, ceiling=None):
        self.calls.append((description, trigger_set.name, list(ids)))
        rates = {q: self.behaviour(description, q) for q in ids}
        taken = {q: self.taken.get((description, q), {"none": 1}) for q in ids}
        return Measured(rates, {q: (int(r), 1) for q, r in rates.items()}, taken, self.cost * len(ids), len(ids), 0, 0)


def tuning(root: Path, *extra: str) -> Tuning:
    return Tuning(parse(["greet", str(root), "--trust-plugin", *extra]))


def run_loop(t: Tuning, measurer, replies: list[str]) -> tuple[TuneResult, list[str]]:
    prompts: list[str] = []

    def ask(text, number):
        prompts.append(text)
        return f"<description>{replies[min(number, len(replies)) - 1]}</description>", 0.01, None

    t.measurer, t.proposer = measurer, Proposer(ask)
    result = TuneResult(
        "greeter:greet",
        "greet",
        "evals/triggers.yaml",
        0,
        queries={},
        original=Original("Greets."),
        cost=Cost(1.0, 10, None),
    )
    result.queries = {q: {"part": t.split.part_of(q)} for q in t.labels}
    t.loop(result)
    return result, prompts


def right(description: str, q: str) -> float:
    """`Better…` is right on every query; anything else is wrong on every one."""
    fires = q.startswith("f")
    return float(fires) if description.startswith("Better") else float(not fires)


def test_the_proposer_sees_train_failures_only(tmp_path):
    t = tuning(plugin(tmp_path))
    result, prompts = run_loop(t, FakeMeasurer(right), ["Better one."])
    assert result.outcome == "improved" and result.winner == 0
    train_fires = [q for q in t.split.train if q.startswith("f")]
    for q in train_fires:
        assert f"should fire, fired 0/1: fire query {q[1:]}" in prompts[0]
    for q in (*t.split.validation, *t.split.test):
        text = f"{'fire' if q.startswith('f') else 'miss'} query {q[1:]}"
        assert all(text not in p for p in prompts), q
    assert result.stop == "train is perfect after round 1"
    assert result.original.test is not None and result.winner_test is not None
    assert result.test_margin is not None and result.test_margin.margin == 1.0


def test_nothing_improving_on_train_stops_and_keeps_the_original(tmp_path):
    def half(description, q):  # the candidates are right on one validation query more, no train change
        return 0.0

    result, _ = run_loop(tuning(plugin(tmp_path), "--rounds", "3"), FakeMeasurer(half), ["Other.", "Third."])
    assert result.stop == "nothing improved on train in round 1" and len(result.candidates) == 2
    assert result.outcome == "flat"  # everything at 0


def test_rounds_continue_while_train_improves(tmp_path):
    t = tuning(plugin(tmp_path), "--rounds", "3", "--candidates", "1")
    first_train = next(q for q in t.split.train if q.startswith("f"))

    def gradual(description, q):
        if description == "Step one.":
            return 1.0 if q == first_train else right("Greets.", q)
        return right(description, q)

    measurer = FakeMeasurer(gradual)
    result, prompts = run_loop(t, measurer, ["Step one.", "Better two."])
    assert [c.description for c in result.candidates] == ["Step one.", "Better two."]
    assert '"Step one."' in prompts[1] and "Step one." in prompts[1].split("<current_description>")[1]
    assert result.winner == 1


def test_a_thief_is_rejected(tmp_path):
    t = tuning(plugin(tmp_path, sibling=True))
    measurer = FakeMeasurer(right, taken={("Better one.", "b0"): {"greeter:greet": 1}})
    result, _ = run_loop(t, measurer, ["Better one."])
    assert result.outcome == "thief" and result.winner is None
    assert [(s.skill, s.stolen) for s in result.siblings] == [("greeter:bye", ["b0"])]
    assert ("Better one.", "bye", ["b0"]) in measurer.calls  # the sibling's should-fire queries, with the winner


def test_a_thief_is_passed_over_for_the_next_better_candidate(tmp_path):
    t = tuning(plugin(tmp_path, sibling=True), "--candidates", "2")

    def both_right(description, q):  # "Better one." and "Better two." are both right everywhere
        return right("Better" if description.startswith("Better") else description, q)

    measurer = FakeMeasurer(both_right, taken={("Better one.", "b0"): {"greeter:greet": 1}})
    result, _ = run_loop(t, measurer, ["Better one.", "Better two."])
    assert result.outcome == "improved" and result.best is not None and result.best.description == "Better two."
    assert [(s.skill, s.stolen) for s in result.siblings] == [("greeter:bye", [])]  # the winner's check
    assert "candidate 1 takes queries of greeter:bye (1): passed over" in result.notes
    assert ("Better two.", "bye", ["b0"]) in measurer.calls


def test_the_ceiling_stops_before_the_next_step(tmp_path):
    t = tuning(plugin(tmp_path), "--max-cost-usd", "0.005")
    result, prompts = run_loop(t, FakeMeasurer(right, cost=0.001), ["Better one."])
    assert result.outcome == "stopped" and "cost ceiling" in result.stop
    assert prompts == [] and result.candidates == []  # 8 runs at $0.001 passed $0.005: no proposer call


def test_a_set_too_small_is_refused_with_what_to_add(tmp_path):
    with pytest.raises(SetTooSmall, match=r"3 should_not_fire \(add 3\)"):
        tuning(plugin(tmp_path, miss=3))


def test_refusals_before_anything_runs(tmp_path, capsys):
    root = plugin(tmp_path)
    assert tune_command(["greet", str(root)]) == 1
    assert "--trust-plugin" in capsys.readouterr().err
    assert tune_command(["nope", str(root), "--trust-plugin"]) == 1
    assert "no trigger set for 'nope'" in capsys.readouterr().err
    with pytest.raises(TuneError, match="not in a git work tree"):
        tuning(root, "--apply")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--runs", "0"], "Error: --runs must be a whole number above 0"),
        (["--runs", "auto:x"], "Error: --runs: "),
        (["--max-cost-usd", "-1"], "Error: --max-cost-usd must be a number, 0 or more"),
        (["--max-cost-usd", "nan"], "Error: --max-cost-usd must be a number, 0 or more"),
    ],
)
def test_runs_and_the_ceiling_are_read_as_a_session_reads_them(tmp_path, capsys, argv, message):
    assert tune_command(["greet", str(plugin(tmp_path)), "--trust-plugin", *argv]) == 1
    assert capsys.readouterr().err.startswith(message)


@pytest.mark.parametrize(("runs", "priced"), [(None, 1), ("3", 3), ("2.7", 2), ("auto", 2)])
def test_the_runs_priced_are_the_sessions(tmp_path, runs, priced):
    """--runs 2.7 runs 2 (truncated, as a session does), where it was priced as auto; auto counts at most double."""
    t = tuning(plugin(tmp_path), *(["--runs", runs] if runs else []))
    assert t.shape().runs == priced


def test_a_trigger_set_whose_queries_name_the_skill_is_refused(tmp_path, capsys):
    root = plugin(tmp_path)
    path = root / "evals" / "triggers.yaml"
    data = yaml.safe_load(path.read_text())
    data["skills"]["greet"]["should_fire"][0]["query"] = "use the greet skill to welcome Ana"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(
        TuneError, match=r"1 query of greet name what Claude should pick \(f0: names skill greeter:greet"
    ):
        tuning(root)
    assert tune_command(["greet", str(root), "--trust-plugin"]) == 1  # before any run is paid for
    assert "evals/triggers.yaml: 1 query of greet name what Claude should pick" in capsys.readouterr().err
    # the near-miss: the word in a sentence of the user's own is no name
    data["skills"]["greet"]["should_fire"][0]["query"] = "greet Ana warmly, she just joined"
    path.write_text(yaml.safe_dump(data))
    assert tuning(root).setup.target.name == "greet"


def test_git_dirty(tmp_path):
    import subprocess

    root = plugin(tmp_path)
    assert git_dirty(root) == ""  # no work tree
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    assert "SKILL.md" in (git_dirty(root) or "") or "skills/" in (git_dirty(root) or "")


def test_an_overfitted_candidate_is_nothing_better_not_flat(tmp_path):
    t = tuning(plugin(tmp_path), "--candidates", "1")
    train = set(t.split.train)

    def overfit(description, q):  # right on train only; validation at 0 like the original
        return float(q.startswith("f") and q in train) if description == "Overfit." else 0.0

    result, _ = run_loop(t, FakeMeasurer(overfit), ["Overfit."])
    assert result.candidates[0].train.score == 1.0 and result.outcome == "nothing_better"


def test_an_original_perfect_on_train_is_not_proposed_against(tmp_path):
    t = tuning(plugin(tmp_path))
    result, prompts = run_loop(t, FakeMeasurer(lambda d, q: float(q.startswith("f"))), ["Better one."])
    assert prompts == [] and result.candidates == [] and result.outcome == "nothing_better"
    assert result.stop.startswith("train is already perfect") and result.original.test is not None

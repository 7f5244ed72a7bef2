"""`plugin-eval compare OLD NEW --pairwise` through two real sessions (the bundled Claude Code, the scripted
endpoint): each case's with-arm runs paired, a scripted judge asked in both orders — one that agrees with itself
(a win, a loss), one swayed by position (a tie), one with no verdict (no decision) — in the terminal, the JSON
document, Markdown and HTML; and the cost ceiling."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from helpers.e2e import GREETING_GRADERS

PLUGIN_EVAL = [sys.executable, "-m", "pytest_plugin_eval.cli.main"]

PREFERS_B = "VERDICT: B\nREASON: Response B names the guest."
PREFERS_A = "VERDICT: A\nREASON: Response A names the guest."
JUDGED = {
    # Both orders point at NEW's output (shown second in old_first, first in new_first): a win.
    "agree": {"old_first": PREFERS_B, "new_first": PREFERS_A},
    # Both orders point at OLD's output: a loss.
    "regress": {"old_first": PREFERS_A, "new_first": PREFERS_B},
    # Always the first shown, whichever it is: position bias, a tie.
    "biased": "VERDICT: A\nREASON: The first one reads better.",
    # Never a verdict: no decision.
    "mute": "Both responses have their merits; I would rather not choose.",
}


def plugin_eval(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("GITHUB_STEP_SUMMARY", "ANTHROPIC_API_KEY")}
    return subprocess.run([*PLUGIN_EVAL, *args], cwd=cwd, capture_output=True, text=True, timeout=600, env=environment)


def script(answer: str, pairwise=None) -> dict:
    out: dict = {
        "with": [{"tool": "Skill", "input": {"skill": "greeter:greet"}}, {"text": f"Hello from the plugin, {answer}."}],
        "without": [{"text": "Hi there."}],
    }
    if pairwise is not None:
        out["pairwise"] = pairwise
    return out


def two_sessions(suite) -> None:
    for name in (*JUDGED, "unscripted"):
        runs = 3 if name == "agree" else 2
        suite.case(name, frontmatter={"runs": runs}, graders=GREETING_GRADERS, script=script("friend"))
    first = suite.run("--output-dir", "s1", "-j", "4")
    assert first.rc == 0, first.out
    for name, answers in (*JUDGED.items(), ("unscripted", None)):
        folder = suite.root / "evals" / name
        if name == "agree":  # NEW runs fewer times: the pairing keeps the first 2 of OLD's 3
            (folder / "prompt.md").write_text("---\nruns: 2\n---\nSay hello.\n")
        (folder / "scripted.yaml").write_text(yaml.safe_dump(script("dear Ada", answers), sort_keys=False))
    second = suite.run("--output-dir", "s2", "-j", "4")
    assert second.rc == 0, second.out


def test_pairwise_wins_need_both_orders_ties_come_from_position_and_a_mute_judge_decides_nothing(suite):
    two_sessions(suite)
    cli = plugin_eval(
        suite.root,
        "compare",
        "s1",
        "s2",
        "--pairwise",
        "--scripted",
        "--json",
        "cmp.json",
        "--md",
        "cmp.md",
        "--html",
        "cmp.html",
    )
    assert cli.returncode == 0, cli.stderr
    doc = json.loads((suite.root / "cmp.json").read_text())["pairwise"]
    cases = {c["name"]: c for c in doc["cases"]}
    assert (cases["agree"]["wins"], cases["agree"]["ties"], cases["agree"]["losses"]) == (2, 0, 0)
    assert "OLD has 3 with-arm run(s), NEW 2: the first 2 of each are paired" in cases["agree"]["note"]
    assert (cases["regress"]["wins"], cases["regress"]["losses"]) == (0, 2)
    assert (cases["biased"]["ties"], cases["biased"]["wins"], cases["biased"]["losses"]) == (2, 0, 0)
    biased = cases["biased"]["pairs"][0]
    assert [a["preferred"] for a in biased["answers"]] == ["old", "new"]
    assert biased["why"].startswith("the orders disagree")
    for silent in ("mute", "unscripted"):
        assert cases[silent]["noDecision"] == 2 and cases[silent]["decided"] == 0, silent
        assert cases[silent]["winRate"] is None and cases[silent]["verdict"] is None
    mute = cases["mute"]["pairs"][0]
    assert mute["why"] == "no verdict in the old_first and new_first answers (their replies below)"
    assert mute["answers"][0]["reason"].startswith("no verdict in the reply: 'Both responses have their merits")
    assert "no pairwise: answers in scripted.yaml" in cases["unscripted"]["pairs"][0]["answers"][1]["reason"]
    overall = doc["overall"]
    assert (overall["wins"], overall["ties"], overall["losses"], overall["noDecision"]) == (2, 2, 2, 4)
    assert overall["winRate"] == 0.5 and overall["verdict"] == "no_detectable_change"
    assert cases["agree"]["pairs"][0]["answers"][0]["reason"] == "Response B names the guest"

    out = cli.stdout
    assert "pairwise: 10 pair(s) in 5 case(s), 20 judge call(s) to claude-haiku-5-5 (the scripted endpoint)" in out
    section = out.split("pairwise: NEW's output against OLD's", 1)[1]
    agree = next(line for line in section.splitlines() if line.startswith("agree "))
    assert "2 · 0 · 0" in agree and "1.00" in agree
    assert "pair 1 (OLD run 1 · NEW run 1): tie — the orders disagree" in section
    assert "old_first → new: Response B names the guest" in section
    assert "pairwise overall: 2 win · 2 tie · 2 loss · 4 no decision · win rate 0.50" in section

    md = (suite.root / "cmp.md").read_text()
    assert "## Pairwise: NEW against OLD, judged blind in both orders" in md
    assert "| agree | 2 | 0 | 0 | 0 | 1.00 |" in md and "| mute | 0 | 0 | 0 | 2 | – | – | no decided pair |" in md
    page = (suite.root / "cmp.html").read_text()
    assert 'id="pairwise"' in page and "the orders disagree" in page and 'id="comparison"' in page


def test_the_cost_ceiling_stops_judging_before_a_pair_could_pass_it(suite):
    suite.case("agree", frontmatter={"runs": 2}, graders=GREETING_GRADERS, script=script("friend", JUDGED["agree"]))
    assert suite.run("--output-dir", "s1", "-j", "2").rc == 0
    assert suite.run("--output-dir", "s2", "-j", "2").rc == 0
    cli = plugin_eval(suite.root, "compare", "s1", "s2", "--pairwise", "--scripted", "--max-cost-usd", "0", "--json")
    assert cli.returncode == 0, cli.stderr
    doc = json.loads(cli.stdout)["pairwise"]
    assert doc["costUsd"] == 0 and doc["maxCostUsd"] == 0 and doc["estimateUsd"] > 0
    assert doc["stopped"].startswith("cost ceiling $0 (--max-cost-usd) reached")
    pairs = doc["cases"][0]["pairs"]
    assert all(p["outcome"] == "no_decision" and p["notJudged"] and not p["answers"] for p in pairs)
    assert "the estimate is above --max-cost-usd $0: each pair is judged only while" in cli.stderr
    assert "⚠ cost ceiling $0" in cli.stderr

    # Without --scripted, runs made with it are refused: their judge would be a real model.
    real = plugin_eval(suite.root, "compare", "s1", "s2", "--pairwise")
    assert real.returncode == 1 and "add --scripted" in real.stderr
    # A results JSON file has no traces to show the judge.
    files = plugin_eval(suite.root, "compare", "s1/aggregate-result.json", "s2", "--pairwise", "--scripted")
    assert files.returncode == 1 and "name OLD's folder" in files.stderr
    alone = plugin_eval(suite.root, "compare", "s1", "s2", "--scripted")
    assert alone.returncode == 1 and "only apply to --pairwise" in alone.stderr

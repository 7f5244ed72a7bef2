"""What `compare --pairwise` reads before it asks a judge (analysis/pairwise.py): the script of a case folder or of an
evals.json eval, the rubric, and the refusals (a scripted session judged for real, no credentials)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from helpers.documents import case_result as made
from helpers.documents import suite_result

from pytest_plugin_eval.analysis.pairwise import PairwiseRefused, check_judge, rubric_of, script_of
from pytest_plugin_eval.results.model import GraderInfo


def case_result(name, runs, dir=None, source="prose", **fields):
    return dataclasses.replace(made(name, runs, **fields), dir=dir or f"evals/{name}", source=source)


def test_a_case_folders_script_and_an_evals_json_evals_entry_are_found_where_the_session_read_them(tmp_path):
    root = tmp_path / "p"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    (root / "evals" / "greet").mkdir(parents=True)
    (root / "evals" / "greet" / "scripted.yaml").write_text('with: ["hi"]\npairwise: "VERDICT: A"\n')
    skill = root / "skills" / "s"
    (skill / "evals").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\nbody\n")
    evals = [{"id": 1, "prompt": "p", "expectations": ["e"]}, {"id": 2, "prompt": "q", "expectations": ["f"]}]
    (skill / "evals" / "evals.json").write_text(json.dumps({"evals": evals}))
    (skill / "evals" / "scripted.yaml").write_text('1: {pairwise: "VERDICT: B"}\ndefault: {pairwise: "VERDICT: TIE"}\n')

    folder = case_result("greet", [1.0], dir="evals/greet")
    assert script_of(str(root), folder).pairwise_reply("new_first", 1).blocks[0].text == "VERDICT: A"
    for eval_id, reply in (("1", "VERDICT: B"), ("2", "VERDICT: TIE")):
        case = case_result(f"s/{eval_id}", [1.0], dir=f"evals/skill-evals/s/{eval_id}", source="skill_creator")
        assert script_of(str(root), case).pairwise_reply("old_first", 1).blocks[0].text == reply
    assert script_of(str(root), case_result("gone", [1.0], dir="evals/gone")) is None


def test_the_rubric_is_the_llm_graders_criteria():
    graders = [GraderInfo("names", "llm", 1, {}, markdown="It names Ada"), GraderInfo("re", "regex", 1, {"p": "x"})]
    assert rubric_of(case_result("c", [1.0], graders=graders)) == ["It names Ada"]


def test_scripted_sessions_need_scripted_and_a_real_judge_needs_credentials():
    scripted, real = suite_result(case_result("c", [1.0]), scripted=True), suite_result(case_result("c", [1.0]))
    with pytest.raises(PairwiseRefused, match="OLD's runs were made with --scripted; add --scripted"):
        check_judge(scripted, real, scripted=False, environ={"ANTHROPIC_API_KEY": "k"})
    with pytest.raises(PairwiseRefused, match=r"not signed in: sign Claude Code in with `claude` then `/login`"):
        check_judge(real, real, scripted=False, environ={"HOME": "/nonexistent"})
    check_judge(real, real, scripted=False, environ={"ANTHROPIC_AUTH_TOKEN": "t"})
    check_judge(real, real, scripted=False, environ={"CLAUDE_CODE_OAUTH_TOKEN": "t"})  # judged through Claude Code
    check_judge(scripted, scripted, scripted=True, environ={})

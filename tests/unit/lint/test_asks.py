"""`skill-asks-unanswered` (lint/asks.py): a case of a skill that asks, with nothing to answer it."""

from __future__ import annotations

from helpers.plugin import Suite

from pytest_plugin_eval.lint.asks import KIND, asking_findings
from pytest_plugin_eval.lint.shipped import shipped

ASKING = "---\nname: s\ndescription: A skill.\n---\nInterview the user: ask them three clarifying questions.\n"


def findings(suite: Suite, fm: str | None = None, graders=None) -> list:
    kw = {"graders": graders} if graders else {}
    case = suite.loaded(fm=fm, **kw)
    return asking_findings(case, shipped(suite.plugin))


def test_a_skill_that_asks_with_a_one_prompt_case_is_a_finding(suite):
    (suite.plugin / "skills" / "s" / "SKILL.md").write_text(ASKING)
    [finding] = findings(suite)
    assert finding.kind == KIND and "p:s" in finding.message and "Interview the user" in finding.message


def test_turns_answers_or_a_user_answer_it(suite):
    (suite.plugin / "skills" / "s" / "SKILL.md").write_text(ASKING)
    for fm in ("turns: [Ada.]", "answers: {name: Ada}", "user: A baker."):
        assert findings(suite, fm) == []


def test_a_skill_that_does_not_ask_is_not_a_finding(suite):
    assert findings(suite) == []


def test_only_the_skill_the_cases_indicator_names_is_looked_at(suite):
    """init --bare's indicator is `"skill":"(p:)?s"`, a pattern on the Skill call's JSON input: tested on the bare
    name it matched no skill, so every asking skill of the plugin was a finding of the case (anthropics'
    legal plugin: four, for a case about one skill)."""
    (suite.plugin / "skills" / "s" / "SKILL.md").write_text(ASKING)
    (suite.plugin / "skills" / "t").mkdir(parents=True)
    (suite.plugin / "skills" / "t" / "SKILL.md").write_text(ASKING.replace("name: s", "name: t"))
    fired = '---\ntype: tool_used\ntool: Skill\ninput_match: \'"skill":"(p:)?t"\'\n---\n'
    found = findings(suite, graders={"ok": "---\ntype: regex\npattern: x\n---\n", "fired": fired})
    assert [f.message.split(" asks")[0] for f in found] == ["skill p:t"]


def test_a_should_not_fire_case_is_not_a_case_of_a_skill_that_asks(suite):
    """Its Skill indicator says no skill may run (max: 0): no skill of the plugin is there to ask."""
    (suite.plugin / "skills" / "s" / "SKILL.md").write_text(ASKING)
    none = "---\ntype: tool_used\ntool: Skill\nmin: 0\nmax: 0\n---\n"
    assert findings(suite, graders={"ok": "---\ntype: regex\npattern: x\n---\n", "none": none}) == []

"""The scripted trigger model that reads the description (load/description_words.py): a query fires by words of
the skill's description as the plugin on disk has it, and a rule with a mistake is a load error naming the key."""

from __future__ import annotations

from pytest_plugin_eval.load.description_words import DescriptionRule
from pytest_plugin_eval.load.script import TextBlock, ToolBlock
from pytest_plugin_eval.load.triggers import query_case

from .test_trigger_files import load, problems, root  # noqa: F401  (the fixture)

RULE_SET = """runs: 1
skills:
  greet:
    should_fire:
      - {query: "write my salutation", id: s, scripted: {description_has: [Salutation, opening]}}
      - {query: "hello there", id: h, scripted: {description_has: people, then: farewell, else: fire}}
      - {query: "sign off", id: o, scripted: {description_has: [nowhere], of: farewell, else: farewell}}
"""


def answered(trigger_set, query_id: str):
    query = next(q for q in trigger_set.queries if q.id == query_id)
    turns = query_case(trigger_set, query, scripted=True).script.turns("with", 1)
    block = turns[0].blocks[0]
    return block.input["skill"] if isinstance(block, ToolBlock) else block.text


def test_rule_reads_the_description_on_disk(root):  # noqa: F811
    (trigger_set,) = load(root, RULE_SET)
    # greet's description is "greet people.": no "salutation", so the run answers without a skill
    assert answered(trigger_set, "s") == "Here is an answer, without any skill."
    assert answered(trigger_set, "h") == "greeter:farewell"  # "people" is in it: `then`
    assert answered(trigger_set, "o") == "greeter:farewell"  # farewell's own description lacks the word: `else`
    skill_md = root / "skills" / "greet" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("greet people.", "Writes a SALUTATION."))
    (trigger_set,) = load(root, RULE_SET)
    assert answered(trigger_set, "s") == "greeter:greet"  # case-insensitive
    assert answered(trigger_set, "h") == "greeter:greet"  # "people" is gone: `else: fire`


def test_rule_answers():
    rule = DescriptionRule(("commit message",), "fire", "none")
    assert rule.answer("Writes a Commit Message.") == "fire" and rule.answer("Reviews code.") == "none"


def test_rule_mistakes_are_load_errors(root):  # noqa: F811
    bad = """skills:
  greet:
    should_fire:
      - {query: a, scripted: {description_has: [x], thn: fire}}
      - {query: b, scripted: {description_has: []}}
      - {query: c, scripted: {description_has: [x], then: farwell}}
"""
    found = "\n".join(problems(root, bad))
    assert "thn" in found and "then" in found
    assert "description_has" in found and "a word or a list of words" in found
    assert "'farwell'" in found and "farewell" in found


def test_text_block_is_plain(root):  # noqa: F811
    (trigger_set,) = load(root, RULE_SET)
    query = next(q for q in trigger_set.queries if q.id == "s")
    turns = query_case(trigger_set, query, scripted=True).script.turns("with", 1)
    assert isinstance(turns[0].blocks[0], TextBlock)

"""Finding and loading trigger sets (pytest_plugin_eval.load.trigger_files, load.triggers, load.skills): our triggers.yaml with every key and every
error, skill-creator's trigger JSON wherever its users keep it, and a query as the case it is run as."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_plugin_eval.load.script import TextBlock, ToolBlock
from pytest_plugin_eval.load.skills import components_of
from pytest_plugin_eval.load.trigger_files import find_trigger_files, is_trigger_file, skill_folder_files
from pytest_plugin_eval.load.triggers import TriggerLoadError, load_trigger_file, query_case


def plugin(root: Path, *skills: str, commands: tuple[str, ...] = ()) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter"}))
    for name in skills:
        (root / "skills" / name).mkdir(parents=True)
        (root / "skills" / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name} people.\n---\nbody\n")
    for name in commands:
        (root / "commands").mkdir(exist_ok=True)
        (root / "commands" / f"{name}.md").write_text(f"---\ndescription: The {name} command.\n---\nSay {name}.\n")
    (root / "evals").mkdir()
    return root


@pytest.fixture
def root(tmp_path) -> Path:
    return plugin(tmp_path / "p", "greet", "farewell", commands=("hello",))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load(root: Path, text: str, name: str = "triggers.yaml", skill: str | None = None):
    return load_trigger_file(write(root / "evals" / name, text), root / "evals", skill)


def problems(root: Path, text: str, name: str = "triggers.yaml", skill: str | None = None) -> list[str]:
    with pytest.raises(TriggerLoadError) as e:
        load(root, text, name, skill)
    return [p.render() for p in e.value.problems]


def creator(root: Path, entries, where: str = "evals/trigger-eval.json", skill: str | None = None):
    path = write(root / where, json.dumps(entries))
    return load_trigger_file(path, root / "evals", skill)


def creator_problems(root: Path, entries, where: str = "evals/trigger-eval.json", skill: str | None = None):
    with pytest.raises(TriggerLoadError) as e:
        creator(root, entries, where, skill)
    return [p.render() for p in e.value.problems]


# ---- our YAML ------------------------------------------------------------------------------------------------


def test_a_set_has_the_defaults_runs_5_max_turns_5_timeout_120_threshold_half(root):
    [s] = load(root, "skills:\n  greet:\n    should_fire: [say hi to Bob]\n")
    assert (s.runs, s.max_turns, s.timeout_seconds, s.threshold, s.model) == (5, 5, 120, 0.5, None)
    assert (s.name, s.skill.qualified_name, s.format) == ("greet", "greeter:greet", "yaml")
    assert s.rel_file == "evals/triggers.yaml"


def test_every_top_key_is_read(root):
    text = "runs: 3\nmodel: haiku\nmax_turns: 2\ntimeout_seconds: 30\nthreshold: 0.7\nskills:\n  greet:\n    should_fire: [hi]\n"
    [s] = load(root, text)
    assert (s.runs, s.model, s.max_turns, s.timeout_seconds, s.threshold) == (3, "haiku", 2, 30, 0.7)


def test_queries_are_strings_or_mappings_labelled_by_their_list(root):
    text = "skills:\n  greet:\n    should_fire:\n      - say hi\n      - {query: wave at Ann, id: wave}\n    should_not_fire: [say bye]\n"
    [s] = load(root, text)
    assert [(q.id, q.query, q.should_fire) for q in s.queries] == [
        ("say-hi", "say hi", True),
        ("wave", "wave at Ann", True),
        ("say-bye", "say bye", False),
    ]


def test_generated_ids_are_slugs_of_the_first_words_numbered_when_taken(root):
    text = "skills:\n  greet:\n    should_fire:\n      - Say HI, to Bob & Ann, please now!\n      - say hi to bob ann please now again\n      - {query: x, id: hi}\n      - hi\n"
    [s] = load(root, text)
    assert [q.id for q in s.queries] == ["say-hi-to-bob-ann-please", "say-hi-to-bob-ann-please-2", "hi", "hi-2"]


def test_a_skill_may_be_named_bare_or_qualified_and_a_command_too(root):
    text = "skills:\n  greeter:farewell:\n    should_fire: [bye]\n  hello:\n    should_fire: [hello]\n"
    first, second = load(root, text)
    assert (first.skill.qualified_name, second.skill.qualified_name) == ("greeter:farewell", "greeter:hello")
    assert second.skill.kind == "command"
    assert {c.qualified_name for c in first.components} == {"greeter:greet", "greeter:farewell", "greeter:hello"}


def test_scripted_words_and_turns_are_kept(root):
    text = (
        "skills:\n  greet:\n    should_fire:\n      - {query: a, scripted: fire}\n      - {query: b, scripted: none}\n"
        "      - {query: c, scripted: farewell}\n      - {query: d, scripted: [{text: just words}]}\n"
    )
    [s] = load(root, text)
    assert [q.turns for q in s.queries[:3]] == ["fire", "none", "farewell"]
    assert s.queries[3].turns[0].blocks == (TextBlock("just words"),)


def test_an_unknown_top_key_is_named_with_did_you_mean(root):
    [message] = problems(root, "run: 3\nskills:\n  greet:\n    should_fire: [hi]\n")
    assert "triggers.yaml: run: is not a key of a trigger file — did you mean runs?" in message


def test_an_unknown_skill_is_named_with_did_you_mean_and_the_plugins_list(root):
    [message] = problems(root, "skills:\n  gret:\n    should_fire: [hi]\n")
    assert "triggers.yaml: skills.gret: 'gret' is no skill or command of the plugin — did you mean greet?" in message
    assert "(it has: greet, farewell, hello)" in message or "(it has: farewell, greet, hello)" in message


@pytest.mark.parametrize("value", ["1.5", "1", "0", "-0.2", "high"])
def test_a_threshold_outside_0_and_1_is_refused(root, value):
    [message] = problems(root, f"threshold: {value}\nskills:\n  greet:\n    should_fire: [hi]\n")
    assert "triggers.yaml: threshold: must be" in message


@pytest.mark.parametrize("text", ["skills: {}\n", "runs: 3\n", "skills: [greet]\n"])
def test_a_file_without_skills_is_refused(root, text):
    [message] = problems(root, text)
    assert "triggers.yaml: skills: must map each skill (or command) of the plugin" in message


def test_a_skill_with_no_queries_is_refused(root):
    [message] = problems(root, "skills:\n  greet:\n    should_fire: []\n")
    assert message.endswith("skills.greet: has no queries: add should_fire and should_not_fire lists")


def test_an_id_given_twice_in_a_set_is_refused_naming_the_first(root):
    text = "skills:\n  greet:\n    should_fire: [{query: a, id: q}]\n    should_not_fire: [{query: b, id: q}]\n"
    [message] = problems(root, text)
    assert message.endswith(
        "skills.greet.should_not_fire[0].id: 'q' is already the id of skills.greet.should_fire[0]; ids are unique"
    )


def test_a_skill_with_an_unknown_key_is_refused(root):
    [message] = problems(root, "skills:\n  greet:\n    should_trigger: [hi]\n")
    assert "skills.greet.should_trigger: is not a key of a skill's trigger set" in message


def test_a_query_mapping_needs_a_query_key(root):
    [message] = problems(root, "skills:\n  greet:\n    should_fire:\n      - {id: x}\n")
    assert "skills.greet.should_fire[0]: a query needs a `query:` key" in message


def test_a_query_mapping_with_a_misspelt_key_gets_did_you_mean(root):
    [message] = problems(root, "skills:\n  greet:\n    should_fire:\n      - {qury: hi}\n")
    assert "skills.greet.should_fire[0].qury: is not a key of a query — did you mean query?" in message


@pytest.mark.parametrize("bad", ["'-x'", "'a b'", "7", "'é'"])
def test_a_bad_id_is_refused(root, bad):
    [message] = problems(root, f"skills:\n  greet:\n    should_fire:\n      - {{query: hi, id: {bad}}}\n")
    assert "skills.greet.should_fire[0].id: must be letters, digits" in message


def test_a_slash_command_query_is_left_out_and_said_and_the_others_run(root):
    """One such query among twelve never costs the other eleven (a real author's file did that)."""
    text = "skills:\n  greet:\n    should_fire: ['/greeter:greet hi', 'hello there']\n    should_not_fire: [bye]\n"
    [trigger_set] = load(root, text)
    assert [q.query for q in trigger_set.queries] == ["hello there", "bye"]
    [finding] = trigger_set.findings
    assert finding.startswith("⚠ evals/triggers.yaml: greet: query '/greeter:greet hi' starts with a slash command")
    assert "it is not run" in finding
    [only] = creator(
        root,
        [{"query": "/plan the sprint", "should_trigger": True}, {"query": "plan", "should_trigger": True}],
        skill="greet",
    )
    assert [q.query for q in only.queries] == ["plan"] and len(only.findings) == 1


def test_a_set_of_slash_command_queries_only_is_refused(root):
    [message] = problems(root, "skills:\n  greet:\n    should_fire: ['/greeter:greet hi']\n")
    assert "greet: has no query left to run: every one starts with a slash command" in message


def test_a_scripted_word_that_names_nothing_is_refused_with_did_you_mean(root):
    [message] = problems(root, "skills:\n  greet:\n    should_fire:\n      - {query: hi, scripted: fier}\n")
    assert "triggers.yaml: scripted: 'fier' (for 'hi') is neither fire, none, nor a skill or command" in message
    assert "did you mean fire?" in message


def test_invalid_yaml_is_refused_with_the_file(root):
    [message] = problems(root, "skills:\n  greet: [unclosed\n")
    assert "triggers.yaml" in message and "invalid YAML" in message


def test_every_problem_of_a_file_is_reported_at_once(root):
    text = "threshold: 2\nskills:\n  gret:\n    should_fire: [hi]\n  greet:\n    should_fire: [{id: x}]\n"
    assert len(problems(root, text)) == 3


# ---- skill-creator's JSON ------------------------------------------------------------------------------------


def test_skill_creator_json_of_a_plugin_with_one_skill_is_that_skills(tmp_path):
    root = plugin(tmp_path / "p", "greet")
    [s] = creator(root, [{"query": "say hi", "should_trigger": True}, {"query": "bye", "should_trigger": False}])
    assert (s.skill.qualified_name, s.format, s.runs) == ("greeter:greet", "skill-creator", 5)
    assert [(q.id, q.should_fire) for q in s.queries] == [("say-hi", True), ("bye", False)]


def test_skill_creator_json_with_several_skills_names_the_fixes(root):
    [message] = creator_problems(root, [{"query": "say hi", "should_trigger": True}])
    assert "trigger-eval.json: [0]: names no skill, and the plugin has several" in message
    assert '"skill": "<name>"' in message and "skill's folder" in message and "--trigger-skill NAME" in message


def test_an_entrys_skill_key_names_its_skill_and_one_file_gives_a_set_per_skill(root):
    entries = [
        {"query": "say hi", "should_trigger": True, "skill": "greet"},
        {"query": "say bye", "should_trigger": True, "skill": "greeter:farewell"},
        {"query": "wave", "should_trigger": False, "skill": "greet"},
    ]
    first, second = creator(root, entries, where="evals/trigger-evals.json")
    assert (first.name, [q.query for q in first.queries]) == ("greet", ["say hi", "wave"])
    assert (second.name, [q.query for q in second.queries]) == ("farewell", ["say bye"])


def test_an_entrys_unknown_skill_is_named_at_its_key(root):
    [message] = creator_problems(root, [{"query": "hi", "should_trigger": True, "skill": "gret"}])
    assert "[0].skill: 'gret' is no skill or command of the plugin — did you mean greet?" in message


def test_the_trigger_skill_option_names_the_skill_of_entries_without_one(root):
    [s] = creator(root, [{"query": "bye", "should_trigger": True}], skill="farewell")
    assert s.skill.qualified_name == "greeter:farewell"


@pytest.mark.parametrize("where", ["skills/farewell/trigger-eval.json", "skills/farewell/evals/trigger-evals.json"])
def test_a_file_in_a_skills_folder_is_that_skills(root, where):
    [s] = creator(root, [{"query": "bye", "should_trigger": True}], where=where)
    assert s.skill.qualified_name == "greeter:farewell"
    assert root / where in skill_folder_files(root)


def test_skill_folder_files_finds_only_skill_creator_files_in_skill_folders(root):
    write(root / "skills" / "greet" / "notes.json", "[]")
    write(root / "evals" / "trigger-eval.json", "[]")
    assert skill_folder_files(root) == []
    write(root / "skills" / "greet" / "evals" / "trigger-eval.json", "[]")
    assert skill_folder_files(root) == [root.absolute() / "skills" / "greet" / "evals" / "trigger-eval.json"]


@pytest.mark.parametrize("data", [{"query": "hi", "should_trigger": True}, [], "hi"])
def test_skill_creator_json_that_is_not_a_list_of_entries_is_refused(tmp_path, data):
    root = plugin(tmp_path / "p", "greet")
    [message] = creator_problems(root, data)
    assert "trigger-eval.json: skill-creator's trigger file is a JSON list of" in message


def test_skill_creator_entries_missing_a_key_are_named(tmp_path):
    root = plugin(tmp_path / "p", "greet")
    found = creator_problems(root, [{"query": "hi"}, {"should_trigger": True}, "hi"])
    assert [m.split("trigger-eval.json: ")[1] for m in found] == [
        "[0].should_trigger: is required",
        "[1].query: is required",
        '[2]: an entry is an object {"query": ..., "should_trigger": ...} (got a string)',
    ]


def test_should_trigger_must_be_a_bool(tmp_path):
    root = plugin(tmp_path / "p", "greet")
    [message] = creator_problems(root, [{"query": "hi", "should_trigger": "yes"}])
    assert "[0].should_trigger: must be true or false (got a string)" in message


def test_invalid_json_is_refused(tmp_path):
    root = plugin(tmp_path / "p", "greet")
    with pytest.raises(TriggerLoadError, match="is not valid JSON"):
        load_trigger_file(write(root / "evals" / "trigger-eval.json", "[{"), root / "evals")


def test_find_trigger_files_walks_the_eval_dir_as_the_collection_does_then_the_skill_folders(root):
    evals, greet = root / "evals", root / "skills" / "greet"
    kept = [evals / "greet.triggers.yaml", evals / "deep" / ".hidden" / "triggers.yaml", evals / "trigger-eval.json"]
    for path in kept + [greet / "evals" / "trigger-eval.json"]:
        write(path, "[]")
    for skipped in ("results", "mocks", "node_modules", ".claude", "case"):
        write(evals / skipped / "triggers.yaml", "{}")
    write(evals / "case" / "prompt.md", "a case's folder holds no trigger set")
    found = find_trigger_files(root, evals)
    assert found == [kept[0], kept[2], kept[1], greet.absolute() / "evals" / "trigger-eval.json"]  # files, then folders


def test_is_trigger_file():
    names = ["triggers.yaml", "greet.triggers.yaml", "trigger-eval.json", "trigger-evals.json"]
    assert all(is_trigger_file(Path("x") / n) for n in names)
    others = ["case.yaml", "triggers.yml", "trigger-eval.yaml", "my-triggers.yaml", "evals.json"]
    assert not any(is_trigger_file(Path("x") / n) for n in others)


# ---- a query as its case -------------------------------------------------------------------------------------


def test_a_query_is_a_case_of_its_own_with_the_plugin_and_no_graders(root):
    text = "runs: 3\nmodel: haiku\nmax_turns: 2\ntimeout_seconds: 30\nskills:\n  greet:\n    should_not_fire: [{query: say bye, id: bye}]\n"
    [s] = load(root, text)
    case = query_case(s, s.queries[0])
    assert (case.name, case.prompt, case.graders, case.source) == ("greet/bye", "say bye", (), "trigger")
    assert case.dir == root.absolute() / "evals" / "triggers" / "greet" / "bye"
    assert case.plugin_dirs == (root.absolute(),)
    assert (case.runs, case.max_turns, case.timeout_seconds, case.model) == (3, 2, 30, "haiku")
    assert case.script is None
    target = case.trigger
    assert (target.skill, target.should_fire, target.query_id, target.set_file) == (s.skill, False, "bye", s.file)
    assert target.components == s.components


def test_a_scripted_query_fires_its_skill_or_a_sibling_or_answers_in_words(root):
    text = "skills:\n  greet:\n    should_fire: [hi, {query: b, scripted: farewell}]\n    should_not_fire: [bye]\n"
    [s] = load(root, text)
    fire, sibling, words = (query_case(s, q, scripted=True).script for q in s.queries)
    assert list(fire.arms) == ["with"]
    assert fire.arms["with"].default[0].blocks == (ToolBlock("Skill", {"skill": "greeter:greet"}),)
    assert sibling.arms["with"].default[0].blocks == (ToolBlock("Skill", {"skill": "greeter:farewell"}),)
    assert isinstance(words.arms["with"].default[0].blocks[0], TextBlock)


# ---- the plugin's components ---------------------------------------------------------------------------------


def test_components_of_lists_skills_then_commands_as_plugin_name(root):
    found = [(c.name, c.qualified_name, c.kind, c.description) for c in components_of(root)]
    assert found == [
        ("farewell", "greeter:farewell", "skill", "farewell people."),
        ("greet", "greeter:greet", "skill", "greet people."),
        ("hello", "greeter:hello", "command", "The hello command."),
    ]


def test_a_command_named_like_a_skill_is_shadowed_by_it_as_claude_code_resolves_them(tmp_path):
    """Claude Code 2.1 offers `greeter:greet` once, the skill: one trigger set per name."""
    root = plugin(tmp_path / "p", "greet", commands=("greet", "hello"))
    assert [(c.name, c.kind) for c in components_of(root)] == [("greet", "skill"), ("hello", "command")]


def test_a_target_finds_the_component_called_by_any_of_its_names_and_by_its_file(root):
    [s] = load(root, "skills:\n  greet:\n    should_fire: [hi]\n")
    target = query_case(s, s.queries[0]).trigger
    assert target.component_called("greeter:greet") == s.skill
    assert target.component_called("greet") == s.skill
    assert target.component_called("/greeter:hello").kind == "command"
    assert target.component_called("other:greet") is None
    assert target.component_at(str(root / "skills" / "greet" / "SKILL.md")) == s.skill
    assert target.component_at(str(root / "commands" / "hello.md")).name == "hello"
    assert target.component_at(str(root / "skills" / "greet" / "notes.md")) is None


def test_two_queries_with_one_id_are_refused(root):
    [message] = problems(root, "skills:\n  greet:\n    should_fire: [{query: a, id: x}, {query: b, id: x}]\n")
    assert "skills.greet.should_fire[1].id" in message


def test_a_skill_with_no_queries_is_reported_beside_other_problems(root):
    found = problems(root, "skills:\n  gret:\n    should_fire: [hi]\n  greet:\n    should_fire: []\n")
    assert any("skills.greet: has no queries" in m for m in found)


def test_a_skill_only_a_user_can_invoke_gets_no_set_and_when_to_use_is_seen(tmp_path):
    """As Claude Code 2.1 shows skills to the model: `disable-model-invocation: true` ones are not offered, and
    `when_to_use` follows the description (` - `)."""
    root = plugin(tmp_path / "p", "greet")
    manual = root / "skills" / "deploy" / "SKILL.md"
    manual.parent.mkdir(parents=True)
    manual.write_text("---\nname: deploy\ndescription: Deploys.\ndisable-model-invocation: true\n---\nGo.\n")
    (root / "skills" / "greet" / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Greets people.\nwhen_to_use: Use when the user says hello.\n---\nHi.\n"
    )
    [greet] = components_of(root)
    assert (greet.name, greet.description) == ("greet", "Greets people.")
    assert greet.seen == "Greets people. - Use when the user says hello."
    [message] = problems(root, "skills:\n  deploy:\n    should_fire: [ship it]\n")
    assert (
        "'deploy' is a skill only a user can invoke (disable-model-invocation: true in skills/deploy/SKILL.md)"
        in message
    )
    rule = "skills:\n  greet:\n    should_fire: [{query: hi, scripted: {description_has: [says hello], then: fire}}]\n"
    [trigger_set] = load(root, rule)
    assert trigger_set.skill.seen.endswith("says hello.")


def test_a_workflow_with_a_named_meta_is_a_skill_of_the_plugin_and_one_without_is_skipped(tmp_path):
    root = plugin(tmp_path / "p", "greet")
    (root / "workflows").mkdir()
    (root / "workflows" / "spec.js").write_text(
        "export const meta = {\n  name: 'spec',\n  description: \"Writes a spec.\",\n  whenToUse: `When asked.`,\n};\n"
    )
    (root / "workflows" / "broken.js").write_text("export const meta = { description: 'no name' };\n")
    found = {c.name: c for c in components_of(root)}
    assert set(found) == {"greet", "spec"}
    assert (found["spec"].qualified_name, found["spec"].seen) == ("greeter:spec", "Writes a spec. - When asked.")


def test_one_problem_of_many_entries_is_said_once(root):
    entries = [{"query": f"query number {i}", "should_trigger": True} for i in range(60)]
    [message] = creator_problems(root, entries)
    assert message.endswith(
        "trigger-eval.json: [0], [1] … (60 entries): names no skill, and the plugin has several (farewell, greet): "
        'add "skill": "<name>" to each entry, keep the file in the skill\'s folder, or pass --trigger-skill NAME'
    )

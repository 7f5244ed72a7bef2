"""Plugins of the shapes real authors publish, end to end through the real Claude Code against the scripted
endpoint: each is understood as Claude Code itself understands it (what it loads, what it refuses), and an eval
dir collects only what is an eval (cases, trigger sets, declared graders), never the plugin's own Python."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import yaml
from helpers.e2e import SKILL
from helpers.plugin import write_plugin

TRIGGER_JSON = [
    {"query": "hello there, friend", "should_trigger": True},
    {"query": "what's the capital of France?", "should_trigger": False},
]
EVALS = {"skill_name": "greet", "evals": [{"id": 1, "prompt": "Say hello.", "expectations": ["It says hello"]}]}


def without_eval_dir(suite) -> None:
    shutil.rmtree(suite.root / "evals")


def test_a_plugin_whose_only_suite_is_in_its_skill_folder_runs_it_without_an_eval_dir(suite):
    """skill-creator's layout: `skills/<name>/evals/evals.json` and a `trigger_eval.json` (underscore, as
    Anthropic's math-olympiad ships it), no `evals/` at the plugin root."""
    without_eval_dir(suite)
    folder = suite.root / "skills" / "greet" / "evals"
    folder.mkdir()
    (folder / "evals.json").write_text(json.dumps(EVALS))
    (folder / "trigger_eval.json").write_text(json.dumps(TRIGGER_JSON))
    run = suite.run("--runs", "1", path=".")
    assert run.rc == 0, run.out
    assert [c["name"] for c in run.doc["cases"]] == ["greet/1"]
    [trigger_set] = run.doc["triggers"]
    assert trigger_set["file"] == "skills/greet/evals/trigger_eval.json"
    assert [q["fires"] for q in trigger_set["queries"]] == [1, 0]
    # the results go where the eval dir's would, never into the skill's folder
    assert (suite.root / "evals" / "results").is_dir()
    assert not (folder / "results").exists()


def test_a_session_writes_nothing_into_a_skill_folder_and_the_plugin_hash_stays_the_same(suite):
    folder = suite.root / "skills" / "greet" / "evals"
    folder.mkdir()
    (folder / "trigger-eval.json").write_text(json.dumps(TRIGGER_JSON))
    first = suite.run("--output-dir", "baseline", path=".")
    assert first.rc == 0, first.out
    collect_only = suite.run("--collect-only", path=".", json_out=False)
    assert collect_only.rc == 0, collect_only.out
    assert not (suite.root / "evals" / "results").exists()  # nothing ran: no results folder (history skipped it)
    second = suite.run("--output-dir", "baseline", path=".")
    assert second.rc == 0, second.out
    assert sorted(p.name for p in folder.iterdir()) == ["trigger-eval.json"]
    hashes = [doc.doc["suite"]["plugins"][0]["contentHash"] for doc in (first, second)]
    assert hashes[0] == hashes[1]


ROOT_SKILL = "---\nname: rooty\ndescription: Greets warmly. Use when the user says hello.\n---\nGreet.\n"


def root_skill_plugin(pytester, *, skills_folder: bool) -> Path:
    root = pytester.path / "rs"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "rs"}))
    (root / "SKILL.md").write_text(ROOT_SKILL)
    if skills_folder:
        (root / "skills" / "other").mkdir(parents=True)
        (root / "skills" / "other" / "SKILL.md").write_text("---\nname: other\ndescription: Other.\n---\nx\n")
    (root / "evals").mkdir()
    queries = {
        "should_fire": [{"query": "hello!", "scripted": [{"tool": "Skill", "input": {"skill": "rs:rooty"}}]}],
        "should_not_fire": ["what is 2 + 2?"],
    }
    (root / "evals" / "triggers.yaml").write_text(yaml.safe_dump({"runs": 1, "skills": {"rooty": queries}}))
    return root


def run_in(pytester, root: Path, *args: str):
    return pytester.runpytest_subprocess(
        str(root / "evals"),
        "-p",
        "no:cacheprovider",
        "--trust-plugin",
        "--scripted",
        "--json",
        str(root / "result.json"),
        *args,
    )


def test_a_root_skill_md_is_the_plugins_skill_and_its_eval_dirs_trigger_file_runs(pytester):
    root = root_skill_plugin(pytester, skills_folder=False)
    result = run_in(pytester, root)
    assert result.ret == 0, result.stdout.str()
    doc = json.loads((root / "result.json").read_text())
    [trigger_set] = doc["triggers"]
    assert (trigger_set["skill"], trigger_set["file"]) == ("rs:rooty", "evals/triggers.yaml")
    fired = {q["id"]: q["fires"] for q in trigger_set["queries"]}
    assert fired == {"hello": 1, "what-is-2-2": 0}
    assert "not loaded by Claude Code" not in result.stdout.str()
    # what the runs' Claude Code listed: the root skill, by its name
    trace = Path(trigger_set["queries"][0]["runs"][0]["tracePath"]).read_text().splitlines()
    assert "rs:rooty" in json.loads(trace[0])["skills"]


def test_a_root_skill_md_beside_a_skills_folder_is_not_loaded_and_a_set_for_it_says_so(pytester):
    root = root_skill_plugin(pytester, skills_folder=True)
    result = run_in(pytester, root)
    assert result.ret == 1, result.stdout.str()
    doc = json.loads((root / "result.json").read_text())
    [error] = doc["loadErrors"]
    assert "'rooty' is no skill or command of the plugin" in error["message"]


def test_an_eval_dir_collects_only_its_evals_never_the_plugins_python(suite):
    """An author's script in evals/ (named like a test) and a debugging skill's fixture `test_*.py` in a case:
    pytest would import both in the host process; they are data, not tests."""
    marker = suite.root / "imported.txt"
    (suite.root / "evals" / "run_trigger_test.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\n"
        "def test_shells_out():\n    raise SystemExit('this script must not run')\n"
    )
    folder = suite.case(
        "fix-the-test",
        "Fix the failing test in test_parser.py.",
        graders={"any": "---\ntype: regex\npattern: .\n---\n"},
        script={"with": [{"text": "Fixed."}], "without": [{"text": "Fixed."}]},
    )
    (folder / "test_parser.py").write_text("def test_parse():\n    assert 1 == 2\n")
    case = {"schema_version": "1.0", "name": "fix-the-test", "context": {"files": ["test_parser.py"]}}
    (folder / "case.yaml").write_text(yaml.safe_dump(case))
    (folder / "conftest_notes.txt").write_text("notes")
    run = suite.run("--runs", "1")
    assert run.rc == 0, run.out
    assert not marker.exists()
    assert [c["name"] for c in run.doc["cases"]] == ["fix-the-test"]
    assert "test_parse" not in run.out and "run_trigger_test" not in run.out


def test_a_plugin_claude_code_refuses_is_a_run_error_naming_its_message_not_a_pass(suite):
    manifest = suite.root / ".claude-plugin" / "plugin.json"
    manifest.write_text(json.dumps({"name": "greeter", "agents": ["./agents"]}))
    (suite.root / "agents").mkdir()
    (suite.root / "agents" / "helper.md").write_text("---\nname: helper\ndescription: Helps.\n---\nHelp.\n")
    suite.case(
        "says-hello",
        graders={"any": "---\ntype: regex\npattern: .\n---\n"},
        script={"with": [{"text": "Hello."}], "without": [{"text": "Hi."}]},
    )
    run = suite.run("--runs", "1")
    assert run.rc == 1, run.out  # the with-plugin arm had no plugin: not a pass, and not scored as one
    case = run.case("says-hello")
    assert case["aggregates"]["score"] is None
    [with_run] = case["arms"]["with"]
    assert with_run["errorKind"] == "start" and with_run["score"] is None
    assert with_run["error"].startswith("Claude Code did not load the plugin greeter: Failed to load plugin")
    assert 'agents.0: Invalid string: must end with ".md"' in with_run["error"]
    [without_run] = run.case("says-hello")["arms"]["without"]
    assert without_run.get("errorKind") is None
    check = suite.pytester.run(sys.executable, "-m", "pytest_plugin_eval.cli.main", "check", str(suite.root))
    assert check.ret == 1
    assert '.claude-plugin/plugin.json: agents[0]: must end with ".md"' in check.stdout.str()


def test_regrade_of_a_session_with_a_trigger_set_reports_its_trigger_runs_as_they_were(suite, tmp_path):
    suite.case(
        "says-hello",
        graders={"any": "---\ntype: regex\npattern: .\n---\n"},
        script={"with": [{"text": "Hello."}], "without": [{"text": "Hi."}]},
    )
    queries = {"should_fire": [{"query": "hi!", "scripted": [{"tool": "Skill", "input": {"skill": "greeter:greet"}}]}]}
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump({"runs": 2, "skills": {"greet": queries}}))
    first = suite.run("--runs", "1")
    assert first.rc == 0, first.out
    stored = next((suite.root / "evals" / "results").glob("*/aggregate-result.json")).parent
    marker = tmp_path / "agent-was-started"
    no_agent = tmp_path / "claude"
    no_agent.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    no_agent.chmod(0o755)
    again = suite.run("--regrade", str(stored), "--claude", str(no_agent))
    assert again.rc == 0, again.out
    assert not marker.exists()
    assert "KeyError" not in again.out and "partial" not in json.dumps(again.doc["suite"])
    [before], [after] = first.doc["triggers"], again.doc["triggers"]
    assert [r["fired"] for r in after["queries"][0]["runs"]] == [True]  # --runs 1 made one
    assert after["queries"][0]["runs"] == before["queries"][0]["runs"]


def test_nothing_of_the_suite_is_lost_in_silence(suite):
    """A case folder whose prompt is misnamed, a grader on a tool name Claude Code has not, a trigger set whose
    runs can never decide, a misspelt allowed_tools entry: each is said, by the session and by check."""
    stray = suite.root / "evals" / "forgot-the-prompt"
    (stray / "graders").mkdir(parents=True)
    (stray / "prompt.txt").write_text("Say hello.")
    (stray / "graders" / "any.md").write_text("---\ntype: regex\npattern: .\n---\n")
    suite.case(
        "decoy",
        frontmatter={"allowed_tools": ["Reed"]},
        graders={
            "any": "---\ntype: regex\npattern: .\n---\n",
            "no-skill": "---\ntype: tool_used\ntool: SkillTool\nmin: 0\nmax: 0\n---\n",
        },
        script={"with": [{"text": "Hello."}], "without": [{"text": "Hi."}]},
    )
    queries = {"should_fire": [{"query": "hi!", "scripted": "none"}]}
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump({"runs": 3, "skills": {"greet": queries}}))
    run = suite.run("--runs", "1")
    out = run.out
    assert run.rc == 1, out
    [error] = run.doc["loadErrors"]
    assert error["dir"] == "evals/forgot-the-prompt"
    assert "is not a case (no prompt.md or case.yaml)" in error["message"]
    assert "prompt.txt is not read: rename it prompt.md" in error["message"]
    assert "tool 'SkillTool' is no tool of Claude Code's — did you mean Skill? The grader runs as written" in out
    assert "so it passes every run (it allows 0 calls)" in out
    assert "allowed_tools entry Reed is no tool of Claude Code's — did you mean Read?" in out
    assert "trigger set greet: 1 run(s) per query can never decide a query at threshold 0.5" in out
    check = suite.pytester.run(sys.executable, "-m", "pytest_plugin_eval.cli.main", "check", str(suite.root))
    said = check.stdout.str() + check.stderr.str()
    assert check.ret == 1, said
    assert "forgot-the-prompt: is not a case" in said
    assert "did you mean Skill?" in said and "did you mean Read?" in said
    assert "3 run(s) per query can never decide a query at threshold 0.5" in said and "use runs: 4 or more" in said


def test_a_slash_command_query_is_said_and_the_files_other_queries_run(suite):
    folder = suite.root / "skills" / "greet"
    entries = [
        {"query": "/greeter:greet hello", "should_trigger": True},
        {"query": "hello there, friend", "should_trigger": True},
        {"query": "what's the capital of France?", "should_trigger": False},
    ]
    (folder / "trigger-eval.json").write_text(json.dumps(entries))
    run = suite.run("--runs", "1")
    assert run.rc == 0, run.out
    [trigger_set] = run.doc["triggers"]
    assert [q["query"] for q in trigger_set["queries"]] == ["hello there, friend", "what's the capital of France?"]
    assert "query '/greeter:greet hello' starts with a slash command" in run.out
    assert "it is not run" in run.out


def test_two_trigger_sets_of_one_skill_are_compared_each_on_its_own(suite):
    """evals/triggers.yaml and the skill's trigger-eval.json both test greet: a query of the second that fell from
    5/5 to 0/5 is worse, whatever the first says."""
    fire = [{"tool": "Skill", "input": {"skill": "greeter:greet"}}]
    yaml_set = {"runs": 5, "skills": {"greet": {"should_fire": [{"query": "hello!", "scripted": fire}]}}}
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump(yaml_set))
    json_file = suite.root / "skills" / "greet" / "trigger-eval.json"

    def json_set(scripted) -> None:
        json_file.write_text(json.dumps([{"query": "good morning", "should_trigger": True, "scripted": scripted}]))

    json_set(fire)
    first = suite.run("--output-dir", "s1")
    json_set("none")
    second = suite.run("--output-dir", "s2")
    assert first.rc == 0 and second.rc == 1, second.out
    assert sorted(s["file"] for s in second.doc["triggers"]) == [
        "evals/triggers.yaml",
        "skills/greet/trigger-eval.json",
    ]
    gate = suite.pytester.run(
        sys.executable,
        "-m",
        "pytest_plugin_eval.cli.main",
        "compare",
        "s1",
        "s2",
        "--fail-on-worse",
        "--json",
        "c.json",
    )
    said = gate.stdout.str()
    assert gate.ret == 1, said
    changes = json.loads((suite.pytester.path / "c.json").read_text())["triggers"]
    by_file = {c["file"]: [q["verdict"] for q in c["queries"]] for c in changes}
    assert by_file == {"evals/triggers.yaml": ["no_detectable_change"], "skills/greet/trigger-eval.json": ["worse"]}


def test_help_version_and_markers_need_no_trust_and_run_no_suite_code(suite):
    marker = suite.root / "conftest-ran.txt"
    (suite.root / "conftest.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n")
    for flag, said in (("--help", "--trust-plugin"), ("--version", "pytest"), ("--markers", "plugin_eval:")):
        result = suite.pytester.runpytest_subprocess(flag, "-p", "no:cacheprovider")
        out = result.stdout.str() + result.stderr.str()
        assert result.ret == 0, out
        assert said in out and "not a trusted plugin directory" not in out
    assert not marker.exists()
    refused = suite.pytester.runpytest_subprocess("-p", "no:cacheprovider")  # a session still asks
    assert refused.ret == 1 and "not a trusted plugin directory" in refused.stderr.str()


def test_a_skill_and_a_command_of_one_name_get_one_trigger_set_and_the_session_runs(suite):
    """Anthropic's own example plugin has both: Claude Code offers the skill under that name."""
    (suite.root / "commands").mkdir()
    (suite.root / "commands" / "greet.md").write_text("---\ndescription: The greet command.\n---\nGreet.\n")
    init = suite.pytester.run(sys.executable, "-m", "pytest_plugin_eval.cli.main", "init", "--triggers", ".")
    assert init.ret == 0, init.stdout.str() + init.stderr.str()
    written = (suite.root / "evals" / "triggers.yaml").read_text()
    assert written.count("\n  greet:") == 1, written
    fire = [{"tool": "Skill", "input": {"skill": "greeter:greet"}}]
    filled = {"runs": 1, "skills": {"greet": {"should_fire": [{"query": "hello!", "scripted": fire}]}}}
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump(filled))
    run = suite.run()
    assert run.rc == 0, run.out
    [trigger_set] = run.doc["triggers"]
    assert (trigger_set["skill"], trigger_set["kind"]) == ("greeter:greet", "skill")


def test_a_skill_only_a_user_can_invoke_gets_no_set_and_a_call_of_it_is_no_fire(suite):
    deploy = suite.root / "skills" / "deploy"
    deploy.mkdir()
    (deploy / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploys.\ndisable-model-invocation: true\n---\nGo.\n"
    )
    init = suite.pytester.run(sys.executable, "-m", "pytest_plugin_eval.cli.main", "init", "--triggers", ".")
    assert init.ret == 0, init.stdout.str() + init.stderr.str()
    written = (suite.root / "evals" / "triggers.yaml").read_text()
    assert "\n  greet:" in written and "deploy:" not in written
    call_deploy = [{"tool": "Skill", "input": {"skill": "greeter:deploy"}}, {"text": "Deployed."}]
    queries = {"should_not_fire": [{"query": "ship it to production", "scripted": call_deploy}]}
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump({"runs": 1, "skills": {"greet": queries}}))
    run = suite.run()
    assert run.rc == 0, run.out
    [trigger_run] = run.doc["triggers"][0]["queries"][0]["runs"]
    assert trigger_run["fired"] is False


def test_a_marketplace_root_says_which_plugins_it_holds_and_one_of_them_runs(pytester):
    root = pytester.path / "market"
    (root / ".claude-plugin").mkdir(parents=True)
    plugins = [{"name": "greeter", "source": "./plugins/greeter", "strict": False}]
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "m", "plugins": plugins}))
    plugin = write_plugin(root / "plugins" / "greeter", "greeter", skill=("greet", SKILL))
    cli = [sys.executable, "-m", "pytest_plugin_eval.cli.main"]
    for argv in (["check", str(root)], ["init", "--triggers", str(root)]):
        refused = pytester.run(*cli, *argv)
        err = refused.stderr.str()
        assert refused.ret == 1, err
        assert "this folder is a plugin marketplace" in err and "greeter: plugins/greeter" in err
    assert not (root / "evals").exists()  # nothing written into the marketplace root
    written = pytester.run(*cli, "init", "--triggers", str(plugin))
    assert written.ret == 0 and (plugin / "evals" / "triggers.yaml").is_file()


def test_a_workflow_is_one_of_the_plugins_skills_and_a_query_it_takes_names_it(suite):
    """Claude Code 2.1 offers `workflows/*.js` as skills named by their meta.name."""
    (suite.root / "workflows").mkdir()
    (suite.root / "workflows" / "spec.js").write_text(
        'export const meta = {\n  name: "spec",\n  description: "Writes a feature spec.",\n};\n'
        "export default async function run() {}\n"
    )
    take = [{"tool": "Skill", "input": {"skill": "greeter:spec"}}]
    queries = {"should_not_fire": [{"query": "write me a spec for the login page", "scripted": take}]}
    its_own = {"should_fire": [{"query": "spec out the signup flow", "scripted": "fire"}]}
    sets = {"runs": 1, "skills": {"greet": queries, "spec": its_own}}  # a set of the workflow itself loads
    (suite.root / "evals" / "triggers.yaml").write_text(yaml.safe_dump(sets))
    run = suite.run()
    assert run.rc == 0, run.out
    by_name = {s["name"]: s for s in run.doc["triggers"]}
    [trigger_run] = by_name["greet"]["queries"][0]["runs"]
    assert (trigger_run["fired"], trigger_run["skill"], trigger_run["decidedBy"]) == (
        False,
        "greeter:spec",
        "Skill call",
    )
    assert by_name["spec"]["queries"][0]["runs"][0]["fired"] is True
    trace = Path(trigger_run["tracePath"]).read_text().splitlines()
    assert "greeter:spec" in json.loads(trace[0])["skills"]  # as the run's Claude Code listed it


def test_a_strict_false_entry_is_evaluated_as_claude_code_installs_it(pytester):
    """anthropics/skills' shape: the marketplace's own folder (`source: "./"`) holds every skill, and a `strict:
    false` entry installs the few it names. check says so; `plugin-eval entry` writes the entry out as the plugin
    Claude Code installs, and a run of it loads those skills only."""
    root = write_plugin(pytester.path / "skills-repo", "skills-repo", skill=("greet", SKILL), manifest=False)
    (root / "skills" / "wave").mkdir()
    (root / "skills" / "wave" / "SKILL.md").write_text(SKILL.replace("greet", "wave"))
    entry = {"name": "greeting-skills", "source": "./", "strict": False, "skills": ["./skills/greet"]}
    (root / ".claude-plugin").mkdir(exist_ok=True)
    (root / ".claude-plugin" / "marketplace.json").write_text(json.dumps({"name": "m", "plugins": [entry]}))
    cli = [sys.executable, "-m", "pytest_plugin_eval.cli.main"]
    checked = pytester.run(*cli, "check", str(root))
    assert "installs parts of this folder as greeting-skills (1 skills)" in checked.stderr.str()
    assert "plugin-eval entry greeting-skills skills-repo --into greeting-skills" in checked.stderr.str()
    into = pytester.path / "greeting-skills"
    written = pytester.run(*cli, "entry", "greeting-skills", str(root), "--into", str(into))
    assert written.ret == 0, written.stderr.str()
    assert "skills greet (1 of the folder's 2)" in written.stdout.str()
    case = into / "evals" / "hello"
    (case / "graders").mkdir(parents=True)
    (case / "prompt.md").write_text("---\nruns: 1\n---\nSay hello.\n")
    (case / "graders" / "any.md").write_text("---\ntype: regex\npattern: .\n---\n")
    (case / "scripted.yaml").write_text(yaml.safe_dump({"all": ["Hello."]}))
    out = pytester.path / "result.json"
    run = pytester.runpytest_subprocess(
        str(into / "evals"), "--trust-plugin", "--scripted", "--ablation", "none", "--json", str(out)
    )
    assert run.ret == 0, run.stdout.str()
    [only] = json.loads(out.read_text())["cases"][0]["arms"]["with"]
    init = json.loads(Path(only["tracePath"]).read_text().splitlines()[0])
    assert [s for s in init["skills"] if ":" in s] == ["greeting-skills:greet"], init["skills"]
    again = pytester.run(*cli, "entry", "greeting-skills", str(root), "--into", str(into))  # a refresh keeps evals/
    assert again.ret == 0 and (case / "prompt.md").is_file()

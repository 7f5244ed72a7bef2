"""An authoring session of `plugin-eval init` (pytest_plugin_eval.authoring.settings): the settings that keep the
plugin read-only, what the model is told, and the hooks' answers — called in-process with Claude Code's events."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml

from pytest_plugin_eval.authoring import settings as authoring
from pytest_plugin_eval.authoring.interview import NO_TERMINAL
from pytest_plugin_eval.authoring.settings import (
    READY,
    guard,
    new_config,
    permission_settings,
    post,
    settings,
    stop,
    system_prompt,
)
from pytest_plugin_eval.cli.commands.init import init

NOT_FIRE = [
    {"name": "answers", "type": "regex", "pattern": r"\b4\b"},
    {"name": "did-not-fire", "type": "tool_used", "tool": "Skill", "min": 0, "max": 0},
]


@pytest.fixture
def root(tmp_path) -> Path:
    root = tmp_path / "greeter"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "greeter"}))
    (root / "skills" / "greet").mkdir(parents=True)
    (root / "skills" / "greet" / "SKILL.md").write_text("---\nname: greet\ndescription: Greets.\n---\nHi.\n")
    (root / "README.md").write_text("# greeter\n")
    (root / "evals").mkdir()
    return root


def write_case(root: Path, name: str, graders: list[dict], **top) -> Path:
    folder = root / "evals" / name
    folder.mkdir(parents=True, exist_ok=True)
    data = {"schema_version": "1.0", "name": name, "execution": {"prompt": "hi"}, **top, "graders": graders}
    (folder / "case.yaml").write_text(yaml.safe_dump(data))
    return folder / "case.yaml"


def write_event(path: Path, tool: str = "Write", cwd: Path | None = None) -> dict:
    return {"tool_name": tool, "tool_input": {"file_path": str(path), "content": "x"}, "cwd": str(cwd or path.parent)}


def shell(command: list[str] | str) -> dict:
    return {
        "tool_name": "Bash",
        "tool_input": {"command": command if isinstance(command, str) else shlex.join(command)},
    }


# ---- read-only by construction -------------------------------------------------------------------------


def test_the_permission_rules_allow_the_eval_dir_and_deny_the_rest_of_the_plugin(root):
    cfg = new_config(root, "evals", "interview")
    rules = permission_settings(cfg)
    assert rules["allow"][0] == f"Edit(/{root}/evals/**)"
    for path in (".claude-plugin", "skills", "README.md", "commands", "agents", "hooks", ".mcp.json", ".claude"):
        assert f"Edit(/{root}/{path})" in rules["deny"] and f"Edit(/{root}/{path}/**)" in rules["deny"], path
    assert not any("/evals" in r for r in rules["deny"])
    assert rules["blockWritesOutsideWorkingDirectories"] is True
    assert rules["disableBypassPermissionsMode"] == "disable"
    # Bash: our check, the free rehearsal and the pilot (whose bound the guard checks), nothing else
    bash = [r for r in rules["allow"] if r.startswith("Bash(")]
    assert bash[0] == f"Bash({shlex.join(cfg.check_argv())})"
    assert bash[-1].endswith("--runs 1 --json evals/results/pilot.json --max-cost-usd *)")
    assert [r for r in permission_settings(new_config(root, "evals", "draft"))["allow"] if r.startswith("Bash(")] == [
        f"Bash({shlex.join(cfg.check_argv())})"
    ]


def test_a_nested_eval_dir_keeps_its_siblings_denied(root):
    (root / "qa" / "evals").mkdir(parents=True)
    (root / "qa" / "notes.md").write_text("")
    rules = permission_settings(new_config(root, "qa/evals", "interview", eval_dir_option=True))
    assert f"Edit(/{root}/qa/notes.md)" in rules["deny"] and f"Edit(/{root}/qa)" not in rules["deny"]
    assert rules["allow"][0] == f"Edit(/{root}/qa/evals/**)"


def test_the_hooks_run_this_package_on_writes_shell_commands_and_the_end_of_a_turn(root, tmp_path):
    config = tmp_path / "session.json"
    hooks = settings(new_config(root, "evals", "interview"), config)["hooks"]
    assert hooks["PreToolUse"][0]["matcher"] == "Write|Edit|MultiEdit|NotebookEdit|Bash"
    assert hooks["PostToolUse"][0]["matcher"] == "Write|Edit|MultiEdit|NotebookEdit"
    for event, kind in (("PreToolUse", "guard"), ("PostToolUse", "post"), ("Stop", "stop")):
        command = hooks[event][0]["hooks"][0]["command"]
        assert shlex.split(command)[1:] == ["-B", "-m", "pytest_plugin_eval.cli.hooks", kind, str(config)]


def test_the_guard_lets_writes_in_the_eval_dir_through_and_refuses_the_rest(root):
    cfg = new_config(root, "evals", "interview")
    assert guard(write_event(root / "evals" / "c" / "case.yaml"), cfg).code == 0
    assert guard(write_event(Path("evals/c/case.yaml"), cwd=root), cfg).code == 0  # relative to the session's cwd
    # under a deny rule: left to the permission rules, which refuse it themselves
    assert guard(write_event(root / "skills" / "greet" / "SKILL.md"), cfg).code == 0
    # what no path rule can name: a new file beside the eval dir, or outside the plugin
    for path in (root / "NEW.md", root.parent / "elsewhere.txt", root / "evals" / ".." / "NEW.md"):
        answer = guard(write_event(path), cfg)
        assert answer.code == 2 and "is outside evals/" in answer.message, path
    answer = guard(write_event(root / "evals" / "results" / "x.json"), cfg)
    assert answer.code == 2 and "holds what the runner writes" in answer.message
    assert guard({"tool_name": "Read", "tool_input": {"file_path": "/etc/passwd"}}, cfg).code == 0


def test_the_guard_refuses_a_symlink_out_of_the_eval_dir(root):
    (root / "evals" / "link").symlink_to(root / "skills")
    answer = guard(write_event(root / "evals" / "link" / "greet" / "SKILL.md"), new_config(root, "evals", "interview"))
    assert answer.code == 2


def test_a_draft_adds_cases_and_never_overwrites(root):
    existing = write_case(root, "old", NOT_FIRE)
    (root / "evals" / "mocks" / "tracker").mkdir(parents=True)
    (root / "evals" / "mocks" / "tracker" / "get.md").write_text("ok\n")
    cfg = new_config(root, "evals", "draft")
    assert cfg.existing_cases == ["evals/old"] and cfg.notes == "evals/DRAFT.md"
    for path, message in (
        (existing, "existed before this draft"),
        (root / "evals" / "mocks" / "tracker" / "get.md", "existed before this draft"),
        (root / "evals" / "old" / "graders" / "new.md", "inside the existing case evals/old"),
    ):
        answer = guard(write_event(path), cfg)
        assert answer.code == 2 and message in answer.message
    assert guard(write_event(root / "evals" / "new-case" / "case.yaml"), cfg).code == 0
    assert guard(write_event(root / "evals" / "mocks" / "tracker" / "list.md"), cfg).code == 0
    # an interview may revise the cases that were there
    assert guard(write_event(existing), new_config(root, "evals", "interview")).code == 0
    (root / "evals" / "DRAFT.md").write_text("")
    assert new_config(root, "evals", "draft").notes == "evals/DRAFT-2.md"


def test_only_our_commands_run(root):
    cfg = new_config(root, "evals", "interview")
    assert guard(shell(cfg.check_argv()), cfg).code == 0
    assert guard(shell(cfg.plumbing_argv()), cfg).code == 0
    for command in (
        "ls -la",
        "cat skills/greet/SKILL.md",
        shlex.join(cfg.check_argv()) + " && echo x > skills/greet/SKILL.md",
        shlex.join(cfg.check_argv()) + "; rm -rf skills",
        shlex.join(cfg.check_argv()) + " $(touch x)",
        shlex.join([*cfg.check_argv(), "--eval-dir", "/"]),
        "unbalanced 'quote",
    ):
        answer = guard(shell(command), cfg)
        assert answer.code == 2 and answer.message.startswith("only these commands run in this session: "), command
    draft = new_config(root, "evals", "draft")
    assert guard(shell(cfg.plumbing_argv()), draft).code == 2
    assert "a draft runs no pilot" in guard(shell("ls"), draft).message


def test_the_pilot_runs_only_on_a_checked_suite_within_its_bound(root):
    cfg = new_config(root, "evals", "interview")
    write_case(root, "fires", [{"name": "g", "type": "regex", "pattern": "x"}])
    answer = guard(shell(cfg.pilot_argv(0.5)), cfg)
    assert answer.code == 2 and "the pilot runs only on a suite that passes the check" in answer.message
    assert "no should-not-fire case" in answer.message
    write_case(root, "unrelated", NOT_FIRE, execution={"prompt": "2+2?", "allowed_tools": ["Write"]})
    bound = cfg.check(session_only=False).estimate.pilot_bound
    assert guard(shell(cfg.pilot_argv(bound)), cfg).code == 0
    assert guard(shell(cfg.pilot_argv(bound / 2, ["Write"])), cfg).code == 0  # the grant a case asks for
    too_high = guard(shell(cfg.pilot_argv(bound + 0.01)), cfg)
    assert too_high.code == 2 and f"above the pilot's bound for this suite, ${bound:.2f}" in too_high.message
    unasked = guard(shell(cfg.pilot_argv(bound, ["Bash"])), cfg)
    assert unasked.code == 2 and "grants Bash, which no case asks for" in unasked.message
    for argv in (
        [a for a in cfg.pilot_argv(bound) if a != "--trust-plugin"],
        cfg.pilot_argv(bound) + ["--ablation", "none"],
        [a.replace("--runs", "--runs=1") for a in cfg.pilot_argv(bound)],
        [*cfg.pilot_argv(bound)[:-1], "-1"],
    ):
        assert guard(shell(argv), cfg).code == 2, argv


def test_after_a_write_the_loader_speaks(root):
    cfg = new_config(root, "evals", "interview")
    path = write_case(root, "broken", [{"name": "g", "type": "regex", "pattern": "x"}], runz=3)
    answer = post(write_event(path), cfg)
    assert answer.code == 2
    assert answer.message.startswith("evals/broken: the suite loader says\n  ✗ evals/broken/case.yaml: runz: is not")
    fixed = write_case(root, "broken", [{"name": "g", "type": "tool_used", "tool": "Skill"}])
    answer = post(write_event(fixed), cfg)
    assert answer.code == 2 and "has no outcome grader" in answer.message  # the case's own floor, at once
    write_case(root, "broken", NOT_FIRE)
    assert post(write_event(fixed), cfg).code == 0
    # outside the eval dir, or a grader before its case file: nothing to say yet
    assert post(write_event(root / "README.md"), cfg).code == 0
    assert post(write_event(root / "evals" / "later" / "graders" / "g.md"), cfg).code == 0


def test_a_trigger_set_written_is_loaded_at_once(root):
    cfg = new_config(root, "evals", "interview")
    path = root / "evals" / "triggers.yaml"
    path.write_text("skills:\n  gret:\n    should_fire: [hello]\n")
    answer = post(write_event(path), cfg)
    assert answer.code == 2 and answer.message.startswith("evals/triggers.yaml: the trigger set loader says")
    assert "did you mean greet?" in answer.message
    path.write_text("skills:\n  greet:\n    should_fire: [hello]\n    should_not_fire: [what is two plus two]\n")
    assert post(write_event(path), cfg).code == 0


def test_a_trigger_set_whose_query_names_the_skill_is_sent_back(root):
    """What `plugin-eval tune` would refuse is said as the set is written; a query in the user's words is not."""
    cfg = new_config(root, "evals", "interview")
    path = root / "evals" / "triggers.yaml"
    path.write_text(
        "skills:\n  greet:\n    should_fire: [use the greet skill on me]\n    should_not_fire: [what is two plus two]\n"
    )
    answer = post(write_event(path), cfg)
    assert answer.code == 2 and answer.message.startswith("evals/triggers.yaml: a query that names what Claude")
    assert "⚑ greet · " in answer.message and "names skill " in answer.message and '("greet skill")' in answer.message
    path.write_text("skills:\n  greet:\n    should_fire: [hello there]\n    should_not_fire: [what is two plus two]\n")
    assert post(write_event(path), cfg).code == 0


def test_the_case_format_the_interview_reads_tells_how_to_write_trigger_sets():
    text = (Path(authoring.__file__).parent / "prompts" / "case-format.md").read_text()
    assert "### Trigger sets" in text and "should_not_fire" in text


def test_the_case_format_the_interview_reads_tells_how_to_answer_a_skill_that_asks():
    text = (Path(authoring.__file__).parent / "prompts" / "case-format.md").read_text()
    assert all(f"`{key}`" in text for key in ("turns", "answers", "user")) and "AskUserQuestion" in text


def test_a_mock_written_is_checked_against_the_cases_of_the_session(root):
    cfg = new_config(root, "evals", "interview")
    write_case(root, "c", NOT_FIRE)
    mock = root / "evals" / "mocks" / "tracker" / "create.md"
    mock.parent.mkdir(parents=True)
    mock.write_text("---\nexpect: [1, 2]\n---\nok\n")
    answer = post(write_event(mock), cfg)
    assert answer.code == 2 and "mocks/tracker/create.md" in answer.message


def test_the_end_of_a_turn_waits_for_loading_cases_and_the_end_of_the_session_for_the_floor(root):
    cfg = new_config(root, "evals", "interview")
    assert stop({"last_assistant_message": "What should the suite cover?"}, cfg).code == 0
    write_case(root, "fires", [{"name": "g", "type": "regex", "pattern": "x"}])
    assert stop({"last_assistant_message": "Here is the table."}, cfg).code == 0  # loads; the floor can wait
    final = stop({"last_assistant_message": f"{READY}\nAll done."}, cfg)
    assert final.code == 2 and "must pass the check before the session ends" in final.message
    assert "no should-not-fire case" in final.message
    write_case(root, "broken", [{"name": "g", "type": "regex", "pattern": "("}])
    mid = stop({"last_assistant_message": "Shall I go on?"}, cfg)
    assert mid.code == 2 and "a case you wrote does not load" in mid.message and "evals/broken/case.yaml" in mid.message
    write_case(root, "broken", NOT_FIRE)
    assert stop({"last_assistant_message": f"{READY}\nAll done."}, cfg).code == 0


def test_the_interview_does_not_leave_a_case_with_a_finding(root):
    """A case that loads and meets its floor but would measure less than it seems is sent back after its write
    and at the end of the session; a well-formed one (the near-miss) is not."""
    cfg = new_config(root, "evals", "interview")
    leaky = [{"name": "answers", "type": "regex", "pattern": "0 errors"}, *NOT_FIRE[1:]]
    path = write_case(root, "leaky", leaky)
    answer = post(write_event(path), cfg)
    assert answer.code == 2 and "would measure less than it seems" in answer.message
    assert '⚑ case "leaky": grader "answers": /0 errors/ opens on a digit' in answer.message
    final = stop({"last_assistant_message": f"{READY}\nAll done."}, cfg)
    assert final.code == 2 and "[unanchored-number]" in final.message
    write_case(root, "leaky", [{"name": "answers", "type": "regex", "pattern": "\\b0 errors"}, *NOT_FIRE[1:]])
    assert post(write_event(path), cfg).code == 0
    assert stop({"last_assistant_message": f"{READY}\nAll done."}, cfg).code == 0


def test_a_draft_ends_only_with_new_cases_that_meet_the_floor(root):
    write_case(root, "old", [{"name": "g", "type": "tool_used", "tool": "Skill"}], runs=1)  # not the draft's
    cfg = new_config(root, "evals", "draft")
    first = stop({"last_assistant_message": "done"}, cfg)
    assert first.code == 2 and "the draft holds no new case yet" in first.message
    assert "evals/old" not in first.message
    write_case(root, "new-one", NOT_FIRE)
    assert stop({"last_assistant_message": "done"}, cfg).code == 0


# ---- what the model is told -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["interview", "draft"])
def test_the_system_prompt_is_ours_with_every_placeholder_filled(root, mode):
    write_case(root, "old", NOT_FIRE)
    cfg = new_config(root, "evals", mode, scripted=True)
    text = system_prompt(cfg)
    assert not re.search(r"@@[A-Z_]+@@", text)
    assert shlex.join(cfg.check_argv()) in text and READY in text and "`greeter`" in text
    assert "## The case format (pytest-plugin-eval)" in text and "graders/<name>.py" in text
    assert "scripted.yaml" in text and "`min: 0`, `max: 0`" in text
    if mode == "interview":
        assert cfg.pilot_template() in text and "--max-cost-usd <BOUND> --scripted" in text and "GATE" in text
        assert "--scripted" in shlex.join(cfg.pilot_argv(0.0))
    else:
        assert "evals/DRAFT.md" in text and "evals/old" in text and "Do not stop to ask" in text


def test_without_a_terminal_init_names_bare_and_draft(capsys):
    assert init([]) == 1
    err = capsys.readouterr().err
    assert err == NO_TERMINAL + "\n"
    assert "plugin-eval init --bare NAME" in err and "plugin-eval init --draft [TARGET]" in err


def test_a_draft_without_a_terminal_needs_trust(root, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert init(["--draft", str(root)]) == 1
    assert "is not a trusted plugin directory" in capsys.readouterr().err
    assert not (root / ".gitignore").exists()  # nothing was started or written

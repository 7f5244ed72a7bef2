"""`plugin-eval init` end to end: the interview in a pseudo-terminal and the draft without one, each a session of
the real Claude Code answered by a scripted model; the suite they write is then loaded, checked and run."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import pty
import re
import select
import shlex
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
import yaml

from pytest_plugin_eval.doubles.scripted import ScriptedEndpoint
from pytest_plugin_eval.load.script import parse_script
from pytest_plugin_eval.suite_check.suite import check_suite, plugin_eval_argv

PLUGIN_EVAL = [sys.executable, "-m", "pytest_plugin_eval.cli.main"]
API_KEY = "sk-ant-scripted-0123456789abcdefghijklmnop"
DENIED = "denied by your permission settings"
ANSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


def case_yaml(name: str, prompt: str, graders: list[dict]) -> str:
    return yaml.safe_dump(
        {
            "schema_version": "1.0",
            "name": name,
            "runs": 3,
            "execution": {"prompt": prompt, "max_turns": 5},
            "graders": graders,
        },
        sort_keys=False,
    )


# The suite the scripted author writes: a should-fire case and a should-not-fire case, each with a scripted.yaml.
SAYS_HELLO = case_yaml(
    "says-hello",
    "hey, I just joined the team",
    [
        {"name": "greets", "type": "regex", "pattern": "^Hello from the plugin"},
        {"name": "skill-fired", "type": "tool_used", "tool": "Skill"},
    ],
)
SAYS_HELLO_SCRIPT = (
    "with:\n  - tool: Skill\n    input: {skill: 'greeter:greet'}\n  - text: Hello from the plugin, welcome!\n"
    "without:\n  - text: Hi.\n"
)
UNRELATED = case_yaml(
    "unrelated-question",
    "what is 2 + 2?",
    [
        {"name": "answers", "type": "regex", "pattern": "\\b4\\b"},
        {"name": "did-not-fire", "type": "tool_used", "tool": "Skill", "min": 0, "max": 0, "arm": "both"},
    ],
)
UNRELATED_SCRIPT = "all:\n  - text: 'It is 4.'\n"
SUITE_FILES = {
    "says-hello/case.yaml": SAYS_HELLO,
    "says-hello/scripted.yaml": SAYS_HELLO_SCRIPT,
    "unrelated-question/case.yaml": UNRELATED,
    "unrelated-question/scripted.yaml": UNRELATED_SCRIPT,
}


def write(path: Path, content: str) -> dict:
    return {"tool": "Write", "input": {"file_path": str(path), "content": content}}


def pilot_bound(root: Path, tmp_path: Path) -> float:
    """The bound the check gives the suite above: computed on a copy, before the session writes it."""
    copy = tmp_path / "bound" / root.name
    (copy / "skills" / "greet").mkdir(parents=True)
    (copy / ".claude-plugin").mkdir()
    (copy / ".claude-plugin" / "plugin.json").write_text((root / ".claude-plugin" / "plugin.json").read_text())
    (copy / "skills" / "greet" / "SKILL.md").write_text((root / "skills" / "greet" / "SKILL.md").read_text())
    for rel, content in SUITE_FILES.items():
        (copy / "evals" / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / "evals" / rel).write_text(content)
    result = check_suite(copy)
    assert result.ok and result.estimate is not None, result.render_problems()
    return result.estimate.pilot_bound


def session_env(tmp_path: Path, cwd: Path, base_url: str) -> dict[str, str]:
    """A throwaway HOME whose Claude Code config has onboarding done, the key approved and the folder trusted,
    so that the terminal UI starts straight into the session."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "lastOnboardingVersion": "2.1.327",
                "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
                "projects": {str(cwd): {"hasTrustDialogAccepted": True}},
            }
        )
    )
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),  # where the trust answer is remembered
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": base_url,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
    }


def squashed(data: bytes) -> str:
    """What the terminal shows, without escape sequences and whitespace (the UI moves the cursor between
    words)."""
    return re.sub(r"\s+", "", ANSI.sub(b"", data).decode("utf-8", errors="replace"))


class Terminal:
    """A process in a pseudo-terminal: wait for what it shows, type into it."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: its stdin, stdout and stderr are the terminal
            try:
                os.chdir(cwd)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        self.output = b""
        self.status: int | None = None

    def _read(self, timeout: float) -> bool:
        """Read what is there (up to `timeout` seconds); False once the terminal closed."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError as e:
            if e.errno == errno.EIO:
                return False
            raise
        self.output += data
        return bool(data)

    def expect(self, text: str, timeout: float = 120, start: int = 0) -> int:
        """Wait until `text` is on the screen (after byte `start`); the offset where the output then ended."""
        deadline, wanted = time.monotonic() + timeout, re.sub(r"\s+", "", text)
        while wanted not in squashed(self.output[start:]):
            if time.monotonic() > deadline or not self._read(min(1.0, deadline - time.monotonic())):
                raise AssertionError(f"{text!r} never appeared; the screen ended with:\n{self.tail()}")
        return len(self.output)

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def wait(self, timeout: float = 120) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                while self._read(0.2):  # what it printed last
                    pass
                return self.status
            self._read(0.5)
        raise AssertionError(f"the process did not end; the screen ended with:\n{self.tail()}")

    def tail(self) -> str:
        return ANSI.sub(b"", self.output[-3000:]).decode("utf-8", errors="replace")

    def close(self) -> None:
        if self.status is None:
            try:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        os.close(self.fd)


class RecordingEndpoint(ScriptedEndpoint):
    """The scripted endpoint, keeping every agent request's body: what the model was shown."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[dict] = []

    def _reply(self, token, route, body):
        if body.get("tools"):
            self.bodies.append(body)
        return super()._reply(token, route, body)

    def shown(self) -> str:
        """Every system prompt and message the model was sent, as one text."""
        return "\n".join(json.dumps([b.get("system"), b.get("messages")], ensure_ascii=False) for b in self.bodies)


@pytest.fixture
def endpoint():
    with RecordingEndpoint() as ep:
        yield ep


@pytest.fixture
def greeter(suite):
    """The conftest's `greeter` plugin (one skill), with no case yet."""
    return suite.root


def tool_results(transcript: Path) -> list[str]:
    out = []
    for line in transcript.read_text().splitlines():
        entry = json.loads(line)
        content = (entry.get("message") or {}).get("content") if entry.get("type") == "user" else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                out.append(str(block.get("content")))
    return out


def test_the_interview_writes_a_suite_that_loads_pilots_it_and_leaves_the_plugin_alone(
    greeter, endpoint, tmp_path, monkeypatch
):
    for name in ("ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL"):
        monkeypatch.delenv(name, raising=False)
    root, evals = greeter, greeter / "evals"
    skill = (root / "skills" / "greet" / "SKILL.md").read_text()
    pilot = plugin_eval_argv(short=False) + [".", "--trust-plugin", "--runs", "1", "--json", "evals/results/pilot.json"]
    pilot += ["--max-cost-usd", f"{pilot_bound(root, tmp_path):.2f}", "--scripted"]
    check = plugin_eval_argv(short=False) + ["check", ".", "--scripted"]
    script = parse_script(
        {
            "with": [
                {"tool": "Read", "input": {"file_path": str(root / "skills" / "greet" / "SKILL.md")}},
                {"text": "I found one skill, greet. Which flow should the suite cover first?"},
                write(root / "skills" / "greet" / "SKILL.md", "rewritten\n"),
                *(write(evals / rel, content) for rel, content in SUITE_FILES.items()),
                {"tool": "Bash", "input": {"command": shlex.join(check)}},
                {"text": "The pilot is bounded by the check's figure. Shall I run it?"},
                {"tool": "Bash", "input": {"command": shlex.join(pilot)}},
                {"tool": "Read", "input": {"file_path": str(evals / "results" / "pilot.json")}},
                {"text": "EVAL SUITE READY\nThe suite is written; run it with plugin-eval."},
            ]
        }
    )
    env = session_env(tmp_path, root, endpoint.agent_url(script))
    terminal = Terminal([*PLUGIN_EVAL, "init", "--scripted"], root, env)
    try:
        terminal.expect("Trust this plugin directory? [y/N]")
        terminal.send("y\r")
        mark = terminal.expect("Which flow should the suite cover first?")
        terminal.send("the greeting\r")
        mark = terminal.expect("Shall I run it?", timeout=180, start=mark)
        terminal.send("yes\r")
        terminal.expect("EVAL SUITE READY", timeout=300, start=mark)
        terminal.send("/exit\r")
        status = terminal.wait()
    finally:
        terminal.close()
    screen = terminal.tail()
    assert status == 0, screen
    assert "✓ evals/: 2 case(s) load and meet the floor" in screen
    # the plugin is untouched: the write under skills/ was refused by the session's permission rules
    assert (root / "skills" / "greet" / "SKILL.md").read_text() == skill
    transcript = next((tmp_path / "home" / ".claude" / "projects").glob("*/*.jsonl"))
    results = tool_results(transcript)
    assert DENIED in results[1]
    # the pilot ran through pytest-plugin-eval, one run per case and arm, and its results were read back
    pilot_doc = json.loads((evals / "results" / "pilot.json").read_text())
    assert [len(c["arms"]["with"]) + len(c["arms"]["without"]) for c in pilot_doc["cases"]] == [2, 2]
    assert pilot_doc["loadErrors"] == []
    assert any('"schemaVersion"' in r for r in results)
    # the model was told our authoring prompt, with the exact commands
    system = json.dumps(endpoint.bodies[0]["system"], ensure_ascii=False)
    assert "Writing an eval suite with the plugin's author" in system and shlex.join(check) in system
    checked = subprocess.run([*PLUGIN_EVAL, "check", str(root)], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads((tmp_path / "xdg" / "pytest-plugin-eval" / "trusted.json").read_text())["trusted"] == [
        str(root.resolve())
    ]


def plugin_eval(cwd: Path, *args: str, env: dict[str, str], stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*PLUGIN_EVAL, *args], cwd=cwd, env=env, stdin=stdin, capture_output=True, text=True, timeout=600
    )


def test_without_a_terminal_init_says_what_to_use_instead(greeter, tmp_path):
    out = plugin_eval(greeter, "init", env=session_env(tmp_path, greeter, "http://127.0.0.1:9"))
    assert out.returncode == 1
    assert "plugin-eval init --bare NAME" in out.stderr and "plugin-eval init --draft" in out.stderr
    assert not (greeter / "evals" / "results").exists()  # nothing was started


def test_a_draft_from_real_prompts_loads_and_never_touches_the_plugin_or_an_existing_case(greeter, endpoint, tmp_path):
    root, evals = greeter, greeter / "evals"
    (evals / "old-case").mkdir()
    (evals / "old-case" / "prompt.md").write_text("Say hello.\n")
    (evals / "old-case" / "graders").mkdir()
    (evals / "old-case" / "graders" / "greets.md").write_text("---\ntype: regex\npattern: Hello\n---\n")
    old = (evals / "old-case" / "prompt.md").read_text()
    skill = (root / "skills" / "greet" / "SKILL.md").read_text()
    traffic = tmp_path / "traffic"
    traffic.mkdir()
    (traffic / "prompts.txt").write_text("hey, I just joined the team\n\nmorning all!\n")
    (traffic / "session.jsonl").write_text(
        "\n".join(
            json.dumps(line)
            for line in (
                {"type": "user", "message": {"role": "user", "content": "hello, who are you?"}},
                {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi"}]}},
                {"type": "user", "message": {"content": [{"type": "tool_result", "content": "x"}]}},
                {"type": "user", "isMeta": True, "message": {"content": "<command-name>/clear</command-name>"}},
            )
        )
        + "\n"
    )
    broken = SAYS_HELLO.replace("runs: 3", "runz: 3")
    script = parse_script(
        {
            "with": [
                {"tool": "Read", "input": {"file_path": str(root / "skills" / "greet" / "SKILL.md")}},
                write(root / "skills" / "greet" / "SKILL.md", "rewritten\n"),
                write(root / "NOTES.md", "notes beside the plugin\n"),
                write(evals / "old-case" / "prompt.md", "Overwritten.\n"),
                write(evals / "says-hello" / "case.yaml", broken),
                write(evals / "says-hello" / "case.yaml", SAYS_HELLO),
                write(evals / "says-hello" / "scripted.yaml", SAYS_HELLO_SCRIPT),
                {"tool": "Bash", "input": {"command": "ls -la"}},
                {"text": "EVAL SUITE READY (too early: no should-not-fire case yet)"},
                write(evals / "unrelated-question" / "case.yaml", UNRELATED),
                write(evals / "unrelated-question" / "scripted.yaml", UNRELATED_SCRIPT),
                write(evals / "DRAFT.md", "# Draft\nsays-hello comes from prompts.txt.\n"),
                {"text": "EVAL SUITE READY\nTwo cases drafted."},
            ]
        }
    )
    env = session_env(tmp_path, root, endpoint.agent_url(script))
    # an author whose own settings allow every edit without asking, and turn hooks off: ours still hold
    (tmp_path / "home" / ".claude" / "settings.json").write_text(
        json.dumps(
            {"permissions": {"allow": ["Write", "Edit", "Bash"], "defaultMode": "acceptEdits"}, "disableAllHooks": True}
        )
    )
    out = plugin_eval(
        root,
        "init",
        "--draft",
        "--trust-plugin",
        "--from",
        str(traffic / "prompts.txt"),
        str(traffic / "session.jsonl"),
        env=env,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Drafted 2 case(s): evals/says-hello, evals/unrelated-question" in out.stdout
    assert "✓ evals/: 3 case(s) load and meet the floor" in out.stdout
    # the real prompts reached the model, the transcript's own prompt among them, its tool results not
    opening = json.dumps(endpoint.bodies[0]["messages"][0], ensure_ascii=False)
    assert "hey, I just joined the team" in opening and "hello, who are you?" in opening
    assert "3 prompt(s)" in opening and "/clear" not in opening
    # read-only by construction: the permission rules refused the skill, our guard the rest
    assert (root / "skills" / "greet" / "SKILL.md").read_text() == skill
    assert not (root / "NOTES.md").exists() and (evals / "old-case" / "prompt.md").read_text() == old
    results = tool_results(next((evals / "results" / "init").glob("draft-*.jsonl")))
    assert DENIED in results[1]
    assert "is outside evals/" in results[2] and "a draft adds cases and never overwrites" in results[3]
    assert "only these commands run" in results[7]
    # what the model wrote was checked by the loader, and the end was held until the floor was met
    shown = endpoint.shown()
    assert "evals/says-hello/case.yaml: runz: is not a case.yaml key" in shown
    assert "Stop hook feedback" in shown and "no should-not-fire case" in shown
    checked = subprocess.run([*PLUGIN_EVAL, "check", str(root)], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout


def test_a_draft_does_not_end_with_a_case_that_has_a_finding(greeter, endpoint, tmp_path):
    """The author writes a case whose prompt names the skill: the write is answered with the finding, the end of
    the session is held while it stands, and the suite left behind has none."""
    root, evals = greeter, greeter / "evals"
    leaky = SAYS_HELLO.replace("hey, I just joined the team", "use the greet skill to welcome me")
    script = parse_script(
        {
            "with": [
                write(evals / "says-hello" / "case.yaml", leaky),
                write(evals / "says-hello" / "scripted.yaml", SAYS_HELLO_SCRIPT),
                write(evals / "unrelated-question" / "case.yaml", UNRELATED),
                write(evals / "unrelated-question" / "scripted.yaml", UNRELATED_SCRIPT),
                {"text": "EVAL SUITE READY (the finding still stands)"},
                write(evals / "says-hello" / "case.yaml", SAYS_HELLO),
                {"text": "EVAL SUITE READY\nTwo cases drafted."},
            ]
        }
    )
    out = plugin_eval(
        root, "init", "--draft", "--trust-plugin", env=session_env(tmp_path, root, endpoint.agent_url(script))
    )
    assert out.returncode == 0, out.stdout + out.stderr
    shown = endpoint.shown()
    assert "evals/says-hello: A case with a finding would measure less than it seems" in shown
    assert "the prompt names skill greeter:greet" in shown
    assert "Stop hook feedback" in shown and "[prompt-names-skill]" in shown.split("Stop hook feedback", 1)[1]
    checked = subprocess.run([*PLUGIN_EVAL, "check", str(root), "--json"], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0 and json.loads(checked.stdout)["findings"] == [], checked.stdout


def test_a_new_user_drafts_the_example_plugin_and_runs_it_offline(endpoint, tmp_path):
    root = tmp_path / "commit-craft"
    source = Path(__file__).resolve().parents[2] / "example_plugin"
    subprocess.run(["cp", "-r", str(source), str(root)], check=True)
    for results in (root / "evals" / "results",):
        subprocess.run(["rm", "-rf", str(results)], check=True)
    evals = root / "evals"
    existing = evals / "writes-changelog" / "prompt.md"  # a case already there, below the floor: not the draft's
    existing.write_text(existing.read_text().replace("runs: 3", "runs: 2"))
    not_fire = case_yaml(
        "explains-a-merge-conflict",
        "git says I have a merge conflict in users.py. What does that mean?",
        [
            {
                "name": "explains",
                "type": "regex",
                "pattern": "both branches changed",
                "flags": "i",
            },
            {"name": "did-not-fire", "type": "tool_used", "tool": "Skill", "min": 0, "max": 0, "arm": "both"},
        ],
    )
    fire = case_yaml(
        "commit-message-for-a-fix",
        "Fixed the off-by-one in paginate(); the last page was dropped. Commit message please?",
        [
            {"name": "conventional", "type": "regex", "pattern": "^fix(\\([\\w-]+\\))?: \\S", "flags": "m"},
            {"name": "skill-fired", "type": "tool_used", "tool": "Skill"},
        ],
    )
    script = parse_script(
        {
            "with": [
                {"tool": "Glob", "input": {"pattern": "skills/*/SKILL.md"}},
                write(evals / "commit-message-for-a-fix" / "case.yaml", fire),
                write(
                    evals / "commit-message-for-a-fix" / "scripted.yaml",
                    "with:\n  - tool: Skill\n    input: {skill: 'commit-craft:commit-message'}\n"
                    "  - text: 'fix(pagination): keep the last page'\nwithout:\n  - text: Fixed a bug.\n",
                ),
                write(evals / "explains-a-merge-conflict" / "case.yaml", not_fire),
                write(
                    evals / "explains-a-merge-conflict" / "scripted.yaml",
                    "all:\n  - text: Both branches changed the same lines of users.py.\n",
                ),
                {"text": "EVAL SUITE READY"},
            ]
        }
    )
    env = session_env(tmp_path, root, endpoint.agent_url(script))
    out = plugin_eval(root, "init", "--draft", "--trust-plugin", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Drafted 2 case(s)" in out.stdout
    # the cases that were there keep their own problems, reported apart (runs: 2 is below the floor)
    assert "not the draft's to fix" in out.stdout and "writes-changelog/prompt.md: runs: is 2" in out.stdout
    env.pop("ANTHROPIC_BASE_URL")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "evals",
            "--trust-plugin",
            "--scripted",
            "--allow-tools",
            "Write",
            "--runs",
            "1",
            "-j",
            "4",
            "-p",
            "no:cacheprovider",
            "--json",
            "r.json",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    doc = json.loads((root / "r.json").read_text())
    assert run.returncode == 0, run.stdout[-3000:]
    assert doc["loadErrors"] == []
    scores = {c["name"]: c["aggregates"]["score"] for c in doc["cases"]}
    assert scores["commit-message-for-a-fix"] == 1.0 and scores["explains-a-merge-conflict"] == 1.0


def test_a_draft_without_credentials_says_claude_codes_own_error_and_what_to_do(greeter, tmp_path):
    """Issue 23 item 6: the cause was only in the saved transcript; it is printed, with what to do."""
    env = session_env(tmp_path, greeter, "http://127.0.0.1:9")
    del env["ANTHROPIC_API_KEY"], env["ANTHROPIC_BASE_URL"]
    out = plugin_eval(greeter, "init", "--draft", "--trust-plugin", env=env)
    assert out.returncode == 1
    assert "Error: the drafting session failed (exit 1): Claude Code said: Not logged in · Please run /login" in (
        out.stderr
    ), out.stderr
    assert "/login" in out.stderr and "`claude setup-token`" in out.stderr and "--scripted" in out.stderr

"""The proposer of `plugin-eval tune`: Claude Code asked, in our words, for a better description of one skill.

It is an isolated `claude -p` run like every other (a throwaway HOME and working directory, no plugin) that may
use no tool at all: everything it needs is in the prompt — the skill's SKILL.md, its siblings' names and
descriptions, the train queries it fails with their fire rates, and every earlier attempt with its train result.
Validation and test queries are never in it. Its reply must hold one description between <description> tags,
within Claude Code's limits for the field; anything else is rejected and asked again once.

Under `--scripted` the replies come from `tune.scripted.yaml` in the eval dir (`proposer:`, one per call, the last
repeated), served by the scripted endpoint to the real binary.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import UsageError
from ..core.problems import SpecError
from ..core.yamlio import YamlError, load_yaml
from ..load.case import Case
from ..load.script import ArmScript, Script, parse_turns, text_turn
from ..load.skills import Component
from .apply import MAX_DESCRIPTION

SCRIPT_NAME = "tune.scripted.yaml"
TRIES = 2  # a reply that is no description is asked again once
MAX_TURNS = 2
TIMEOUT_SECONDS = 300
READ_ONLY = ("Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "WebFetch", "WebSearch", "Task", "Agent")
_TAGGED = re.compile(r"<description>(.*?)</description>", re.S)
_XML = re.compile(r"</?[A-Za-z][^>]*>")


class ProposerScriptError(UsageError):
    """A tune.scripted.yaml that cannot be read; the message names the file and the key."""


@dataclass(frozen=True)
class Failure:
    query: str
    should_fire: bool
    fired: int
    runs: int


@dataclass(frozen=True)
class Attempt:
    description: str
    train_score: float  # mean correctness over train
    right: int  # train queries on the right side
    total: int


@dataclass(frozen=True)
class Proposal:
    description: str | None  # None: both tries were rejected
    cost_usd: float
    calls: int
    rejected: tuple[str, ...] = ()  # why each rejected reply was rejected
    errors: tuple[str, ...] = ()


PROMPT = """You improve the `description` of one skill of a Claude Code plugin. Claude Code shows Claude every
skill's name and description, and Claude decides from them alone whether to consult a skill for a user's request.
The description must make Claude consult this skill for the requests it serves and leave it alone for the others
(near-misses that belong to another skill, or to no skill).

The skill `{name}` — its SKILL.md as it is now:
<skill_md>
{skill_md}
</skill_md>
{when_to_use}
The plugin's other skills and commands (a description that takes their requests is rejected):
{siblings}

How the current best description does on the training requests (each run {runs_word}):
<current_description>
{current}
</current_description>
{failures}

{attempts}
Write one new description. Describe what the skill does and when to use it, in general terms a user's request
would match; do not copy the requests above word for word (the description is judged on other requests). Plain
text, at most {limit} characters, no XML tags, no line breaks.

Reply with the description alone, between <description> and </description>.
"""


def prompt(
    name: str,
    skill_md: str,
    siblings: Sequence[Component],
    current: str,
    failures: Sequence[Failure],
    attempts: Sequence[Attempt],
    when_to_use: str | None = None,
) -> str:
    """The proposer's prompt: only train failures and earlier train results, never validation or test. Each
    description is given as Claude sees it: Claude Code appends a skill's `when_to_use` (which tune keeps)."""
    sibling_lines = "\n".join(f"- {s.qualified_name}: {s.seen or '(no description)'}" for s in siblings) or "(none)"
    appended = (
        f'Claude Code shows Claude the description followed by " - " and the skill\'s `when_to_use`, which stays as '
        f"it is whatever description you write: {when_to_use}\n"
        if when_to_use
        else ""
    )
    if failures:
        lines = [
            f"- should {'fire' if f.should_fire else 'NOT fire'}, fired {f.fired}/{f.runs}: {f.query}" for f in failures
        ]
        failure_text = "Requests it gets wrong:\n" + "\n".join(lines)
    else:
        failure_text = "It gets every training request right."
    if attempts:
        tried = [f'- {a.right}/{a.total} right (score {a.train_score:.2f}): "{a.description}"' for a in attempts]
        attempt_text = "Descriptions tried so far, with their training results (do better than all of them):\n"
        attempt_text += "\n".join(tried) + "\n"
    else:
        attempt_text = ""
    return PROMPT.format(
        name=name,
        skill_md=skill_md.strip(),
        when_to_use=appended,
        siblings=sibling_lines,
        runs_word="is a fresh Claude",
        current=current,
        failures=failure_text,
        attempts=attempt_text,
        limit=MAX_DESCRIPTION,
    )


def parse_reply(text: str) -> str:
    """The description of a reply; ValueError saying what is wrong with anything else."""
    found = _TAGGED.findall(text or "")
    if not found:
        raise ValueError("the reply holds no <description>…</description>")
    if len(found) > 1:
        raise ValueError(f"the reply holds {len(found)} descriptions, not one")
    description = " ".join(found[0].split())
    if not description:
        raise ValueError("the description is empty")
    if len(description) > MAX_DESCRIPTION:
        raise ValueError(f"the description has {len(description)} characters; Claude Code accepts {MAX_DESCRIPTION}")
    if _XML.search(description):
        raise ValueError("the description holds an XML tag, which Claude Code's skill descriptions may not")
    return description


def load_proposer_script(eval_root: Path) -> Script:
    """The scripted proposer's replies (`proposer:` in tune.scripted.yaml): each a reply's text or a list of
    turns, one per call, the last repeated."""
    path = eval_root / SCRIPT_NAME
    if not path.is_file():
        raise ProposerScriptError(
            f"--scripted needs the proposer's replies: {path} does not exist. Write it with a `proposer:` list, one "
            'reply per call, e.g. `- "<description>Writes commit messages…</description>"` (docs/scripted.md)'
        )
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, YamlError) as e:
        raise ProposerScriptError(f"{path}: cannot be read: {e}") from None
    replies = data.get("proposer") if isinstance(data, dict) else None
    if not isinstance(replies, list) or not replies:
        raise ProposerScriptError(f"{path}: `proposer:` must be a non-empty list of replies (one per call)")
    runs: dict[int, Any] = {}
    try:
        for index, reply in enumerate(replies):
            key = f"proposer[{index}]"
            runs[index + 1] = (text_turn(reply),) if isinstance(reply, str) else parse_turns(reply, key)
    except SpecError as e:
        raise ProposerScriptError(f"{path}: {e}") from None
    last = runs[len(replies)]
    return Script(path=str(path), arms={"without": ArmScript(runs=runs, default=last)})


@dataclass
class Proposer:
    """Asks the bundled Claude Code for descriptions: `ask(prompt, call_number)` runs one isolated read-only
    `claude -p` and returns (its reply text, its cost, an error or None)."""

    ask: Callable[[str, int], tuple[str, float, str | None]]
    calls: int = 0
    history: list[str] = field(default_factory=list)

    def propose(self, text: str, taken: Sequence[str] = ()) -> Proposal:
        """A description (asked again once after a reply that is none, or one already tried)."""
        cost, rejected, errors = 0.0, [], []
        for _ in range(TRIES):
            self.calls += 1
            reply, spent, error = self.ask(text, self.calls)
            cost += spent
            if error is not None:
                errors.append(error)
                continue
            try:
                description = parse_reply(reply)
            except ValueError as e:
                rejected.append(str(e))
                continue
            if description in taken:
                rejected.append("the description was already tried")
                continue
            return Proposal(description, cost, len(rejected) + len(errors) + 1, tuple(rejected), tuple(errors))
        return Proposal(None, cost, TRIES, tuple(rejected), tuple(errors))


def claude_asker(
    claude: Path, model: str | None, script: Script | None, endpoint: Any, work: Path
) -> Callable[[str, int], tuple[str, float, str | None]]:
    """`ask` for Proposer: one agent run (run/execute.py) with no plugin and no tools that change anything; under
    `--scripted`, answered by the scripted endpoint from `script`."""
    from ..run.access import detect as detect_access
    from ..run.execute import RunPlan, RunSettings, run_agent
    from ..run.workspace import Workspace

    def ask(text: str, number: int) -> tuple[str, float, str | None]:
        folder = work / f"proposer-{number:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        case = Case(
            name=f"tune-proposer-{number}",
            dir=folder,
            eval_root=work,
            plugin_root=None,
            source="prose",
            prompt=text,
            graders=(),
            runs=1,
            max_turns=MAX_TURNS,
            timeout_seconds=TIMEOUT_SECONDS,
            model=model,
            disallowed_tools=READ_ONLY,
        )
        base_url = None
        if script is not None:

            def base_url(cwd: Path) -> str:
                return endpoint.agent_url(script, arm="without", run=number, cwd=cwd, prompt=text)

        # signed in as the session's runs are: a login's access token, never its refresh token (run/access.py)
        environ = dict(os.environ) if script is not None else detect_access().environ()
        plan = RunPlan(
            case=case, arm="without", index=1, settings=RunSettings(), claude=claude, base_url=base_url, environ=environ
        )
        ws = Workspace.create(Path(tempfile.gettempdir()))
        try:
            run = run_agent(plan, ws)
            (folder / "reply.txt").write_text(run.transcript.last_message or "", encoding="utf-8")
        finally:
            ws.remove()
        error = f"{run.error.kind}: {run.error.message}" if run.error is not None else None
        return run.transcript.last_message or "", run.cost_usd, error

    return ask

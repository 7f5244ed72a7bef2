"""The agent from a Python test: AgentRunner behind the `eval_agent` fixture, MockStandIns behind `eval_mocks`.
Runs get the isolation, limits and endpoint of a case run; assert on them with the grader helpers
(grade/assertions.py). A run's workspace stays on disk until the test ends, so file targets and `run.cwd` can be
read.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

from ..core.errors import InvalidSpec
from ..core.kinds import Arm
from ..core.run_id import RunId
from ..load.case import CASE_FILE, PROMPT_FILE, Case, is_case_dir, load_case
from ..load.mocks import MockSet, load_mocks
from ..load.script import parse_script
from ..load.suite import eval_root_of, plugin_at, resolve_plugin
from ..run.execute import AgentRun, RunPlan, run_agent
from ..run.stand_ins import MockPlan, first_abort, grader_view, plan_mocks, read_calls, write_configs
from ..run.workspace import Workspace


class NotACaseFolder(InvalidSpec, FileNotFoundError):
    """`eval_agent.run_case` was given a path that is not a case folder."""


CASE_FOLDER = f"pass a case folder: one holding {PROMPT_FILE} and/or {CASE_FILE} (and graders/), e.g. evals/my-case"


def case_dir_problem(folder: Path) -> str | None:
    """Why `folder` is not a case folder, or None."""
    if not folder.exists():
        return f"{folder} does not exist; {CASE_FOLDER}"
    if not folder.is_dir():
        return f"{folder} is a file, not a folder; {CASE_FOLDER}"
    if not is_case_dir(folder):
        return f"{folder} holds no {PROMPT_FILE} or {CASE_FILE}, so it is not a case; {CASE_FOLDER}"
    return None


class AgentRunner:
    def __init__(self, session):
        self.session = session
        self._workspaces: list[Workspace] = []
        self._scratch = Path(tempfile.mkdtemp(prefix="plugin-eval-adhoc-"))

    def run(
        self,
        prompt: str,
        *,
        plugin: str | Path | None = None,
        arm: Arm = "with",
        allowed_tools=(),
        disallowed_tools=(),
        max_turns: int = 10,
        timeout: float = 300,
        model: str | None = None,
        env: dict | None = None,
        append_system_prompt: str | None = None,
        script: dict | None = None,
        mocks: bool = True,
    ) -> AgentRun:
        """Run `prompt` once. `plugin` is a plugin folder, loaded in the "with" arm, whose suite-level MCP mocks
        (evals/mocks/) stand in for its servers unless `mocks=False`; `script` is what the scripted endpoint
        answers (with --scripted), in the scripted.yaml format."""
        root = Path(plugin).absolute() if plugin is not None else None
        evals = root / "evals" if root is not None and (root / "evals").is_dir() else self._scratch
        case = Case(
            name="adhoc",
            dir=self._scratch / "case",
            eval_root=evals,
            plugin_root=root,
            source="python",
            prompt=prompt,
            graders=(),
            max_turns=max_turns,
            timeout_seconds=int(timeout),
            model=model,
            allowed_tools=tuple(allowed_tools),
            disallowed_tools=tuple(disallowed_tools),
            append_system_prompt=append_system_prompt,
            env=tuple((env or {}).items()),
            mocks=load_mocks(evals, evals) if mocks and root is not None else MockSet(),
        )
        return self._run(case, RunId.of(case.dir, arm, 1), script=self._script(script))

    def run_case(self, case_dir: str | Path, *, arm: Arm = "with", index: int = 1) -> AgentRun:
        """Run one run of the case in `case_dir` (its scripted.yaml answers under --scripted)."""
        folder = Path(case_dir).absolute()
        problem = case_dir_problem(folder)
        if problem:
            raise NotACaseFolder(f"eval_agent.run_case({str(case_dir)!r}): {problem}")
        eval_root = eval_root_of(folder, self.session.options.eval_dir) or folder.parent
        case = load_case(folder, eval_root, self.session.grader_types())
        return self._run(case, RunId.of(case.dir, arm, index), script=case.script)

    def _script(self, data: dict | None):
        if data is None:
            return None
        return parse_script(data, "eval_agent script")

    def _run(self, case: Case, run_id: RunId, script) -> AgentRun:
        session = self.session
        plan = RunPlan(
            case=case,
            arm=run_id.arm,
            index=run_id.index,
            settings=session.run_settings(),
            claude=session.claude,
            base_url=session.models.scripted_url(script, case.prompt, run_id),
            mock_agent=session.models.mock_agent(case, script, run_id),
            environ=session.models.run_environ(),
            record_dir=self._scratch / "mock-recordings",
        )
        # In this fixture's scratch folder, which goes at the end, unless --keep-temp keeps the workspace.
        ws = Workspace.create(None if session.options.keep_temp else self._scratch)
        self._workspaces.append(ws)
        run = run_agent(plan, ws)
        if session.ledger is not None:
            session.ledger.add(run.cost_usd)
        # assert_llm / assert_baseline on this run use the session's judge (and, scripted, this script's votes).
        return dataclasses.replace(run, judge=session.models.make_judge(script, run_id))

    def close(self) -> None:
        if not self.session.options.keep_temp:
            for ws in self._workspaces:
                ws.remove()
        shutil.rmtree(self._scratch, ignore_errors=True)


class MockStandIns:
    """The stand-in MCP servers of a case (or a plugin's suite), for a Python test that runs its own agent: pass
    `mcp_config` to the agent (`claude --mcp-config …`), grant `allowed_tools`, then read `calls()`."""

    def __init__(self, mocks: MockSet, plugins: dict[str, Path], arm: str, folder: Path, agent: dict | None = None):
        self.folder = folder
        self.plan: MockPlan = plan_mocks(mocks, plugins, arm, allow_real_servers=False)
        folder.mkdir(parents=True, exist_ok=True)
        self.mcp_config = write_configs(self.plan, folder, agent, folder / "mock-recordings", env={})
        self.allowed_tools = self.plan.granted_tools()

    def calls(self) -> list[dict]:
        """Each call so far: tool, input, output, isError, verdict."""
        return list(grader_view(read_calls(self.folder)))

    def aborted(self) -> dict | None:
        return first_abort(read_calls(self.folder))


def stand_ins_for(path: str | Path, arm: str, folder: Path, eval_dir: str | None = None) -> MockStandIns:
    """The stand-ins a case folder (or a plugin folder: its suite-level mocks) would get in `arm`."""
    path = Path(path).absolute()
    if (path / "evals").is_dir() and eval_root_of(path, eval_dir) is None:
        case_dir = eval_root = path / "evals"
    else:
        case_dir, eval_root = path, eval_root_of(path, eval_dir) or path.parent
    plugin = resolve_plugin(case_dir, eval_root)
    plugins = {plugin_at(plugin).name: plugin} if plugin is not None else {}
    return MockStandIns(load_mocks(case_dir, eval_root), plugins, arm, folder)

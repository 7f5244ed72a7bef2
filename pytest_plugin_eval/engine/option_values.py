"""How the values of options are read: numbers, the lists of tools and tags (and a path such a list swallowed),
`--shard K/N`, whether an xdist worker is on this machine — and the error a bad value raises."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Any

from ..adaptive import AutoRuns
from ..core.errors import UsageError
from ..core.tools import GATED, NEVER, REMOVABLE_TOOLS, disallow_problem, grant_problem, tool_of


class OptionError(UsageError):
    """A bad option value; the message is what the user sees (the session exits 1)."""


class ListValues(argparse.Action):
    """`--allow-tools A B` (nargs="+"): extends the list like `extend`, and also keeps each occurrence's values
    apart (`<dest>_given`), so that a path swallowed after the first value can be told from a value meant."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        values = list(values or [])
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), *values])
        given = f"{self.dest}_given"
        setattr(namespace, given, [*(getattr(namespace, given, None) or []), values])


def local_worker(spec: str) -> bool:
    """Whether an xdist --tx spec ("2*popen//python=python3", "ssh=host//…") starts a process on this machine."""
    return "popen" in (part.split("*")[-1] for part in spec.split("//"))


def share(text: str | None, name: str) -> float | None:
    """A rate between 0 and 1 (--min-recall, --max-false-fire)."""
    value = number(text, f"Error: {name} must be a number from 0 to 1")
    if value is not None and not 0 <= value <= 1:
        raise OptionError(f"Error: {name} must be a number from 0 to 1")
    return value


def number(text: str | None, message: str) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise OptionError(message) from None
    if math.isnan(value) or math.isinf(value):
        raise OptionError(message)
    return value


def split_entries(value: str) -> list[str]:
    """`Write,Bash(git commit:*)` → ["Write", "Bash(git commit:*)"]: commas outside parentheses separate
    entries; blanks around them are dropped, and so are empty entries."""
    entries, depth, current = [], 0, ""
    for char in value:
        depth += (char == "(") - (char == ")")
        if char == "," and depth <= 0:
            entries.append(current)
            current = ""
        else:
            current += char
    return [e.strip() for e in [*entries, current] if e.strip()]


def slash_outside_parentheses(entry: str) -> bool:
    depth = 0
    for char in entry:
        depth += (char == "(") - (char == ")")
        if char == "/" and depth <= 0:
            return True
    return False


def is_tool_name(entry: str) -> bool:
    tool = tool_of(entry)
    return tool in GATED or tool in NEVER or tool in REMOVABLE_TOOLS or tool.startswith("mcp__")


def list_option(option, dest: str, name: str, tools: bool) -> tuple[str, ...]:
    """The entries of a list option (`--allow-tools`, `--disallow-tools`, `--tag`), comma-separated values split.

    nargs="+" reads every word up to the next option, so `--allow-tools Write evals/` (say, from addopts) takes
    the test path as a tool. A value after the first of an occurrence that looks like a path (a `/` outside
    parentheses, or an existing file or folder that is not a tool's name) is refused, saying how to write it.
    """
    given = getattr(option, f"{dest}_given", None)
    occurrences = given if given is not None else [[v] for v in getattr(option, dest)]
    entries: list[str] = []
    for values in occurrences:
        for i, value in enumerate(values):
            if i > 0 and (
                slash_outside_parentheses(value) or (os.path.exists(value) and not (tools and is_tool_name(value)))
            ):
                meant = ",".join(values[:i])
                raise OptionError(
                    f'Error: {name}: "{value}" looks like a path that the option swallowed ({name} takes one or '
                    f"more values, up to the next option) — write {name}={meant} (or put paths first)"
                )
            entries += split_entries(value)
    return tuple(entries)


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """`--shard 2/4` → (2, 4)."""
    if text is None:
        return None
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise OptionError(f"Error: --shard must be K/N with 1 ≤ K ≤ N, such as 1/4 (got '{text}')")
    return int(k), int(n)


# ---- the parser of each option of the table (options.OPTIONS): (raw value, the whole namespace) → the value ----
# A parser raises OptionError naming the option and the fix. Checks that involve two options are
# option_parse.parse_options's.


def as_given(raw: Any, option: Any) -> Any:
    return raw


def as_bool(raw: Any, option: Any) -> bool:
    return bool(raw)


def as_tuple(raw: Any, option: Any) -> tuple[str, ...]:
    return tuple(raw or ())


def parse_json_path(raw: str | None, option: Any) -> str | None:
    if raw not in (None, "-") and not str(raw).endswith(".json"):
        raise OptionError(
            f"Error: --json output path must end in .json (got '{raw}'). "
            f"Pass a path such as results.json, or --json alone to print the document."
        )
    return raw


def parse_threshold(raw: str | None, option: Any) -> float:
    threshold = number(raw, "Error: --threshold must be between 0 and 1")
    if threshold is not None and not 0 <= threshold <= 1:
        raise OptionError("Error: --threshold must be between 0 and 1")
    return 1.0 if threshold is None else threshold


def parse_runs(raw: str | None, option: Any) -> tuple[int | None, AutoRuns | None]:
    """--runs N (fractions truncated) or auto[:MAX[:WIDTH]] → (runs, auto_runs)."""
    if isinstance(raw, str) and raw.startswith("auto"):
        try:
            return None, AutoRuns.parse(raw)
        except ValueError as e:
            raise OptionError(f"Error: --runs: {e}") from None
    runs = number(raw, "Error: --runs must be a whole number above 0")
    if runs is None:
        return None, None
    if math.floor(runs) < 1:
        raise OptionError("Error: --runs must be a whole number above 0")
    return math.floor(runs), None


def parse_models(value: str | None, option: Any) -> tuple[str | None, tuple[str, ...]]:
    """--model MODEL, or --model A,B,… (a matrix: each model once, in the order given) → (model, models)."""
    if value is None or "," not in value:
        return value, ()
    names = [name.strip() for name in value.split(",")]
    if not all(names):
        raise OptionError(f"Error: --model {value}: an empty model name; give models as A,B (no empty entries)")
    models = tuple(dict.fromkeys(names))
    if len(models) == 1:
        return models[0], ()
    return None, models


def parse_ablation(raw: str | None, option: Any, choices: tuple[str, ...] = ("none", "with-without")) -> str | None:
    if raw is not None and raw not in choices:
        raise OptionError('Error: --ablation must be "none" or "with-without"')
    return raw


def parse_against(raw: str | None, option: Any) -> str | None:
    """--against REF: what REF names (a folder, a git revision) is checked once the plugin is known
    (engine/versions.py)."""
    if raw is not None and not raw.strip():
        raise OptionError("Error: --against needs a git revision of the plugin's repository or a folder")
    return raw.strip() if raw is not None else None


def parse_ablate(raw: str | None, option: Any) -> tuple[str, ...]:
    """--ablate A,B: the components, each once (whether the plugin has them is checked once it is known)."""
    if raw is None:
        return ()
    names = [name.strip() for name in raw.split(",")]
    if not all(names):
        raise OptionError(f"Error: --ablate {raw}: an empty component name; give components as A,B")
    return tuple(dict.fromkeys(names))


def parse_mocks(raw: str, option: Any, choices: tuple[str, ...] = ("record", "off")) -> str:
    if raw not in choices:
        raise OptionError("Error: --mocks must be record or off")
    return raw


def parse_max_cost(raw: str | None, option: Any) -> float | None:
    max_cost = number(raw, "Error: --max-cost-usd must be a number, 0 or more")
    if max_cost is not None and max_cost < 0:
        raise OptionError("Error: --max-cost-usd must be a number, 0 or more")
    return max_cost


def parse_concurrency(raw: str | None, option: Any, most: int = 8) -> int | None:
    message = f"Error: --concurrency must be a whole number from 1 to {most}"
    concurrency = number(raw, message)
    if concurrency is not None and (concurrency != int(concurrency) or not 1 <= concurrency <= most):
        raise OptionError(message)
    return None if concurrency is None else int(concurrency)


def parse_api_retries(raw: str | None, option: Any) -> int:
    api_retries = number(raw, "Error: --api-retries must be a whole number, 0 or more")
    if api_retries is None or api_retries != int(api_retries) or api_retries < 0:
        raise OptionError("Error: --api-retries must be a whole number, 0 or more")
    return int(api_retries)


def parse_eval_dir(raw: str | None, option: Any) -> str | None:
    if raw is not None:
        parts = Path(raw).parts
        if os.path.isabs(raw) or ".." in parts:
            raise OptionError("Error: --eval-dir must stay inside the plugin root (no .. and not absolute)")
        if parts and parts[0] == "skills":
            raise OptionError("Error: --eval-dir must not be inside the plugin's skills/ directory")
    return raw


def parse_allow_tools(raw: Any, option: Any) -> tuple[str, ...]:
    entries = list_option(option, "eval_allow_tools", "--allow-tools", tools=True)
    for entry in entries:
        problem = grant_problem(entry)
        if problem:
            raise OptionError(f"Error: --allow-tools: refused entry: {problem}")
    return entries


def parse_disallow_tools(raw: Any, option: Any) -> tuple[str, ...]:
    entries = list_option(option, "eval_disallow_tools", "--disallow-tools", tools=True)
    for entry in entries:
        problem = disallow_problem(entry)
        if problem:
            raise OptionError(f"Error: --disallow-tools: {problem}. No case was run.")
    return entries


def parse_tags(raw: Any, option: Any) -> tuple[str, ...]:
    return list_option(option, "eval_tag", "--tag", tools=False)


def parse_regrade(raw: str | None, option: Any) -> str | None:
    if raw:
        from ..analysis.regrade import results_folder_problem  # only a regrade session pays for this import

        problem = results_folder_problem(Path(raw), scripted=bool(getattr(option, "eval_scripted", False)))
        if problem is not None:
            raise OptionError(f"Error: --regrade {raw}: {problem}")
    return raw


def parse_compare_to(raw: str | None, option: Any) -> str | None:
    if raw is not None:
        from ..analysis.compare import CompareError, read_document  # only a comparing session pays for this import

        try:
            read_document(raw)  # before any run (money): a wrong path is said now
        except CompareError as e:
            raise OptionError(f"Error: --compare-to {e}") from None
    return raw


def parse_claude(raw: str | None, option: Any) -> str | None:
    if raw and not os.access(raw, os.X_OK):
        raise OptionError(f"Error: --claude {raw}: no executable file there")
    return raw


def parse_shard_option(raw: str | None, option: Any) -> tuple[int, int] | None:
    return parse_shard(raw)


def parse_min_recall(raw: str | None, option: Any) -> float | None:
    return share(raw, "--min-recall")


def parse_max_false_fire(raw: str | None, option: Any) -> float | None:
    return share(raw, "--max-false-fire")

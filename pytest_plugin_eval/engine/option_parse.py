"""The raw pytest option namespace checked into one `EvalOptions`, once, on the controller.

Every message names the option and the fix; nothing is run (or paid for) before the values are known good.
"""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path

from ..adaptive import AutoRuns
from ..core.tools import disallow_problem, grant_problem
from .option_values import OptionError, list_option, local_worker, number, parse_shard, share
from .options import ABLATIONS, MAX_CONCURRENCY, MOCK_MODES, EvalOptions


def parse_options(option) -> EvalOptions:
    """Validate the raw pytest option namespace. Raises OptionError with the user-facing message."""
    model, models = parse_models(option.eval_model, regrade=bool(option.eval_regrade))
    json_path = option.eval_json
    if json_path not in (None, "-") and not json_path.endswith(".json"):
        raise OptionError(
            f"Error: --json output path must end in .json (got '{json_path}'). "
            f"Pass a path such as results.json, or --json alone to print the document."
        )
    threshold = number(option.eval_threshold, "Error: --threshold must be between 0 and 1")
    if threshold is not None and not 0 <= threshold <= 1:
        raise OptionError("Error: --threshold must be between 0 and 1")
    auto_runs = None
    if isinstance(option.eval_runs, str) and option.eval_runs.startswith("auto"):
        try:
            auto_runs = AutoRuns.parse(option.eval_runs)
        except ValueError as e:
            raise OptionError(f"Error: --runs: {e}") from None
        if option.eval_regrade:
            raise OptionError("Error: --runs auto chooses how many runs to make; --regrade makes none. Drop one.")
        remote = [spec for spec in getattr(option, "tx", None) or [] if not local_worker(str(spec))]
        if remote:
            # A case's runs may finish on any worker, and the finished runs are shared through a file on this host.
            raise OptionError(
                f"Error: --runs auto needs every worker on this machine; --tx {remote[0]} is not. "
                "Use -n N or -j N, or a fixed --runs N across machines."
            )
    runs = None if auto_runs else number(option.eval_runs, "Error: --runs must be a whole number above 0")
    if runs is not None:
        runs = math.floor(runs)
        if runs < 1:
            raise OptionError("Error: --runs must be a whole number above 0")
    concurrency = number(
        option.eval_concurrency, f"Error: --concurrency must be a whole number from 1 to {MAX_CONCURRENCY}"
    )
    if concurrency is not None and (concurrency != int(concurrency) or not 1 <= concurrency <= MAX_CONCURRENCY):
        raise OptionError(f"Error: --concurrency must be a whole number from 1 to {MAX_CONCURRENCY}")
    max_cost = number(option.eval_max_cost, "Error: --max-cost-usd must be a number, 0 or more")
    if max_cost is not None and max_cost < 0:
        raise OptionError("Error: --max-cost-usd must be a number, 0 or more")
    if option.eval_ablation is not None and option.eval_ablation not in ABLATIONS:
        raise OptionError('Error: --ablation must be "none" or "with-without"')
    if option.eval_mocks not in MOCK_MODES:
        raise OptionError("Error: --mocks must be record or off")
    api_retries = number(option.eval_api_retries, "Error: --api-retries must be a whole number, 0 or more")
    if api_retries is None or api_retries != int(api_retries) or api_retries < 0:
        raise OptionError("Error: --api-retries must be a whole number, 0 or more")
    eval_dir = option.eval_dir
    if eval_dir is not None:
        parts = Path(eval_dir).parts
        if os.path.isabs(eval_dir) or ".." in parts:
            raise OptionError("Error: --eval-dir must stay inside the plugin root (no .. and not absolute)")
        if parts and parts[0] == "skills":
            raise OptionError("Error: --eval-dir must not be inside the plugin's skills/ directory")
    allow_tools = list_option(option, "eval_allow_tools", "--allow-tools", tools=True)
    disallow_tools = list_option(option, "eval_disallow_tools", "--disallow-tools", tools=True)
    tags = list_option(option, "eval_tag", "--tag", tools=False)
    for entry in allow_tools:
        problem = grant_problem(entry)
        if problem:
            raise OptionError(f"Error: --allow-tools: refused entry: {problem}")
    for entry in disallow_tools:
        problem = disallow_problem(entry)
        if problem:
            raise OptionError(f"Error: --disallow-tools: {problem}. No case was run.")
    if option.eval_regrade:
        from ..analysis.regrade import results_folder_problem  # only a regrade session pays for this import

        problem = results_folder_problem(Path(option.eval_regrade), scripted=bool(option.eval_scripted))
        if problem is not None:
            raise OptionError(f"Error: --regrade {option.eval_regrade}: {problem}")
    compare_to = getattr(option, "eval_compare_to", None)
    if compare_to is not None:
        from ..analysis.compare import CompareError, read_document  # only a comparing session pays for this import

        try:
            read_document(compare_to)  # before any run (money): a wrong path is said now
        except CompareError as e:
            raise OptionError(f"Error: --compare-to {e}") from None
    if option.eval_claude and not os.access(option.eval_claude, os.X_OK):
        raise OptionError(f"Error: --claude {option.eval_claude}: no executable file there")
    return EvalOptions(
        trust_plugin=option.trust_plugin,
        json_path=json_path,
        threshold=1.0 if threshold is None else threshold,
        runs=runs,
        auto_runs=auto_runs,
        model=model,
        models=models,
        judge_model=option.eval_judge_model,
        ablation=option.eval_ablation,
        allow_tools=allow_tools,
        disallow_tools=disallow_tools,
        case_globs=tuple(option.eval_case),
        tags=tags,
        keep_temp=option.eval_keep_temp,
        output_dir=option.eval_output_dir,
        report=option.eval_report,
        max_cost_usd=max_cost,
        scaffold=option.eval_scaffold,
        mocks=option.eval_mocks,
        allow_real_servers=option.eval_allow_real_servers,
        eval_dir=eval_dir,
        claude=option.eval_claude,
        scripted=option.eval_scripted,
        concurrency=None if concurrency is None else int(concurrency),
        api_retries=int(api_retries),
        regrade=option.eval_regrade,
        shard=parse_shard(getattr(option, "eval_shard", None)),
        compare_to=compare_to,
        md_path=getattr(option, "eval_md", None),
        benchmark_path=getattr(option, "eval_skill_creator_benchmark", None),
        trigger_skill=getattr(option, "eval_trigger_skill", None),
        min_recall=share(getattr(option, "eval_min_recall", None), "--min-recall"),
        max_false_fire=share(getattr(option, "eval_max_false_fire", None), "--max-false-fire"),
        reuse_baseline=bool(getattr(option, "eval_reuse_baseline", None)),
    )


def parse_models(value: str | None, *, regrade: bool) -> tuple[str | None, tuple[str, ...]]:
    """--model MODEL, or --model A,B,… (a matrix: each model once, in the order given) → (model, models)."""
    if value is None or "," not in value:
        return value, ()
    names = [name.strip() for name in value.split(",")]
    if not all(names):
        raise OptionError(f"Error: --model {value}: an empty model name; give models as A,B (no empty entries)")
    models = tuple(dict.fromkeys(names))
    if len(models) == 1:
        return models[0], ()
    if regrade:
        raise OptionError(
            "Error: --model A,B runs a model matrix; --regrade makes no runs. Regrade each model's folder of the "
            "matrix on its own (plugin-eval regrade RESULTS/<model>)."
        )
    return None, models


REUSE_INI = "eval_reuse_baseline"


def with_ini(options: EvalOptions, config) -> EvalOptions:
    """The ini settings an option left unsaid: `eval_reuse_baseline = true` unless --no-reuse-baseline."""
    if getattr(config.option, "eval_reuse_baseline", None) is None and config.getini(REUSE_INI):
        return dataclasses.replace(options, reuse_baseline=True)
    return options


def eval_options_given(option) -> bool:
    """Whether the command line used any eval option (then it is an eval session even with no cases)."""
    return any(
        (
            option.trust_plugin,
            option.eval_json,
            option.eval_threshold,
            option.eval_runs,
            option.eval_case,
            option.eval_tag,
            option.eval_ablation,
            option.eval_scripted,
            option.eval_regrade,
        )
    )


def collection_paths(config) -> list[Path]:
    """The command line's collection arguments as absolute paths (node ids cut at `::`)."""
    base = config.invocation_params.dir
    return [(base / arg.split("::")[0]).absolute() for arg in config.args]

"""Prompts that give the plugin away, so the case measures the prompt rather than the plugin.

- `prompt-names-skill`: the prompt names a skill, command or the plugin itself — a case then says nothing about
  whether Claude picks the skill from its description, as a user who never heard of it would need. Decided on
  whole words, case-insensitively: the qualified name (`plugin:skill`) or a slash form (`/skill`,
  `/plugin:skill`); a name followed or preceded by the word skill, command or plugin ("the changelog skill");
  or a name that cannot be an ordinary word (it holds `-` or `_`, as `commit-message`). A plain word that
  happens to be a skill's name ("record a change in the changelog") is not flagged.
- A trigger query is asked the same (`named_queries`): one that names what Claude should pick measures nothing
  about the description — `plugin-eval tune` refuses such a set, the `init` interview sends it back, and `check`
  says it (`trigger-query-names-skill`, one finding per query).
- `prompt-quotes-skill`: the prompt repeats QUOTE_WORDS or more consecutive words of a SKILL.md or command file
  (frontmatter left out): the instructions the plugin adds are in both arms.
"""

from __future__ import annotations

import re

from ..load.case import Case
from ..load.suite import plugin_at
from ..load.triggers import TriggerSet
from ..results.findings import Finding
from .shipped import Shipped, body_of

QUOTE_WORDS = 8
NOUNS = r"(?:skill|command|plugin|slash command)"


def _names(shipped: Shipped) -> list[tuple[str, str]]:
    """(name as written in a message, its regex) for every component and the plugin."""
    out = []
    for c in shipped.components:
        name, qualified = re.escape(c.name), re.escape(c.qualified_name)
        forms = [
            rf"(?<![\w/-]){qualified}(?![\w-])",
            rf"(?<![\w-])/(?:{re.escape(shipped.plugin_name)}:)?{name}(?![\w-])",
        ]
        forms += [rf"(?<![\w-]){name}(?![\w-])\s+{NOUNS}\b", rf"\b{NOUNS}\s+[`'\"]?{name}(?![\w-])"]
        if re.search(r"[-_]", c.name):
            forms.append(rf"(?<![\w-]){name}(?![\w-])")
        out.append((f"{c.kind} {c.qualified_name}", "|".join(forms)))
    plugin = re.escape(shipped.plugin_name)
    forms = [rf"(?<![\w-]){plugin}(?![\w-])\s+plugin\b", rf"\bplugin\s+[`'\"]?{plugin}(?![\w-])"]
    if re.search(r"[-_]", shipped.plugin_name):
        forms.append(rf"(?<![\w-]){plugin}(?![\w-])")
    out.append((f"the plugin {shipped.plugin_name}", "|".join(forms)))
    return out


def naming(text: str, shipped: Shipped) -> tuple[str, str] | None:
    """What of the plugin `text` names, and the words that name it: ("skill p:s", "the s skill"); None: nothing.
    (Also what `plugin-eval tune` refuses in a trigger query.)"""
    for label, pattern in _names(shipped):
        hit = re.search(pattern, text, re.IGNORECASE)
        if hit:
            return label, hit.group(0)
    return None


def named_queries(target: TriggerSet) -> list[tuple[str, tuple[str, str]]]:
    """(query id, what it names and the words that name it) for each query of the set that names one of the
    plugin's skills or commands, or the plugin."""
    plugin = Shipped(plugin_at(target.plugin_root).name, target.components, ())
    return [(q.id, hit) for q in target.queries if (hit := naming(q.query, plugin)) is not None]


def named_query_findings(target: TriggerSet) -> list[Finding]:
    """A finding per query of the set that names what Claude should pick; its `case` is the query as pytest names
    it (`<file>::<skill>/<query id>`)."""
    queries = {q.id: q for q in target.queries}
    out = []
    for qid, (label, words) in named_queries(target):
        query = queries[qid]
        side = "should_fire" if query.should_fire else "should_not_fire"
        out.append(
            Finding(
                f"{target.rel_file}::{target.name}/{qid}",
                kind="trigger-query-names-skill",
                message=f'{target.rel_file}: the {side} query "{query.query}" of {target.name} names {label} '
                f'("{words}"): it tells Claude what to pick, so it does not measure whether the description does',
                fix="reword it as a user who never heard of the plugin would ask (plugin-eval tune refuses a set "
                "with such a query)",
            )
        )
    return out


def names_finding(case: Case, shipped: Shipped) -> Finding | None:
    named = naming(case.prompt, shipped)
    if named is None:
        return None
    return Finding(
        case.name,
        kind="prompt-names-skill",
        message=f'the prompt names {named[0]} ("{named[1]}"): it tells Claude what to use, so the case does not '
        "measure whether the description makes Claude pick it",
        fix="ask as a user who never heard of the plugin would, in the words of the task",
    )


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _runs(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + QUOTE_WORDS]) for i in range(len(words) - QUOTE_WORDS + 1)}


def quotes_finding(case: Case, shipped: Shipped) -> Finding | None:
    prompt = _runs(_words(case.prompt))
    if not prompt:
        return None
    for c in shipped.components:
        text = next((t.text for t in shipped.texts if t.path == c.path), None)
        if text is None:
            continue
        common = prompt & _runs(_words(body_of(text)))
        if common:
            quoted = " ".join(min(common))
            return Finding(
                case.name,
                kind="prompt-quotes-skill",
                message=f'the prompt quotes {c.path.name} of {c.qualified_name} ("{quoted}…"): what the skill '
                "teaches is given to both arms",
                fix="state the task, not the skill's instructions",
            )
    return None


def prompt_findings(case: Case, shipped: Shipped) -> list[Finding]:
    return [f for f in (names_finding(case, shipped), quotes_finding(case, shipped)) if f is not None]

"""The case `plugin-eval init --bare` writes: a working case whose prompt and free grader are placeholders, to be
edited into the real thing (`plugin-eval check` refuses them as they are written here)."""

from __future__ import annotations

PLACEHOLDER_PROMPT = (
    "Replace this paragraph with a request a user would make, in their words, without naming your plugin or skill."
)
PLACEHOLDER_PATTERN = "\\S"  # any reply at all passes
PROMPT = f"""---
runs: 3
max_turns: 10
allowed_tools: [Read, Glob, Grep, Skill]
---
{PLACEHOLDER_PROMPT}
"""
REPLIED = f"---\ntype: regex\npattern: '{PLACEHOLDER_PATTERN}'\n---\n"
SKILL_FIRED = """---
type: tool_used
tool: Skill
input_match: {input_match}
---
"""
SCRIPT = """# What the scripted endpoint answers (pytest --scripted): checks the plumbing offline. Edit or delete.
with:
  - tool: Skill
    input: {{skill: {skill}}}
  - text: "A reply that uses the skill."
without:
  - text: "A reply without the plugin."
"""
PLACEHOLDER_SKILL = "your-skill"

"""The family every error the plugin raises on purpose belongs to, so that a caller can tell them apart by what
they mean rather than by where they were raised.

    PluginEvalError
    ├── UsageError      what was asked cannot be done: the message is printed and the command exits 1
    │                   (OptionError, TrustRefused, ClaudeNotFound, CompareError, MergeError, CliError, TrafficError…)
    ├── InvalidSpec     a file of the suite, or a document given to the plugin, is not valid: the message names the
    │                   file and the key (SpecError, YamlError, FrontmatterError, CaseLoadError, RegexError…)
    └── HarnessError    the harness could not carry out a run or a grader; reported on the run, not the user's
                        mistake (AgentStartError, JudgeUnavailable, GraderUnavailable, TargetError, FolderInUse…)

Each class keeps its name and module, and the built-in base it had (SpecError is still a ValueError, FolderInUse
an OSError), so that code catching either keeps working. `session.interrupts.Terminated` (SIGTERM) is not one:
it is a KeyboardInterrupt, so that nothing that catches Exception swallows it.
"""

from __future__ import annotations


class PluginEvalError(Exception):
    """An error pytest-plugin-eval raises on purpose, with a message meant for the user."""


class UsageError(PluginEvalError):
    """What was asked cannot be done (a bad option, an untrusted plugin, no Claude Code, an unreadable document
    to compare with): printed as it is, exit status 1."""


class InvalidSpec(PluginEvalError):
    """A file of the suite, or a document given to the plugin, is not valid; the message names the file and the
    key where they are known."""


class HarnessError(PluginEvalError):
    """The harness could not carry out a run or a grader (the agent did not start, the judge was unavailable, a
    target could not be read): reported on the run, and not a mistake in the suite."""

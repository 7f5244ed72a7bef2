"""The scripted endpoint: an offline Anthropic Messages API that answers from per-case scripts."""

from .script import SCRIPT_FILENAME, Script, ScriptError, load_script
from .server import ScriptedEndpoint

__all__ = ["SCRIPT_FILENAME", "Script", "ScriptError", "ScriptedEndpoint", "load_script"]

"""Names of contributions: tool names (one key for the whole deployment) and other entry names.

Spec: "Tool names are global" — there is no per-package prefix, so a name equal to one of the
platform's own tools, or a single generic word ("acme_release_status, not status"), is worth a
warning. The charsets are the shapes' and the file stems' alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.shape import Str
from neuralis_build.util.diagnostics import code

NB1402 = code("NB1402", "tool-name-charset", "a tool name is not 1-64 letters, digits, _ or -")
NB1403 = code("NB1403", "tool-name-platform", "a tool name is one of the platform's own tools")
NB1404 = code("NB1404", "tool-name-generic", "a tool name is a single generic word (name it for its domain)")
NB1414 = code("NB1414", "entry-name-charset", "an entry name (inline or file stem) is not a plain name")

TOOL_NAME = r"^[A-Za-z0-9_-]{1,64}$"
ENTRY_NAME = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"
TOOL_NAME_RULE = "1 to 64 letters, digits, _ or -"
ENTRY_NAME_RULE = "a letter, digit or _, then up to 63 letters, digits, _, . or -"
_TOOL_RE = re.compile(TOOL_NAME)
_ENTRY_RE = re.compile(ENTRY_NAME)
_WORD_BREAK = re.compile(r"[_-]+|(?<=[a-z0-9])(?=[A-Z])")


def is_tool_name(name: str) -> bool:
    """True when ``name`` fits the LLM tool-name charset."""
    return _TOOL_RE.match(name) is not None


def is_entry_name(name: str) -> bool:
    """True when ``name`` is a plain entry name (workflow, skill, command, hook event, team member)."""
    return _ENTRY_RE.match(name) is not None


def is_generic_tool_name(name: str) -> bool:
    """True when a tool name is one word (no _ or - separator, no camelCase break): ``status``, ``Search``."""
    return len([part for part in _WORD_BREAK.split(name) if part]) < 2


def tool_name_shape(description: str) -> Str:
    """The shape of an inline tool's name."""
    return Str(
        pattern=TOOL_NAME,
        pattern_code=NB1402,
        pattern_message=f"is not a tool name: {TOOL_NAME_RULE}",
        pattern_hint="LLM tool names allow only these; name it for its domain, such as acme_release_status",
        description=description,
    )


def entry_name_shape(description: str) -> Str:
    """The shape of an inline workflow, skill or command name, hook event or team member id."""
    return Str(
        pattern=ENTRY_NAME,
        pattern_code=NB1414,
        pattern_message=f"is not a plain name: {ENTRY_NAME_RULE}",
        pattern_hint="the name is also the file stem of the file-based form",
        description=description,
    )


def warn_tool_names(located: Iterable[tuple[str, str, str]], c: Checker) -> None:
    """Warn on platform tool names and generic names; ``located`` holds (name, file, pointer)."""
    platform = set(c.host.platform_tools) if c.host is not None else set()
    for name, file, pointer in located:
        if name in platform:
            c.diags.add(
                "warning",
                NB1403,
                pointer,
                f'"{name}" is also one of the platform\'s own tools; tool names are global, so each agent gets one '
                "claimant: the first-party one (the platform counts as first-party; between first-party claimants, "
                "the lexically-smaller package id)",
                f"name the tool for your domain, such as <package>_{name}",
                file=file,
            )
        elif is_generic_tool_name(name):
            c.diags.add(
                "warning",
                NB1404,
                pointer,
                f'"{name}" is a single generic word; tool names are global across the deployment',
                f"name it for the domain it serves, such as acme_release_{name.lower()} (not {name})",
                file=file,
            )

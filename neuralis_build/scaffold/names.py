"""The names a scaffold derives from the package name and id: checked once, spelled every way a template needs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from neuralis_build.manifest.sections.credentials import reserved_namespace
from neuralis_build.npm.names import name_problems, suggest_name
from neuralis_build.record.verdict import pascal_case  # one spelling of <Name>, shared with the UI build
from neuralis_build.util.errors import UserError

_WORD = re.compile(r"[A-Za-z0-9]+")
# Room left for the suffixes the templates append (`_report_status`, `SyncIntervalMinutes`), so a tool
# name stays within the 64 characters LLM tool APIs accept and a config key within its 64.
_SNAKE_MAX = 44
_CAMEL_MAX = 40


def check_name(name: str, what: str = "package name", flag: str = "NAME") -> None:
    """Refuse a name npm would refuse, saying why and which valid name is closest."""
    problems = name_problems(name)
    if problems:
        suggestion = suggest_name(name)
        raise UserError(
            f'"{name}" is not a valid {what}: {"; ".join(problems)}',
            hint=f'npm names are lowercase and URL-safe, such as "{suggestion}" (pass it as {flag})',
        )


def _words(package_id: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(package_id)]


def _cap(word: str) -> str:
    return word[:1].upper() + word[1:]


def snake_case(package_id: str) -> str:
    """``@acme/reports`` → ``acme_reports``: the prefix of global tool names and widget types."""
    joined = "_".join(_words(package_id))[:_SNAKE_MAX].rstrip("_")
    return joined if joined[:1].isalpha() else "pkg_" + joined


def kebab_case(package_id: str) -> str:
    """``@acme/reports`` → ``acme-reports``: skill, command, team-member and connector-kind names."""
    joined = "-".join(_words(package_id))[:_SNAKE_MAX].rstrip("-")
    return joined if joined[:1].isalpha() else "pkg-" + joined


def camel_case(package_id: str) -> str:
    """``@acme/reports`` → ``acmeReports``: the prefix of config keys (``^[a-z][a-zA-Z0-9]{0,63}$``)."""
    words = _words(package_id)
    joined = (words[0] + "".join(_cap(w) for w in words[1:]))[:_CAMEL_MAX] if words else ""
    return joined if joined[:1].isalpha() else "pkg" + _cap(joined)


def dotted(package_id: str) -> str:
    """``@acme/reports`` → ``acme.reports``, ``my-pkg`` → ``my-pkg``: feature, surface and credential ids."""
    plain = package_id.removeprefix("@").replace("/", ".")
    plain = re.sub(r"[^A-Za-z0-9_.-]", "-", plain)
    return plain if plain[:1].isalpha() else "pkg-" + plain


def title_case(npm_name: str) -> str:
    """The human-facing name: the unscoped part in words, ``my-package`` → ``My Package``."""
    bare = npm_name.rpartition("/")[2]
    return " ".join(_cap(w) for w in _words(bare)) or bare


def bare_name(npm_name: str) -> str:
    """The name without its scope: the default folder for ``neuralis new``."""
    return npm_name.rpartition("/")[2]


@dataclass(frozen=True)
class Names:
    """Every spelling of a package's names that a template uses."""

    name: str
    id: str
    title: str
    pascal: str
    snake: str
    kebab: str
    camel: str
    dotted: str
    env: str
    credential_prefix: str
    widget_type: str
    card_id: str
    dock_id: str

    @classmethod
    def derive(cls, name: str, package_id: str) -> Names:
        """Derive every spelling; ``name`` and ``package_id`` must already be valid npm names."""
        snake = snake_case(package_id)
        dots = dotted(package_id)
        # The git., channel and mcp. credential namespaces are host-owned; a package named @mcp/x keeps out.
        credential_prefix = f"pkg-{dots}" if reserved_namespace(dots) else dots
        return cls(
            name=name,
            id=package_id,
            title=title_case(name),
            pascal=pascal_case(package_id),
            snake=snake,
            kebab=kebab_case(package_id),
            camel=camel_case(package_id),
            dotted=dots,
            env=snake.upper(),
            credential_prefix=credential_prefix,
            widget_type=f"{snake}_workspace",
            card_id=f"{dots}.summary",
            dock_id=f"{dots}.open",
        )

"""The templates of earlier toolchain versions, kept so `neuralis update` can render a package's base.

copier re-renders a template at the git ref a project was made from; our templates ship inside the
wheel rather than in a repository, so each release keeps a copy of the templates it shipped under
``templates/_history/<version>/`` (a folder without a template.toml, which ``list_templates`` skips).

The version comes from the package (its .neuralis-scaffold.json), so it names a folder only when it is
exactly one of ``known_versions()``, and the folder it names must still lie under the history folder
once symlinks are resolved: a value such as ``../../proc/self/cwd/x`` or an absolute path would
otherwise point the base render at templates the package itself carries.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from neuralis_build import __version__
from neuralis_build.scaffold.templates import templates_root
from neuralis_build.util.errors import UsageError
from neuralis_build.util.printable import shown

HISTORY = "_history"
HISTORY_META = "history.toml"


@dataclass(frozen=True)
class TemplateSet:
    """The templates one toolchain version shipped, and what that version put into their context."""

    version: str
    root: Path
    react_major: int


def known_versions(root: Path | None = None) -> list[str]:
    """The toolchain versions whose templates this toolchain can render (its own included)."""
    base = (root or templates_root()) / HISTORY
    kept = sorted(p.name for p in base.iterdir() if (p / HISTORY_META).is_file()) if base.is_dir() else []
    return [*kept, __version__] if __version__ not in kept else kept


def templates_at(version: str, root: Path | None = None) -> TemplateSet:
    """The templates toolchain ``version`` shipped; a version this toolchain does not know is a usage error."""
    from neuralis_build.hostprofile import default_host_profile

    base = root or templates_root()
    if version == __version__:
        return TemplateSet(version, base, default_host_profile().react_major)
    if version not in known_versions(base):  # compared as a whole: never a path made of a value it does not know
        raise UsageError(
            f"neuralis-build {__version__} does not know the templates of version {shown(version)}",
            hint=f"it can update packages made by {', '.join(known_versions(base))}; "
            "a newer toolchain may be needed, or scaffold afresh with neuralis new and copy your changes",
        )
    history = (base / HISTORY).resolve()
    folder = (history / version).resolve()
    if folder.parent != history:
        raise UsageError(
            f"{base / HISTORY / version} leads out of the toolchain's templates history (to {folder})",
            hint="reinstall neuralis-build: each kept version is a folder of templates/_history itself",
        )
    meta = folder / HISTORY_META
    try:
        data = tomllib.loads(meta.read_text("utf-8"))
        react_major = int(data["react_major"])
    except (OSError, KeyError, ValueError, TypeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{meta}: not a valid template history record ({exc})") from None
    return TemplateSet(version, folder, react_major)

"""Where the package templates live and what each one is: the folders under templates/ and their template.toml."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from neuralis_build.util.errors import UsageError
from neuralis_build.util.trust import TRUST_TIERS, Trust

METADATA = "template.toml"
JINJA_SUFFIX = ".jinja"
DOT_PREFIX = "dot-"  # `dot-gitignore` ships as `.gitignore`: dotfiles stay out of this repository's own git rules
_SKIPPED = frozenset({"__pycache__", ".DS_Store", "node_modules"})


@dataclass(frozen=True)
class Template:
    """One template folder and what its template.toml says about it."""

    name: str
    root: Path
    summary: str
    trust: Trust
    description: str
    build: tuple[str, ...]
    order: int

    def files(self) -> list[Path]:
        """Every file of the template except its metadata, sorted, relative to the template folder."""
        found = []
        for path in self.root.rglob("*"):
            rel = path.relative_to(self.root)
            if any(part in _SKIPPED for part in rel.parts) or not path.is_file() or rel.as_posix() == METADATA:
                continue
            found.append(rel)
        return sorted(found, key=lambda p: p.as_posix())


def templates_root() -> Path:
    """The templates folder: the wheel's ``neuralis_build/_templates``, else the checkout's ``templates/``."""
    package_dir = Path(str(resources.files("neuralis_build")))
    for candidate in (package_dir / "_templates", package_dir.parent / "templates"):
        if candidate.is_dir() and any((child / METADATA).is_file() for child in candidate.iterdir()):
            return candidate
    raise UsageError(
        f"no package templates found beside {package_dir}",
        hint="reinstall neuralis-build: its wheel ships the templates as neuralis_build/_templates",
    )


def _load(folder: Path) -> Template:
    where = folder / METADATA
    try:
        data = tomllib.loads(where.read_text("utf-8"))
        trust = data["trust"]
        if trust not in TRUST_TIERS:
            raise ValueError(f"trust must be one of {', '.join(TRUST_TIERS)}")
        return Template(
            name=folder.name,
            root=folder,
            summary=str(data["summary"]),
            trust=trust,
            description=str(data["description"]),
            build=tuple(str(step) for step in data.get("build", [])),
            order=int(data.get("order", 100)),
        )
    except (KeyError, ValueError, TypeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{where}: not a valid template description ({exc})") from None


def list_templates(root: Path | None = None) -> list[Template]:
    """Every template under ``root`` (default: the shipped ones), in their display order."""
    base = root or templates_root()
    found = [_load(child) for child in base.iterdir() if (child / METADATA).is_file()]
    return sorted(found, key=lambda t: (t.order, t.name))


def get_template(name: str, root: Path | None = None) -> Template:
    """The template called ``name``; an unknown name is a usage error that lists the real ones."""
    from neuralis_build.manifest.checker import suggest

    templates = list_templates(root)
    for template in templates:
        if template.name == name:
            return template
    names = [t.name for t in templates]
    close = suggest(name, names)
    guess = f'did you mean "{close}"? ' if close else ""
    raise UsageError(
        f'there is no template "{name}"',
        hint=f"{guess}the templates are {', '.join(names)} (neuralis new --list describes them)",
    )

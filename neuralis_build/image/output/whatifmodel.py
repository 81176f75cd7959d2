"""The values of an image what-if (whatif.py computes them): each refusal a new host profile would make, the whole."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

RefusalKind = Literal["host-api", "react", "shared-module", "module", "config-key", "engines", "peer"]
MODULE_KINDS: tuple[RefusalKind, ...] = ("host-api", "react", "shared-module", "module")
"""The kinds that are about a package's UI module; the others are about the package itself."""


@dataclass(frozen=True)
class HostRefusal:
    """One thing the new host would refuse of an installed package or of its UI module, and what to do about it.

    ``already``: the image's own host refuses it too (the build reported it), so it is not new with the profile.
    """

    kind: RefusalKind
    name: str
    version: str
    path: str
    chain: tuple[str, ...]
    message: str
    fix: str
    code: str | None = None
    already: bool = False

    @property
    def subject(self) -> Literal["module", "package"]:
        return "module" if self.kind in MODULE_KINDS else "package"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "subject": self.subject,
            "name": self.name,
            "version": self.version,
            "path": self.path,
            "chain": list(self.chain),
            "code": self.code,
            "message": self.message,
            "fix": self.fix,
            "already": self.already,
        }


@dataclass(frozen=True)
class WhatIf:
    """What the host profile ``next`` would refuse of the image in ``image``, built for the host ``current``."""

    image: str
    current: dict[str, Any]  # the host profile the image was built for, as its report records it
    next: dict[str, Any]  # the new host profile
    next_source: str  # where the new profile was read from (its file)
    node: tuple[str | None, str]  # the Node each profile's engines.node checks use (None: the report has none)
    packages: int  # the installed packages judged (every folder of the tree)
    modules: int  # the UI modules judged
    refusals: list[HostRefusal] = field(default_factory=list)

    @property
    def anything_refused(self) -> bool:
        return bool(self.refusals)

    def refused(self, subject: Literal["module", "package"]) -> int:
        """How many UI modules (or packages) have at least one refusal."""
        return len({r.path for r in self.refusals if r.subject == subject})

    @property
    def new(self) -> int:
        """How many refusals the image's own host does not make: what the new profile brings."""
        return sum(1 for r in self.refusals if not r.already)

    def changes(self) -> list[str]:
        """What differs between the two profiles, in the words of the profile's keys."""
        before, after = self.current, self.next
        out = []
        for key, what in (("hostApiVersion", "host API"), ("reactMajor", "React")):
            if before.get(key) != after.get(key):
                out.append(f"{what} {before.get(key)} → {after.get(key)}")
        if self.node[0] != self.node[1]:
            out.append(f"Node {self.node[0] or '?'} → {self.node[1]}")
        for key, what in (
            ("sharedModules", "shared modules"),
            ("platformConfigKeys", "platform config keys"),
            ("platformTools", "platform tools"),
        ):
            was, now = set(before.get(key) or ()), set(after.get(key) or ())
            moved = [f"-{m}" for m in sorted(was - now)] + [f"+{m}" for m in sorted(now - was)]
            if moved:
                out.append(f"{what} {' '.join(moved)}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "image": self.image,
            "current": self.current,
            "next": self.next,
            "nextSource": self.next_source,
            "node": {"current": self.node[0], "next": self.node[1]},
            "judged": {"packages": self.packages, "modules": self.modules},
            "refused": [r.to_json() for r in self.refusals],
        }

    def render(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"

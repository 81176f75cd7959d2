"""Judge an installed UI module against the host the image is built for (spec: "app.module").

The verdict itself is ``neuralis_build.ui.record.judge_module``, the one judge `check` uses too (it
reads the module's exports and imports with esbuild's parser, never a regex);
here it is given what only the image knows (the ids its loaded packages publish) and turned into
the report's ``module`` field.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from neuralis_build.hostprofile import HostProfile


@dataclass(frozen=True)
class ModuleVerdict:
    """Accepted, or refused with a reason a person can act on."""

    status: Literal["accepted", "refused"]
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason}


def module_verdict_codes() -> frozenset[str]:
    """The codes of check's build-output rules that only judge the module.

    In the image a refused module keeps its package loaded, so these verdicts go to the report's
    ``module`` field and never refuse a package.
    """
    from neuralis_build.ui import record

    judged = [record.NB1601, record.NB1602, record.NB1604, record.NB1605, record.NB1606]
    judged += [record.NB1607, record.NB1608, record.NB1609, record.NB1610, record.NB1611, record.NB1614]
    return frozenset(c.id for c in judged)


def judge_module(root: Path, module: dict[str, Any], host: HostProfile, published: Collection[str]) -> ModuleVerdict:
    """Accept the module at ``root`` only when the host could render it; ``published`` are the loaded packages' ids."""
    from neuralis_build.ui.record import judge_module as judge

    verdict = judge(root, module, host, set(host.shared_modules) | set(published))
    if verdict.accepted:
        return ModuleVerdict("accepted")
    first = verdict.problems[0]
    reason = first.reason if not first.hint or first.hint in first.reason else f"{first.reason}: {first.hint}"
    return ModuleVerdict("refused", reason)

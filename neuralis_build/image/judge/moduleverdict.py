"""The image's verdict on an installed UI module against the host it builds (spec: "app.module").

The module was judged once, by ``check`` (``ui.verdict.judge_module``: its record, its exports and
imports read with esbuild's parser) when the package was validated at its tier; that verdict is
handed on in the package's facts. Here it is only asked again with what the image alone knows, the
ids its loaded packages publish, and turned into the report's ``module`` field.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from neuralis_build.hostprofile import HostProfile

if TYPE_CHECKING:
    from neuralis_build.record.verdict import ModuleVerdict as CheckedVerdict


@dataclass(frozen=True)
class ReportedVerdict:
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
    from neuralis_build.record.verdict import VERDICT_CODES

    return VERDICT_CODES


def reported(verdict: CheckedVerdict, host: HostProfile, published: Collection[str]) -> ReportedVerdict:
    """check's verdict on a module, for a host that hands it its shared modules and ``published`` ids."""
    again = verdict.against(set(host.shared_modules) | set(published))
    return ReportedVerdict("accepted") if again.accepted else ReportedVerdict("refused", again.explained)

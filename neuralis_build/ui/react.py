"""The React a UI module is built against, and the host's rule on it (NB1607, NB1608) located in package.json.

The major is the installed ``react``'s, else the one the declared range admits (npm/resolve.py); the
verdict itself is the host's (``react_major_problem``), here pointed at the line that decides it.
"""

from __future__ import annotations

from neuralis_build.hostprofile import HostProfile
from neuralis_build.npm.resolve import declared_react_major, installed_react_major
from neuralis_build.package import Package
from neuralis_build.record.sharedimports import SharedImportsRecord
from neuralis_build.record.verdict import NB1607, react_major_problem
from neuralis_build.ui.declaration import manifest_diag
from neuralis_build.util.diagnostics import Diagnostic


def react_major(package: Package) -> int | None:
    major = installed_react_major(package.root)
    return major if major is not None else declared_react_major(package.npm)


def react_problems(package: Package, record: SharedImportsRecord, host: HostProfile) -> list[Diagnostic]:
    """The host's React rule (NB1607, NB1608), located at the line of package.json that decides it."""
    problem = react_major_problem(record, host)
    if problem is None:
        return []
    c = problem[0]
    if c is NB1607:
        declared = [k for k in ("devDependencies", "dependencies", "peerDependencies") if _has_react(package, k)]
        pointer = f"/{declared[0]}/react" if declared else "/devDependencies"
        message = f"the package resolves React {record.react_major}, but the host provides React {host.react_major}"
        hint = f"move react to ^{host.react_major}.0.0 and reinstall, or build for another host with --host"
    else:
        pointer = "/devDependencies"
        message = "the bundle reads React, but no react is installed and package.json declares no single-major range"
        hint = (
            f'install it (npm install --save-dev react@{host.react_major}) or declare "react": '
            f'"^{host.react_major}.0.0" in devDependencies or peerDependencies'
        )
    return [manifest_diag(package, c, pointer, message, hint)]


def _has_react(package: Package, key: str) -> bool:
    return "react" in package.npm.ranges(key)

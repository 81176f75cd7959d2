"""The UI module's entry: the one the package names with ``--entry``, else the directory contract's src/app/host.*."""

from __future__ import annotations

from neuralis_build.package import Package
from neuralis_build.util.diagnostics import Diagnostic, code
from neuralis_build.util.errors import DiagnosedError

NB1902 = code("NB1902", "ui-entry-missing", "the package has no UI module entry src/app/host.{tsx,ts,jsx,js}")
NB1912 = code("NB1912", "ui-entry-outside", "the UI entry lies outside the package")


def find_entry(package: Package, entry: str | None = None) -> str:
    """The UI entry: ``entry`` when given (package-relative), else src/app/host.{tsx,ts,jsx,js}."""
    if entry is None:
        found = package.contract.ui_entry
        if found is None:
            hint = "create src/app/host.tsx exporting install<Name>HostComponents, or pass --entry"
            problem = Diagnostic(
                "error", NB1902.id, "src/app/host.tsx", "", "no src/app/host.tsx, host.ts, host.jsx or host.js", hint
            )
            raise DiagnosedError("nothing to bundle: the package has no UI module entry", [problem])
        return found.path
    path = (package.root / entry).resolve()
    if not path.is_relative_to(package.root):
        problem = Diagnostic(
            "error", NB1912.id, entry, "", f"{entry} is outside {package.root}", "name a file inside the package"
        )
        raise DiagnosedError("the UI entry lies outside the package", [problem])
    if not path.is_file():
        hint = "pass an existing file to --entry"
        raise DiagnosedError(
            "the UI entry does not exist",
            [Diagnostic("error", NB1902.id, entry, "", f"{entry} does not exist", hint)],
        )
    return path.relative_to(package.root).as_posix()

"""Does package.json's app.module declare what the build emitted? (NB1908–NB1910, each hint names the line.)"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.package import ABSENT, Package
from neuralis_build.util.diagnostics import Code, Diagnostic, code
from neuralis_build.util.outdir import OUT_DIR

if TYPE_CHECKING:
    from typing import Any

NB1908 = code("NB1908", "ui-module-undeclared", "package.json declares no neuralis.app.module for the built module")
NB1909 = code("NB1909", "ui-module-entry", "app.module.entry does not name the module the build emits")
NB1910 = code("NB1910", "ui-module-css", "app.module.css does not match whether the build emits a stylesheet")

OUT_JS = f"{OUT_DIR}/host.js"
OUT_CSS = f"{OUT_DIR}/host.css"
MODULE = "/neuralis/app/module"


def _line(package: Package, pointer: str) -> int | None:
    where = package.source.locate(pointer)
    return where[0] if where else None


def manifest_diag(package: Package, c: Code, pointer: str, message: str, hint: str) -> Diagnostic:
    return package.locate(Diagnostic("error", c.id, MANIFEST, pointer, message, hint))


def check_declaration(package: Package, css: bool) -> list[Diagnostic]:
    """The build fails when app.module does not match what it emitted; hints name the line to change."""
    module = package.module
    if module is None:
        return [
            manifest_diag(
                package,
                NB1908,
                MODULE,
                f"package.json declares no neuralis.app.module, so the host never loads {OUT_JS}",
                _undeclared_hint(package, css),
            )
        ]
    problems = []
    has_entry = package.as_written(f"{MODULE}/entry") is not ABSENT
    entry = module.entry
    if entry != OUT_JS:
        line = _line(package, f"{MODULE}/entry") or _line(package, MODULE)
        problems.append(
            manifest_diag(
                package,
                NB1909,
                f"{MODULE}/entry" if has_entry else MODULE,
                f"app.module.entry is {_show(package.as_written(f'{MODULE}/entry'))}, but the build emits {OUT_JS}",
                f'set "entry": "{OUT_JS}" on line {line} of package.json',
            )
        )
    declared_css = package.as_written(f"{MODULE}/css")
    has_css = declared_css is not ABSENT
    if css and module.css != OUT_CSS:
        pointer = f"{MODULE}/css" if has_css else MODULE
        line = _line(package, pointer)
        action = "set" if has_css else "add"
        problems.append(
            manifest_diag(
                package,
                NB1910,
                pointer,
                f"the entry imports CSS, so the build emits {OUT_CSS}, but app.module.css is {_show(declared_css)}",
                f'{action} "css": "{OUT_CSS}" in app.module (line {line} of package.json)',
            )
        )
    elif not css and has_css:
        line = _line(package, f"{MODULE}/css")
        problems.append(
            manifest_diag(
                package,
                NB1910,
                f"{MODULE}/css",
                f"app.module.css is {_show(declared_css)}, but the entry imports no CSS, so the build emits none",
                f'remove the "css" line (line {line} of package.json), or import a stylesheet from the entry',
            )
        )
    return problems


def _undeclared_hint(package: Package, css: bool) -> str:
    """Where to put app.module: into an existing "app" object, never beside it (a second "app" key)."""
    wanted = json.dumps({"entry": OUT_JS, "css": OUT_CSS} if css else {"entry": OUT_JS})
    app = package.as_written("/neuralis/app")
    if package.declared is not None and package.declared.app is not None:  # "app" is an object
        if package.as_written(MODULE) is not ABSENT:  # present but not an object
            return f'replace "module" in "app" (line {_line(package, MODULE)} of package.json) with {wanted}'
        return f'add "module": {wanted} to the "app" object (line {_line(package, "/neuralis/app")} of package.json)'
    if app is not ABSENT and app is not None:
        return f'replace "app" (line {_line(package, "/neuralis/app")} of package.json) with {{"module": {wanted}}}'
    line = _line(package, "/neuralis")
    at = f" (line {line} of package.json)" if line else ""
    return f'add "app": {{"module": {wanted}}} to the neuralis block{at}'


def _show(value: Any) -> str:
    return "absent" if value is None or value is ABSENT else f'"{value}"' if isinstance(value, str) else repr(value)

"""app.module: a first-party package's one prebuilt browser module (spec: "app.module").

Only the declaration is judged here; whether it matches what ``neuralis-build ui`` emitted is a
build-output check (NB16).
"""

from __future__ import annotations

from collections.abc import Sequence

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj
from neuralis_build.manifest.paths import normalize, path_problem
from neuralis_build.manifest.shape import Str, StrCheck
from neuralis_build.manifest.urlpath import served_path
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import code
from neuralis_build.util.trust import Trust

NB0401 = code("NB0401", "module-dropped", "app.module is declared by a package that is not first-party; it is dropped")
NB0402 = code("NB0402", "module-path-invalid", "an app.module path is absolute, has a .. segment or is malformed")
NB0403 = code("NB0403", "module-path-outside-dist", "an app.module path is not under dist/")
NB0404 = code("NB0404", "module-path-not-served", "an app.module path is outside dist/app/, the tree the host serves")
NB0405 = code("NB0405", "module-extension", "app.module.entry is not .js/.mjs, or app.module.css is not .css")
NB0406 = code("NB0406", "module-key", "app.module carries a key other than entry, css and provides")
NB0407 = code("NB0407", "module-provides-foreign", "an app.module.provides id is not a subpath of the own name")
NB0408 = code("NB0408", "module-provides-host", "an app.module.provides id is a module the host already provides")
NB0409 = code("NB0409", "module-provides-duplicate", "app.module.provides lists one id twice")
NB0410 = code("NB0410", "module-provides-count", "app.module.provides lists more than 16 ids")

MAX_PROVIDES = 16
SERVED = "dist/app/"


def _module_path(suffixes: Sequence[str], example: str) -> StrCheck:
    def check(value: str, pointer: str, c: Checker) -> None:
        problem = path_problem(value)
        if problem:
            c.error(NB0402, pointer, f'"{value}" {problem}', f'use a path under {SERVED}, such as "{example}"')
            return
        path = normalize(value)
        served = served_path(path)
        if served is None or not served.plain:
            # the host serves the module by URL: %2e%2e, a tab or a query change what loads
            loads = "nothing in the package" if served is None else f'"{served.path}"'
            c.error(
                NB0402,
                pointer,
                f'"{value}" is read differently as a URL: the host would serve {loads}',
                f'write the plain path, such as "{example}"',
            )
            return
        if not path.endswith(tuple(suffixes)):
            c.error(
                NB0405,
                pointer,
                f'"{value}" is not a {" or ".join(suffixes)} file',
                f'neuralis-build ui emits "{example}"',
            )
        if not path.startswith("dist/"):
            c.error(
                NB0403,
                pointer,
                f'"{value}" is not under dist/',
                f'point it at the built file, such as "{example}" (neuralis-build ui writes it)',
            )
        elif not path.startswith(SERVED):
            c.error(
                NB0404,
                pointer,
                f'"{value}" is outside {SERVED}, and the host serves only the {SERVED} tree',
                f'build the module into {SERVED}, such as "{example}"',
            )

    return check


def _published_id(value: str, pointer: str, c: Checker) -> None:
    shared = c.host.shared_modules if c.host is not None else ()
    host_owned = next((m for m in shared if value == m or value.startswith(m + "/")), None)
    if host_owned is not None:
        c.error(
            NB0408,
            pointer,
            f'"{value}" is a module the host provides ({host_owned}); a package cannot publish it',
            "remove it: every UI module reads the host's copy",
        )
        return
    name = c.package.name if c.package is not None else None
    if name is None:
        return
    rest = value[len(name) + 1 :] if value.startswith(name + "/") else None
    if not rest or any(s in ("", ".", "..") for s in rest.split("/")):
        c.error(
            NB0407,
            pointer,
            f'"{value}" is not a subpath of this package\'s name "{name}"',
            f'publish only modules of your own package, such as "{name}/app/charts"',
        )


MODULE = Obj(
    fields={
        "entry": Field(
            Str(
                min_length=1,
                checks=(_module_path((".js", ".mjs"), "dist/app/host.js"),),
                description="The built module (.js or .mjs), package-relative under dist/app/: dist/app/host.js.",
            ),
            required=True,
        ),
        "css": Field(
            Str(
                min_length=1,
                checks=(_module_path((".css",), "dist/app/host.css"),),
                description="The module's stylesheet, when its entry imports CSS: dist/app/host.css.",
            )
        ),
        "provides": Field(
            Arr(
                Str(min_length=1, checks=(_published_id,), description="A subpath of the package's own name."),
                max_items=MAX_PROVIDES,
                count_code=NB0410,
                what="module ids",
                unique=lambda module_id: module_id,
                unique_code=NB0409,
                unique_what="module id",
                description="Modules this package publishes to other first-party UI modules (at most 16).",
            )
        ),
    },
    unknown_code=NB0406,
    what="app.module (exactly { entry, css?, provides? })",
    description="One prebuilt browser module carrying the React code of all the package's direct surfaces.",
    model=model.Module,
)

MODULE_FIELD = Field(
    MODULE,
    min_trust=Trust.FIRST_PARTY,
    drop_code=NB0401,
    drop_message='"app.module" is honored for first-party packages only; the host drops it at load',
)

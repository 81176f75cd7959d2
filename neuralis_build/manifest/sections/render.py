"""How a surface draws (spec: app.surfaces): an iframe page from the surface's own root, or React.

A widget's ``component`` and a card's ``render`` are one of two blocks: ``iframe`` (any trust) names a
package file under the surface's canonical root ``app/surfaces/{kind}/{surfaceId}/``, judged as a
browser resolves the url; ``react`` (first-party only) draws a component of the package's app.module.
"""

from __future__ import annotations

from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Field, Obj, Tagged
from neuralis_build.manifest.paths import has_scheme, normalize, path_problem
from neuralis_build.manifest.shape import Str
from neuralis_build.manifest.urlpath import served_path
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import code
from neuralis_build.util.jsonpointer import join
from neuralis_build.util.trust import at_least

NB0505 = code("NB0505", "renderer-not-allowed", "a react renderer is used by a package that is not first-party")
NB0506 = code("NB0506", "renderer-unknown", "a surface's renderer is not iframe or react")
NB0507 = code("NB0507", "surface-url-invalid", "an iframe url is not a relative package path to an .html file")
NB0508 = code("NB0508", "surface-url-outside-root", "an iframe url points outside app/surfaces/{kind}/{surfaceId}/")

ASSET_MODES = ("self-contained", "bundle")
_HTML = (".html", ".htm")


def _url_syntax(value: str, pointer: str, c: Checker) -> None:
    hint = "name the entry relative to the package root, such as ./app/surfaces/widget/<type>/index.html"
    if has_scheme(value) or value.startswith("//"):
        c.error(NB0507, pointer, f'"{value}" is a URL; an iframe url names a file in the package', hint)
        return
    if "?" in value or "#" in value:
        c.error(NB0507, pointer, f'"{value}" carries a query or fragment; name the file alone', hint)
        return
    problem = path_problem(value)
    if problem:
        c.error(NB0507, pointer, f'"{value}" {problem}', hint)
        return
    if served_path(normalize(value)) is None:
        c.error(NB0507, pointer, f'"{value}" names no file a browser can load from the package', hint)
        return
    if not normalize(value).lower().endswith(_HTML):
        c.error(NB0507, pointer, f'"{value}" is not an HTML file; an iframe entry is a page (.html)', hint)


def _react_first_party(value: dict[str, Any], pointer: str, c: Checker) -> None:
    if not at_least(c.trust, "first-party"):
        c.error(
            NB0505,
            join(pointer, "renderer"),
            f"direct React surfaces are first-party only; this package is {c.trust}",
            'use "renderer": "iframe" with a url under app/surfaces/{kind}/{surfaceId}/',
        )


IFRAME = Obj(
    fields={
        "renderer": Field(Str(enum=("iframe",)), required=True),
        "url": Field(
            Str(
                min_length=1,
                checks=(_url_syntax,),
                description="The entry page, relative to the package: ./app/surfaces/{kind}/{surfaceId}/<file>.html.",
            ),
            required=True,
        ),
        "assetMode": Field(
            Str(
                enum=ASSET_MODES,
                description='"self-contained" (the default): the entry inlines everything it needs; '
                '"bundle": the platform also serves the entry\'s sibling files.',
            )
        ),
    },
    unknown="warning",
    what="an iframe block",
    description="An iframe surface: its entry page under app/surfaces/{kind}/{surfaceId}/ and its asset mode.",
    model=model.Render,
)

REACT = Obj(
    fields={"renderer": Field(Str(enum=("react",)), required=True)},
    unknown="warning",
    what="a react block",
    checks=(_react_first_party,),
    description="A direct React surface, drawn by the package's app.module (first-party packages only).",
    model=model.Render,
)

RENDER = Tagged(
    key="renderer",
    variants={"iframe": IFRAME, "react": REACT},
    tag_code=NB0506,
    what="a render block",
    description="How the surface draws: an iframe page (any trust) or the UI module's React (first-party only).",
)


def surface_id(surface: dict[str, Any]) -> str | None:
    """The id that names a surface's root folder: a widget's type, a card's id (None for a dock entry)."""
    kind = surface.get("kind")
    return surface.get("type") if kind == "widget" else surface.get("id") if kind == "card" else None


def surface_root(surface: dict[str, Any]) -> str:
    """The canonical root of a widget's or card's files: ``app/surfaces/{kind}/{surfaceId}/``."""
    return f"app/surfaces/{surface['kind']}/{surface_id(surface)}/"


def block_key(kind: str) -> str:
    """The key of a surface's render block: a widget's ``component``, a card's ``render``."""
    return "component" if kind == "widget" else "render"


def inside_root(value: dict[str, Any], pointer: str, c: Checker) -> None:
    """An iframe entry must sit under its surface's root, as the browser resolves the url (NB0508)."""
    block = value[block_key(value["kind"])]
    if block["renderer"] != "iframe":
        return
    root = surface_root(value)
    at = join(pointer, block_key(value["kind"]), "url")
    served = served_path(normalize(block["url"]))
    assert served is not None  # _url_syntax refused the rest
    # judged as the browser resolves it: a hidden .. (%2e%2e, .<TAB>.) must not climb out of the root
    resolved = "" if served.plain else f" (a browser resolves it to {served.path})"
    if not served.path.startswith(root):
        c.error(
            NB0508,
            at,
            f'"{block["url"]}" is outside this {value["kind"]}\'s root {root}{resolved}',
            f"move the entry under {root} and point the url there, such as ./{root}index.html",
        )
    elif not served.plain:
        c.error(
            NB0507,
            at,
            f'"{block["url"]}" is read differently as a URL{resolved}',
            f"write the path as the browser reads it: ./{served.path}",
        )

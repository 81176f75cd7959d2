"""app.surfaces[]: widgets, cards and dock entries, and their iframe entries on disk (spec: "app.surfaces").

A widget's ``component`` and a card's ``render`` say how the surface draws: ``iframe`` (any trust) loads
a package file from the surface's own root ``app/surfaces/{kind}/{surfaceId}/``; ``react`` (first-party
only) draws a component of the package's UI module (``app.module``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from neuralis_build.diagnostics import code
from neuralis_build.jsonpointer import join
from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj, Tagged
from neuralis_build.manifest.engine import BlockRule
from neuralis_build.manifest.iframeentry import entry_problems
from neuralis_build.manifest.paths import has_scheme, normalize, path_problem
from neuralis_build.manifest.sections.requires import FEATURE_GATE
from neuralis_build.manifest.shape import Str
from neuralis_build.manifest.urlpath import served_path
from neuralis_build.trust import at_least

NB0501 = code("NB0501", "surface-kind", "a surface's kind is not widget, card or dock")
NB0502 = code("NB0502", "surface-id-invalid", "a surface id or widget type is not a safe path segment")
NB0503 = code("NB0503", "surface-id-duplicate", "two surfaces share an id")
NB0504 = code("NB0504", "widget-type-duplicate", "two widgets share a type")
NB0505 = code("NB0505", "renderer-not-allowed", "a react renderer is used by a package that is not first-party")
NB0506 = code("NB0506", "renderer-unknown", "a surface's renderer is not iframe or react")
NB0507 = code("NB0507", "surface-url-invalid", "an iframe url is not a relative package path to an .html file")
NB0508 = code("NB0508", "surface-url-outside-root", "an iframe url points outside app/surfaces/{kind}/{surfaceId}/")
NB0511 = code("NB0511", "dock-action-unknown", 'a dock action type is not "open-widget"')
NB0512 = code("NB0512", "dock-widget-undeclared", "a dock action opens a widget type the package does not declare")
NB0513 = code("NB0513", "react-surface-without-module", "a react surface is declared but the package has no app.module")

SURFACE_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
ASSET_MODES = ("self-contained", "bundle")
_HTML = (".html", ".htm")
_PTR = "/neuralis/app/surfaces"


def _segment(description: str) -> Str:
    return Str(
        pattern=SURFACE_ID,
        pattern_code=NB0502,
        pattern_message="is not a surface id: letters, digits, ., _ and -, starting with a letter or digit",
        pattern_hint="the id is a folder name under app/surfaces/{kind}/, such as my_workspace",
        max_length=128,
        length_code=NB0502,
        description=description,
    )


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
)

REACT = Obj(
    fields={"renderer": Field(Str(enum=("react",)), required=True)},
    unknown="warning",
    what="a react block",
    checks=(_react_first_party,),
    description="A direct React surface, drawn by the package's app.module (first-party packages only).",
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


def _block_key(kind: str) -> str:
    return "component" if kind == "widget" else "render"


def _inside_root(value: dict[str, Any], pointer: str, c: Checker) -> None:
    block = value[_block_key(value["kind"])]
    if block["renderer"] != "iframe":
        return
    root = surface_root(value)
    at = join(pointer, _block_key(value["kind"]), "url")
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


_COMMON = {
    "id": Field(_segment("Unique among the package's surfaces."), required=True),
    "requires": Field(FEATURE_GATE),
}

WIDGET = Obj(
    fields={
        "kind": Field(Str(enum=("widget",)), required=True),
        **_COMMON,
        "type": Field(_segment("The widget type; names the root app/surfaces/widget/{type}/."), required=True),
        "title": Field(Str(min_length=1, description="Shown in the widget's header."), required=True),
        "component": Field(RENDER, required=True),
    },
    unknown="warning",
    what="a widget surface",
    checks=(_inside_root,),
    description="A widget: a titled panel a person opens; its type names its root app/surfaces/widget/{type}/.",
)

CARD = Obj(
    fields={
        "kind": Field(Str(enum=("card",)), required=True),
        **_COMMON,
        "title": Field(Str(min_length=1, description="Shown with the card.")),
        "render": Field(RENDER, required=True),
    },
    unknown="warning",
    what="a card surface",
    checks=(_inside_root,),
    description="A card; its id names its root app/surfaces/card/{id}/.",
)

ACTION = Obj(
    fields={
        "type": Field(Str(enum=("open-widget",), enum_code=NB0511), required=True),
        "widget": Field(_segment("The type of one of the package's widgets."), required=True),
    },
    unknown="warning",
    what="a dock action",
    description='What the dock entry does: { "type": "open-widget", "widget": <a widget type> }.',
)

DOCK = Obj(
    fields={
        "kind": Field(Str(enum=("dock",)), required=True),
        **_COMMON,
        "label": Field(Str(min_length=1, description="The dock entry's label."), required=True),
        "action": Field(ACTION, required=True),
    },
    unknown="warning",
    what="a dock entry",
    description="A dock entry that opens one of the package's widgets.",
)

SURFACES = Arr(
    Tagged(
        key="kind",
        variants={"widget": WIDGET, "card": CARD, "dock": DOCK},
        tag_code=NB0501,
        what="a surface",
        description='One UI contribution, by kind: "widget", "card" or "dock".',
    ),
    unique=lambda surface: surface["id"],
    unique_code=NB0503,
    unique_what="surface id",
    unique_pointer=lambda at: at + "/id",
    description="UI contributions: widgets, cards and dock entries.",
)


@dataclass(frozen=True)
class _Usable:
    index: int
    pointer: str
    surface: dict[str, Any]


def _usable_surfaces(block: dict[str, Any], c: Checker) -> Iterator[_Usable]:
    app = block.get("app")
    surfaces = app.get("surfaces") if isinstance(app, dict) else None
    if not isinstance(surfaces, list):
        return
    for index, surface in enumerate(surfaces):
        at = join(_PTR, index)
        if isinstance(surface, dict) and c.usable(at):
            yield _Usable(index, at, surface)


def declared(block: dict[str, Any], c: Checker, kind: str) -> dict[str, str] | None:
    """Well-formed surfaces of ``kind``: widget type (or id) → pointer; None when app.surfaces is unusable."""
    if not isinstance(block.get("app", {}), dict) or not c.usable(_PTR):
        return None
    key = "type" if kind == "widget" else "id"
    found: dict[str, str] = {}
    for u in _usable_surfaces(block, c):
        if u.surface["kind"] == kind:
            found.setdefault(u.surface[key], u.pointer)
    return found


def _unique_widget_types(block: dict[str, Any], c: Checker) -> None:
    first: dict[str, str] = {}
    for u in _usable_surfaces(block, c):
        if u.surface["kind"] != "widget":
            continue
        widget_type = u.surface["type"]
        if widget_type in first:
            c.error(
                NB0504,
                join(u.pointer, "type"),
                f'duplicate widget type "{widget_type}"; {first[widget_type]} declares it first',
                "each widget type names one root folder: rename one of them",
            )
        else:
            first[widget_type] = u.pointer


def _dock_targets(block: dict[str, Any], c: Checker) -> None:
    widgets = declared(block, c, "widget")
    if widgets is None:
        return
    for u in _usable_surfaces(block, c):
        if u.surface["kind"] != "dock":
            continue
        target = u.surface["action"]["widget"]
        if target not in widgets:
            known = ", ".join(f'"{w}"' for w in widgets) or "none"
            c.error(
                NB0512,
                join(u.pointer, "action", "widget"),
                f'the dock entry opens the widget type "{target}", which this package does not declare',
                f"name one of the package's widget types ({known}), or declare that widget",
            )


def _react_needs_module(block: dict[str, Any], c: Checker) -> None:
    if not at_least(c.trust, "first-party"):
        return  # NB0505 already rejects the react renderer
    app = block.get("app")
    if isinstance(app, dict) and "module" in app:
        return
    for u in _usable_surfaces(block, c):
        key = _block_key(u.surface["kind"])
        if u.surface.get(key, {}).get("renderer") == "react":
            c.error(
                NB0513,
                join(u.pointer, key, "renderer"),
                f"this {u.surface['kind']} draws with React, but the package declares no app.module to carry it",
                'declare app.module { "entry": "dist/app/host.js" } (neuralis-build ui builds it), or use an iframe',
            )


def _iframe_entries(block: dict[str, Any], c: Checker) -> None:
    if c.package is None:
        return
    for u in _usable_surfaces(block, c):
        if u.surface["kind"] == "dock":
            continue
        key = _block_key(u.surface["kind"])
        render = u.surface[key]
        if render["renderer"] != "iframe":
            continue
        at = join(u.pointer, key, "url")
        mode = render.get("assetMode", "self-contained")
        served = served_path(normalize(render["url"]))
        if served is None:
            continue
        for p in entry_problems(c.package.root, served.path, surface_root(u.surface), mode):
            if p.severity == "error":
                c.error(p.code, at, p.message, p.hint)
            else:
                c.warning(p.code, at, p.message, p.hint)


RULES: tuple[BlockRule, ...] = (_unique_widget_types, _dock_targets, _react_needs_module, _iframe_entries)

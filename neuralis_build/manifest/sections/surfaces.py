"""app.surfaces[]: widgets, cards and dock entries, and their iframe entries on disk (spec: "app.surfaces").

How each surface draws (its ``component`` or ``render`` block: an iframe page or React) is render.py's;
here are the surfaces themselves, their ids and widget types, the dock entries that open them, and
the rules across surfaces (a react surface needs an app.module, an iframe entry is judged on disk).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj, Tagged
from neuralis_build.manifest.engine import BlockRule
from neuralis_build.manifest.iframeentry import entry_problems
from neuralis_build.manifest.paths import normalize
from neuralis_build.manifest.sections.render import RENDER, block_key, inside_root, surface_root
from neuralis_build.manifest.sections.requires import FEATURE_GATE
from neuralis_build.manifest.shape import Str
from neuralis_build.manifest.urlpath import served_path
from neuralis_build.model import block as model
from neuralis_build.util.diagnostics import code
from neuralis_build.util.jsonpointer import join
from neuralis_build.util.trust import at_least

NB0501 = code("NB0501", "surface-kind", "a surface's kind is not widget, card or dock")
NB0502 = code("NB0502", "surface-id-invalid", "a surface id or widget type is not a safe path segment")
NB0503 = code("NB0503", "surface-id-duplicate", "two surfaces share an id")
NB0504 = code("NB0504", "widget-type-duplicate", "two widgets share a type")
NB0511 = code("NB0511", "dock-action-unknown", 'a dock action type is not "open-widget"')
NB0512 = code("NB0512", "dock-widget-undeclared", "a dock action opens a widget type the package does not declare")
NB0513 = code("NB0513", "react-surface-without-module", "a react surface is declared but the package has no app.module")

SURFACE_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
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
    checks=(inside_root,),
    description="A widget: a titled panel a person opens; its type names its root app/surfaces/widget/{type}/.",
    model=model.Surface,
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
    checks=(inside_root,),
    description="A card; its id names its root app/surfaces/card/{id}/.",
    model=model.Surface,
)

ACTION = Obj(
    fields={
        "type": Field(Str(enum=("open-widget",), enum_code=NB0511), required=True),
        "widget": Field(_segment("The type of one of the package's widgets."), required=True),
    },
    unknown="warning",
    what="a dock action",
    description='What the dock entry does: { "type": "open-widget", "widget": <a widget type> }.',
    model=model.DockAction,
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
    model=model.Surface,
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
        key = block_key(u.surface["kind"])
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
        key = block_key(u.surface["kind"])
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

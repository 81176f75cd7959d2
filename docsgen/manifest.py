"""The manifest key reference: every key of the ``neuralis`` block, read from the shapes the validator checks.

Each section of neuralis_build/manifest/block.py is a heading; each key a row, with its type and limits
as the shape renders them in JSON Schema (the schema `neuralis-build schema` prints), whether it is
required, the lowest trust tier the host honours it at, and the codes its shape reports. The codes the
section's cross-field rules report follow each table.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from docsgen.codes import code_link
from docsgen.markdown import cell, code, escape, page, table

HERE = "reference/manifest.md"


@dataclass(frozen=True)
class Row:
    """One key (or array item) of the block, where it sits and what it takes."""

    path: str
    shape: Any
    required: bool | None  # None: an array item or a map value, which has no "required"
    min_trust: str | None
    drop_code: Any


def _walk(shape: Any, path: str) -> Iterator[Row]:
    """Every key below ``shape``; a tagged variant's keys carry their tag in the path, ``[kind=widget]``."""
    from neuralis_build.manifest.compound import Arr, MapOf, Obj, OneOfType, Tagged

    if isinstance(shape, Obj):
        for key, field in shape.fields.items():
            at = f"{path}.{key}" if path else key
            yield Row(at, field.shape, field.required, field.min_trust, field.drop_code)
            yield from _walk(field.shape, at)
    elif isinstance(shape, Arr):
        yield Row(f"{path}[]", shape.item, None, None, None)
        yield from _walk(shape.item, f"{path}[]")
    elif isinstance(shape, MapOf):
        yield Row(f"{path}.<key>", shape.value, None, None, None)
        yield from _walk(shape.value, f"{path}.<key>")
    elif isinstance(shape, Tagged):
        for tag, variant in shape.variants.items():
            # an element of an array names its tag in the brackets: app.surfaces[kind=widget]
            at = f"{path.removesuffix('[]')}[{shape.key}={tag}]"
            for row in _walk(variant, at):
                if not row.path.endswith(f"].{shape.key}"):  # the tag itself is in the path already
                    yield row
    elif isinstance(shape, OneOfType):
        for option in shape.by_type.values():
            yield from _walk(option, path)


def _type(schema: dict[str, Any]) -> str:
    if "oneOf" in schema:
        return " or ".join(_type(s) for s in schema["oneOf"])
    kind = schema.get("type")
    if kind == "array":
        return f"array of {_type(schema.get('items', {}))}"
    if isinstance(kind, list):
        return " or ".join(kind)
    if "const" in schema:
        return f"{kind} (always {json.dumps(schema['const'])})"
    return str(kind or "any JSON value")


def _limits(schema: dict[str, Any]) -> list[str]:
    said = []
    if "enum" in schema:
        said.append("one of " + ", ".join(code(json.dumps(v)) for v in schema["enum"]))
    if "pattern" in schema:
        said.append(f"matches {code(schema['pattern'])}")
    if schema.get("minLength") == 1:
        said.append("not empty")
    elif "minLength" in schema:
        said.append(f"at least {schema['minLength']} characters")
    if "maxLength" in schema:
        said.append(f"at most {schema['maxLength']} characters")
    if "minItems" in schema:
        said.append(f"at least {schema['minItems']} item" + ("s" if schema["minItems"] != 1 else ""))
    if "maxItems" in schema:
        said.append(f"at most {schema['maxItems']} items")
    for key, words in (("minimum", "at least {:g}"), ("maximum", "at most {:g}")):
        if key in schema:
            said.append(words.format(schema[key]))
    if schema.get("additionalProperties") is False:
        said.append("no other keys")
    if "propertyNames" in schema and "pattern" in schema["propertyNames"]:
        said.append(f"keys match {code(schema['propertyNames']['pattern'])}")
    return said


def _codes(row: Row) -> list[str]:
    """The codes the shape of ``row`` itself reports (its cross-field rules are listed per section)."""
    s = row.shape
    found = []
    pairs = [
        ("pattern", "pattern_code"),
        ("max_length", "length_code"),
        ("min_length", "length_code"),
        ("enum", "enum_code"),
        ("max_items", "count_code"),
        ("min_items", "count_code"),
        ("unique", "unique_code"),
        ("judge", "judge_code"),
        ("const", "const_code"),
        ("variants", "tag_code"),
    ]
    for attribute, code_attribute in pairs:
        if getattr(s, attribute, None) is not None and getattr(s, code_attribute, None) is not None:
            found.append(getattr(s, code_attribute).id)
    if getattr(s, "fields", None) is not None and getattr(s, "unknown", "allow") != "allow":
        found.append(s.unknown_code.id if s.unknown_code else ("NB0101" if s.unknown == "error" else "NB0108"))
    if row.drop_code is not None:
        found.append(row.drop_code.id)
    return list(dict.fromkeys(found))


def _section_codes(section: Any) -> list[str]:
    """The codes declared beside a section's rules: in the modules of its block rules and of its shapes' checks."""
    from neuralis_build.manifest.compound import Obj
    from neuralis_build.util.diagnostics import Code

    modules = {rule.__module__ for rule in section.rules}
    for field in section.fields.values():
        modules |= {getattr(check, "__module__", "") for row in _walk(field.shape, "") for check in _checks(row.shape)}
        if isinstance(field.shape, Obj):
            modules |= {getattr(check, "__module__", "") for check in field.shape.checks}
    found: list[str] = []
    for name in sorted(m for m in modules if m.startswith("neuralis_build.manifest.sections.")):
        module = importlib.import_module(name)
        found += [value.id for key, value in vars(module).items() if isinstance(value, Code) and key == value.id]
    return sorted(set(found))


def _checks(shape: Any) -> tuple[Any, ...]:
    return tuple(getattr(shape, "checks", ()) or ())


def _trust(row: Row) -> str:
    if row.min_trust is None:
        return ""
    return "first-party only" if row.min_trust == "first-party" else f"{row.min_trust} and first-party"


def _section(section: Any) -> str:
    rows = []
    for key, field in section.fields.items():
        top = Row(key, field.shape, field.required, field.min_trust, field.drop_code)
        for row in [top, *_walk(field.shape, key)]:
            schema = row.shape.schema()
            meaning = escape(schema.get("description", ""))
            what = [escape(_type(schema))]
            what += ["**required**"] if row.required else []
            what += [f"*{_trust(row)}*"] if row.min_trust else []
            what += _limits(schema)
            codes = " ".join(code_link(c, HERE) for c in _codes(row))
            rows.append([code(row.path), cell("; ".join(what)), cell(meaning), codes])
    parts = [f"## {section.name}"]
    if rows:
        parts.append(table(["key", "value", "meaning", "codes"], rows))
    else:
        parts.append("No key of its own: its rules judge what other sections declare against the package's files.")
    across = _section_codes(section)
    if across:
        parts.append("Rules across keys and files: " + ", ".join(code_link(c, HERE) for c in across) + ".")
    return "\n\n".join(parts)


def _outputs_sections() -> list[str]:
    """The outputs stage's rules: no key of their own; they judge the other sections' declarations against the build."""
    from neuralis_build.outputs import buildmode, rules
    from neuralis_build.util.diagnostics import Code

    parts = []
    for name, module in (("outputs", rules), ("build-mode", buildmode)):
        found = sorted(value.id for key, value in vars(module).items() if isinstance(value, Code) and key == value.id)
        text = [
            f"## {name}",
            "No key of its own: its rules judge what other sections declare against the package's files.",
            "Rules across keys and files: " + ", ".join(code_link(c, HERE) for c in found) + ".",
        ]
        parts.append("\n\n".join(text))
    return parts


def pages() -> dict[str, str]:
    from neuralis_build.manifest.block import SECTIONS

    intro = (
        "Every key of the `neuralis` block of package.json, section by section, as `neuralis-build check` "
        "judges it. The page is generated from the same declarative shapes the validator runs "
        "(`./scripts/docs-gen`), and `neuralis-build schema` prints them as a JSON Schema for editors "
        "([editor set-up](../guides/editor.md)). A path such as `app.surfaces[kind=widget].title` is the "
        '`title` of an element of `app.surfaces` whose `kind` is `"widget"`; `<key>` stands for any key of '
        "a map. A key marked *first-party only* (or *trusted and first-party*) is read by the host only at "
        "those tiers: below them, `check` warns and the host drops it. Every code links to its entry in the "
        "[catalogue](codes/index.md)."
    )
    sections = [_section(s) for s in SECTIONS]
    # the outputs stage's rules read with the contract's (contributions), before the rules on npm's fields
    at = next(i for i, s in enumerate(SECTIONS) if s.name == "contributions") + 1
    sections[at:at] = _outputs_sections()
    return {HERE: page(["# Manifest keys", intro, *sections])}

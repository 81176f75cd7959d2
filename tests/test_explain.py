"""`neuralis-build explain CODE`: every code the toolchain can emit has an entry, and the entries are true."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from neuralis_build.cli.build import main
from neuralis_build.explain import FIELDS, raw_entries, registered_codes
from tests.conftest import REPO

SPEC = Path(os.environ.get("NEURALIS_SPEC", "/work/shared/spec/manifest-and-distribution.txt"))
DESIGN = SPEC.parent.parent / "DESIGN.md"


def _norm(text: str) -> str:
    return " ".join(text.split())


def test_every_registered_code_has_an_entry_and_every_entry_a_code():
    codes = registered_codes()
    entries = raw_entries()
    assert len(codes) > 200  # the registry really was filled: every rule module was imported
    assert sorted(set(codes) - set(entries)) == [], "codes without an explanation"
    assert sorted(set(entries) - set(codes)) == [], "explanations of codes nothing emits"


def test_every_code_in_the_source_is_registered():
    """A code written as a literal somewhere (a Diagnostic built by hand) is still in the registry."""
    used = set()
    for path in (REPO / "neuralis_build").rglob("*"):
        if path.suffix in (".py", ".js", ".json") and "data/explain" not in path.as_posix():
            used |= set(re.findall(r"\bNB\d{4}\b", path.read_text(encoding="utf-8")))
    assert sorted(used - set(registered_codes())) == []


def test_each_entry_has_every_field_and_nothing_else():
    for code, fields in raw_entries().items():
        assert sorted(fields) == sorted(FIELDS), code
        assert all(fields[f].strip() for f in FIELDS), code
        assert fields["bad"] != fields["good"], code


def _sections(text: str) -> list[tuple[int, str]]:
    """(offset in the whitespace-normalised text, heading) of the spec's title and each section."""
    heads = ["Manifest and distribution", *re.findall(r"(?m)^(.*?)Copy Anchor Link$", text)]
    flat = _norm(text)
    return [(flat.index(_norm(h)), h) for h in heads]


@pytest.mark.skipif(not SPEC.is_file(), reason="the spec is not beside the repository (set NEURALIS_SPEC)")
def test_spec_quotes_are_verbatim_and_in_the_section_they_name():
    text = SPEC.read_text(encoding="utf-8")
    flat, sections = _norm(text), _sections(text)
    quoted = {c: f for c, f in raw_entries().items() if f["source"].startswith("spec: ")}
    assert len(quoted) > 100
    for code, fields in quoted.items():
        quote = _norm(fields["why"])
        assert quote in flat, f"{code}: not a sentence of the spec: {quote[:80]}"
        heading = [h for at, h in sections if at <= flat.index(quote)][-1]
        assert heading.startswith(fields["source"].removeprefix("spec: ")), f"{code}: the quote is under {heading}"


def test_other_sources_name_a_real_section():
    docs = {"docs/spec-decisions.md": REPO / "docs/spec-decisions.md", "docs/packing.md": REPO / "docs/packing.md"}
    if DESIGN.is_file():
        docs["DESIGN.md"] = DESIGN
    for code, fields in raw_entries().items():
        if fields["source"].startswith("spec: "):
            continue
        document, _, section = fields["source"].partition(", ")
        assert document in ("DESIGN.md", *docs), code
        if document in docs:
            headings = re.findall(r"(?m)^#+ (.*)$", docs[document].read_text(encoding="utf-8"))
            assert any(h.startswith(section) for h in headings), f"{code}: no section {section!r} in {document}"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_prints_the_rule_the_spec_sentence_and_two_examples(capsys):
    code, out, err = run(capsys, "explain", "NB0507")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "NB0507 surface-url-invalid: an iframe url is not a relative package path to an .html file",
        "",
        "Rule",
        "  An iframe url is a relative package path to an .html page: no scheme, no //host, no query or fragment, "
        "no absolute path, no backslash, no .. or empty segment.",
        "",
        "Why (the spec, app.surfaces)",
        "  “An iframe surface's relative url must point into that surface's own canonical root”",
        "",
        "Bad",
        '  "component": {"renderer": "iframe", "url": "https://acme.example.com/board"}',
        "",
        "Good",
        '  "component": {"renderer": "iframe", "url": "./app/surfaces/widget/acme_board/index.html"}',
    ]


def test_a_code_in_any_case_or_its_slug_finds_the_entry(capsys):
    first = run(capsys, "explain", "NB1908")
    assert run(capsys, "explain", "nb1908") == first
    assert run(capsys, "explain", "ui-module-undeclared") == first
    assert "Why (docs/spec-decisions.md, app.surfaces)" in run(capsys, "explain", "NB0503")[1]


@pytest.mark.parametrize(
    ("query", "hint"),
    [
        (
            "NB501",
            "hint: did you mean NB0501 (surface-kind) or NB1501 (access-trust-ignored) or NB1901 (esbuild-warning)?",
        ),
        (
            "nb1908x",
            "hint: did you mean NB1908 (ui-module-undeclared) or NB1918 (ui-meta-url) or NB1910 (ui-module-css)?",
        ),
        ("surface-knd", "hint: did you mean NB0501 (surface-kind) or NB0507 (surface-url-invalid)?"),
        ("hello", "hint: codes run from NB0001 to NB1919; every diagnostic prints its code"),
    ],
)
def test_an_unknown_code_is_a_usage_error_with_a_guess(capsys, query, hint):
    code, out, err = run(capsys, "explain", query)
    assert (code, out) == (2, "")
    assert err.splitlines() == [f'error: no diagnostic code "{query}"', hint]


def test_check_points_at_explain_after_its_findings(tmp_path, capsys):
    (tmp_path / "package.json").write_text('{"name": "p", "version": "1.0.0", "neuralis": {"credentials": 1}}')
    code, out, _ = run(capsys, "check", str(tmp_path), "--trust", "untrusted")
    assert code == 1
    assert out.splitlines()[-1] == "explain a code: neuralis-build explain NB0100"
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "package.json").write_text('{"name": "p", "version": "1.0.0", "neuralis": {}}')
    code, out, _ = run(capsys, "check", str(clean), "--trust", "untrusted")
    assert (code, "neuralis-build explain" in out) == (0, False)

"""`neuralis-build explain CODE`: every code the toolchain can emit has an entry, and the entries are true."""

from __future__ import annotations

import re

import pytest

from neuralis_build.cli.build import main
from neuralis_build.explain import FIELDS, raw_entries, spec_sections
from neuralis_build.util.codes import WHERE, every_code
from tests.conftest import REPO


def _norm(text: str) -> str:
    return " ".join(text.split())


def declared_codes() -> dict[str, list[str]]:
    """Each module's codes as the source declares them (``NB0402 = code("NB0402", …)`` at module level)."""
    import ast

    found: dict[str, list[str]] = {}
    for path in sorted((REPO / "neuralis_build").rglob("*.py")):
        module = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.parse(path.read_text("utf-8")).body:
            call = node.value if isinstance(node, ast.Assign) else None
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "code":
                assert [t.id for t in node.targets if isinstance(t, ast.Name)] == [call.args[0].value], module
                found.setdefault(module, []).append(call.args[0].value)
    return found


def test_the_table_of_codes_says_where_each_code_is_declared_and_nothing_else():
    declared = declared_codes()
    assert {m: sorted(ids) for m, ids in declared.items()} == {m: sorted(ids) for m, ids in WHERE.items()}
    every = [c for ids in declared.values() for c in ids]
    assert len(every) == len(set(every)), "a code declared twice"
    assert all(code.id == code_id for code_id, code in every_code().items())


def test_every_code_has_an_entry_and_every_entry_a_code():
    codes = every_code()
    entries = raw_entries()
    assert len(codes) > 200
    assert sorted(set(codes) - set(entries)) == [], "codes without an explanation"
    assert sorted(set(entries) - set(codes)) == [], "explanations of codes nothing emits"


def test_every_code_in_the_source_is_registered():
    """A code written as a literal somewhere (a Diagnostic built by hand) is still in the registry."""
    used = set()
    for path in (REPO / "neuralis_build").rglob("*"):
        if path.suffix in (".py", ".js", ".json") and "data/explain" not in path.as_posix():
            used |= set(re.findall(r"\bNB\d{4}\b", path.read_text(encoding="utf-8")))
    assert sorted(used - set(every_code())) == []


def test_each_entry_has_every_field_and_nothing_else():
    for code, fields in raw_entries().items():
        assert sorted(fields) == sorted(FIELDS), code
        assert all(fields[f].strip() for f in FIELDS), code
        assert fields["bad"] != fields["good"], code


def test_every_source_names_a_section_of_the_spec_or_a_heading_of_our_docs():
    sections = spec_sections()
    for code, fields in raw_entries().items():
        source = fields["source"]
        if source.startswith("spec: "):
            assert source.removeprefix("spec: ") in sections, f"{code}: the spec has no section {source!r}"
            continue
        document, _, section = source.partition(", ")
        assert document.startswith("docs/") and (REPO / document).is_file(), f"{code}: {document} is not a docs page"
        headings = re.findall(r"(?m)^#+ (.*)$", (REPO / document).read_text(encoding="utf-8"))
        assert any(h.startswith(section) for h in headings), f"{code}: no section {section!r} in {document}"


def test_the_spec_sections_are_its_headings_by_their_keys():
    """The list kept in the repository: each key is its heading up to the dash, so a source reads as the spec does."""
    sections = spec_sections()
    assert len(sections) == 19
    for key, heading in sections.items():
        assert heading.split(" — ")[0] == key or heading.startswith(f"{key} ("), (key, heading)
    # every section the entries name is one, and most of the spec's sections are named by some entry
    named = {f["source"].removeprefix("spec: ") for f in raw_entries().values() if f["source"].startswith("spec: ")}
    assert named <= set(sections) and len(named) >= 15


def test_no_why_is_empty_repeated_or_the_rule_again():
    whys: dict[str, str] = {}
    for code, fields in raw_entries().items():
        why = _norm(fields["why"])
        assert len(why) > 40, f"{code}: say why the rule exists"
        assert why != _norm(fields["rule"]), code
        assert why not in whys, f"{code} repeats the reason of {whys.get(why)}"
        whys[why] = code


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_prints_the_rule_why_it_exists_and_two_examples(capsys):
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
        "  The host serves an iframe page from the package's own files; a URL with a scheme, a host, a query, a "
        "fragment or a path that climbs out would load something the host never vetted.",
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
            "hint: did you mean NB1908 (ui-module-undeclared) or NB1920 (ui-style-tool-missing) or "
            "NB1918 (ui-meta-url)?",
        ),
        ("surface-knd", "hint: did you mean NB0501 (surface-kind) or NB0507 (surface-url-invalid)?"),
        ("hello", "hint: codes run from NB0001 to NB1926; every diagnostic prints its code"),
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

"""Name validation before anything is written, and the spellings the templates derive from a name."""

from __future__ import annotations

from pathlib import Path

import pytest

from neuralis_build.scaffold.names import Names, check_name
from neuralis_build.util.errors import UserError

from .conftest import NewRunner, listing


@pytest.mark.parametrize(
    "name",
    ["my-package", "@acme/reports", "a", "x" * 214, "@acme/x.y_z-1", "a.b"],
)
def test_valid_names_are_accepted(name: str) -> None:
    check_name(name)


@pytest.mark.parametrize(
    ("name", "reason", "suggestion"),
    [
        ("My-Package", "the name has uppercase letters", "my-package"),
        ("my package", "has characters that are not URL-safe", "my-package"),
        (".hidden", 'the name starts with "."', "hidden"),
        ("_private", 'the name starts with "_"', "private"),
        ("x" * 215, "the name is 215 characters long; npm allows at most 214", "x" * 214),
        ("fs", '"fs" is the name of a Node.js built-in module', "fs-package"),
        ("node_modules", '"node_modules" is a blocked name', "node_modules-package"),
        ("@Acme/Reports", "the name has uppercase letters", "@acme/reports"),
        ("a/b", "the name has a slash outside of a scope", "a-b"),
        ("hello!", "the name has one of the characters ~'!()*", "hello"),
        ("", "the name is empty", "package"),
    ],
)
def test_bad_names_are_refused_with_reason_and_suggestion(name: str, reason: str, suggestion: str) -> None:
    with pytest.raises(UserError) as info:
        check_name(name)
    assert reason in info.value.message
    assert info.value.hint is not None
    assert f'"{suggestion}"' in info.value.hint
    check_name(suggestion)  # the suggestion itself is valid


def test_cli_refuses_a_bad_name_before_writing_anything(new: NewRunner, tmp_path: Path) -> None:
    run = new("new", "My Package", "--no-input", "--template", "full")
    assert run.code == 1
    assert run.out == ""
    assert run.err.splitlines() == [
        'error: "My Package" is not a valid package name: the name has uppercase letters; "My Package" has '
        "characters that are not URL-safe",
        'hint: npm names are lowercase and URL-safe, such as "my-package" (pass it as NAME)',
    ]
    assert listing(tmp_path) == []


def test_cli_refuses_a_bad_id_naming_the_flag(new: NewRunner, tmp_path: Path) -> None:
    run = new("new", "my-package", "--id", "My.Id", "--no-input")
    assert run.code == 1
    assert 'hint: npm names are lowercase and URL-safe, such as "my.id" (pass it as --id)' in run.err
    assert listing(tmp_path) == []


def test_an_id_that_differs_from_the_name_is_written_with_a_warning(new: NewRunner, tmp_path: Path) -> None:
    run = new("new", "my-package", "--id", "my-other-id", "--no-input")
    assert run.code == 0
    assert run.err == (
        'warning: the id "my-other-id" differs from the npm name "my-package": the host installs and resolves a '
        "package by its npm name, so neuralis-build check will warn (NB0111)\n"
    )
    assert '"id": "my-other-id"' in (tmp_path / "my-package" / "package.json").read_text()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "my-package",
            Names(
                name="my-package",
                id="my-package",
                title="My Package",
                pascal="MyPackage",
                snake="my_package",
                kebab="my-package",
                camel="myPackage",
                dotted="my-package",
                env="MY_PACKAGE",
                credential_prefix="my-package",
                widget_type="my_package_workspace",
                card_id="my-package.summary",
                dock_id="my-package.open",
            ),
        ),
        (
            "@acme/reports.v2",
            Names(
                name="@acme/reports.v2",
                id="@acme/reports.v2",
                title="Reports V2",
                pascal="AcmeReportsV2",
                snake="acme_reports_v2",
                kebab="acme-reports-v2",
                camel="acmeReportsV2",
                dotted="acme.reports.v2",
                env="ACME_REPORTS_V2",
                credential_prefix="acme.reports.v2",
                widget_type="acme_reports_v2_workspace",
                card_id="acme.reports.v2.summary",
                dock_id="acme.reports.v2.open",
            ),
        ),
        (
            "@mcp/3d-viewer",
            Names(
                name="@mcp/3d-viewer",
                id="@mcp/3d-viewer",
                title="3d Viewer",
                pascal="Mcp3dViewer",
                snake="mcp_3d_viewer",
                kebab="mcp-3d-viewer",
                camel="mcp3dViewer",
                dotted="mcp.3d-viewer",
                env="MCP_3D_VIEWER",
                credential_prefix="pkg-mcp.3d-viewer",  # the mcp. credential namespace is host-owned
                widget_type="mcp_3d_viewer_workspace",
                card_id="mcp.3d-viewer.summary",
                dock_id="mcp.3d-viewer.open",
            ),
        ),
        (
            "3d-viewer",
            Names(
                name="3d-viewer",
                id="3d-viewer",
                title="3d Viewer",
                pascal="Pkg3dViewer",
                snake="pkg_3d_viewer",
                kebab="pkg-3d-viewer",
                camel="pkg3dViewer",
                dotted="pkg-3d-viewer",
                env="PKG_3D_VIEWER",
                credential_prefix="pkg-3d-viewer",
                widget_type="pkg_3d_viewer_workspace",
                card_id="pkg-3d-viewer.summary",
                dock_id="pkg-3d-viewer.open",
            ),
        ),
    ],
)
def test_every_spelling_of_a_name(name: str, expected: Names) -> None:
    assert Names.derive(name, name) == expected


def test_long_names_keep_tool_names_and_config_keys_within_64_characters() -> None:
    names = Names.derive("a" * 214, "a" * 214)
    assert len(names.snake + "_report_link") <= 64
    assert len(names.camel + "SyncIntervalMinutes") <= 64
    assert len(names.kebab + "-word-limits") <= 64

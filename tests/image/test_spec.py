"""The image SPEC: what it accepts, and a bad SPEC as a usage error that names the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from neuralis_build.image.packages.spec import McpServer, frozen_problems, load_spec
from neuralis_build.util.errors import UsageError

INTEGRITY = "sha512-" + "A" * 86 + "=="


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "pkgs/reports").mkdir(parents=True)
    (tmp_path / "pkgs/charts-1.0.0.tgz").write_bytes(b"")
    path = tmp_path / "image.toml"
    path.write_text(text, "utf-8")
    return path


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(UsageError) as caught:
        load_spec(write(tmp_path, text))
    assert caught.value.exit_code == 2
    return caught.value.message.replace(str(tmp_path / "image.toml"), "SPEC")


def test_a_full_spec(tmp_path: Path) -> None:
    spec = load_spec(
        write(
            tmp_path,
            f"""
[host]
profile = "host.json"

[[packages]]
source = "pkgs/reports"

[[packages]]
source = "pkgs/charts-1.0.0.tgz"
class = "installed"
trust = "trusted"
integrity = "{INTEGRITY}"

[[packages]]
source = "npm:@acme/tools@1.2.3-beta.1"
class = "shipped"

[[mcp]]
server = "github"
tools = ["create_issue"]
""",
        )
    )
    assert spec.host_profile == (tmp_path / "host.json").resolve()
    assert [(p.kind, p.install_class, p.trust, p.line) for p in spec.packages] == [
        ("directory", "host-dependency", "first-party", 5),
        ("tarball", "installed", "trusted", 8),
        ("npm", "shipped", "first-party", 14),
    ]
    assert (spec.packages[2].npm_name, spec.packages[2].npm_version) == ("@acme/tools", "1.2.3-beta.1")
    assert spec.packages[0].path == (tmp_path / "pkgs/reports").resolve()
    assert spec.mcp == (McpServer("github", ("create_issue",)),)
    assert frozen_problems(spec) == [
        f"{tmp_path / 'image.toml'}:14: npm:@acme/tools@1.2.3-beta.1 has no integrity (required with --frozen)"
    ]


def test_installed_defaults_to_untrusted_and_project_is_untrusted(tmp_path: Path) -> None:
    spec = load_spec(
        write(
            tmp_path,
            '[[packages]]\nsource = "pkgs/reports"\nclass = "installed"\n'
            '[[packages]]\nsource = "pkgs/charts-1.0.0.tgz"\nclass = "project"\n',
        )
    )
    assert [p.trust for p in spec.packages] == ["untrusted", "untrusted"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[packages]]\nsource = "pkgs/reports"\n[[packages]]\nsource = "pkgs/../pkgs/reports"\nclass = "project"\n',
            "SPEC:3: pkgs/../pkgs/reports is listed twice (first at line 1)",
        ),
        (
            '[[packages]]\nsource = "npm:koa@3.0.0"\n[[packages]]\nsource = "npm:koa@3.3.0"\n',
            "SPEC:3: npm:koa is listed at two versions (first at line 1)",
        ),
    ],
    ids=["one folder twice", "one npm name at two versions"],
)
def test_a_package_listed_twice_is_an_error_at_the_later_line(tmp_path: Path, text: str, message: str) -> None:
    assert error(tmp_path, text) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[[packages]\nsource = 1",
            "SPEC: not valid TOML: Expected ']]' at the end of an array declaration (at line 1, column 11)",
        ),
        ("", "SPEC: no [[packages]] entry"),
        ('[[packages]]\nsource = "pkgs/reports"\nclas = "shipped"\n', "SPEC:1: unknown key(s) clas in [[packages]]"),
        (
            '[[packages]]\nsource = "pkgs/reports"\nclass = "builtin"\n',
            "SPEC:1: class 'builtin' is not one of shipped, host-dependency, installed, project",
        ),
        (
            '[[packages]]\nsource = "pkgs/reports"\ntrust = "trusted"\n',
            'SPEC:1: trust is only for class = "installed"; host-dependency packages get the host\'s tier by class',
        ),
        (
            '[[packages]]\nsource = "pkgs/reports"\nclass = "installed"\ntrust = "first-party"\n',
            'SPEC:1: trust must be "trusted" or "untrusted", not \'first-party\'',
        ),
        (
            '\n\n[[packages]]\nsource = "npm:@acme/tools@^1.2.0"\n',
            "SPEC:3: 'npm:@acme/tools@^1.2.0' is not npm:<name>@<exact version>",
        ),
        ('[[packages]]\nsource = "pkgs/missing"\n', "SPEC:1: pkgs/missing: no such package folder"),
        ('[[packages]]\nsource = "pkgs/nope.tgz"\n', "SPEC:1: pkgs/nope.tgz: no such tarball"),
        (
            '[[packages]]\nsource = "pkgs/reports"\nintegrity = "sha1-abc"\n',
            "SPEC:1: integrity must be sha512-<base64 of 64 bytes>, as npm pack --json prints it",
        ),
        ('[[packages]]\nsource = "pkgs/reports"\n[[mcp]]\ntools = []\n', 'SPEC:3: [[mcp]] needs server = "<name>"'),
        ('[[package]]\nsource = "x"\n', "SPEC: unknown table or key package"),
    ],
)
def test_a_bad_spec_is_a_usage_error_with_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    assert error(tmp_path, text).startswith(message)


def test_a_missing_spec(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such image spec"):
        load_spec(tmp_path / "nope.toml")

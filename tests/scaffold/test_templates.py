"""The shipped templates: found, listed, and rendered into files a person would keep."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from neuralis_build import __version__
from neuralis_build.check import check_path
from neuralis_build.scaffold.create import Request, create, plan
from neuralis_build.scaffold.render import environment, render_template
from neuralis_build.scaffold.templates import JINJA_SUFFIX, Template, list_templates, templates_root
from neuralis_build.util.errors import UsageError
from neuralis_build.util.trust import TRUST_TIERS, at_least

from ..conftest import REPO, findings
from .conftest import NewRunner, read_tree

TEMPLATES = ["minimal", "tools", "widget", "ui-module", "full"]
NAMES = ["my-package", "@acme/reports", "3d", "@mcp/x" + "y" * 200]
# Jinja syntax that must never survive into a generated file.
LEFTOVER = re.compile(r"\{\{|\}\}|\{%|%\}|\{#|#\}")
# A GitHub Actions expression, which a workflow keeps on purpose (the template writes it in a {% raw %} block).
ACTIONS_EXPRESSION = re.compile(r"\$\{\{ [\w.]+ \}\}")


def test_the_templates_are_found_in_the_checkout_in_display_order() -> None:
    assert templates_root() == REPO / "templates"
    assert [t.name for t in list_templates()] == TEMPLATES


def test_list_prints_one_line_per_template(new: NewRunner) -> None:
    run = new("new", "--list")
    assert run.code == 0
    assert run.out.splitlines() == [
        "minimal    The spec's minimal manifest: a declarative-only package, nothing to build. "
        "(check --trust untrusted)",
        "tools      A tool, a skill, a command and a team member, laid out by the directory contract. "
        "(check --trust untrusted)",
        "widget     An iframe widget, a card and a dock entry in their canonical surface roots, self-contained. "
        "(check --trust untrusted)",
        "ui-module  A first-party package with a React 19 UI module (app.module), built by neuralis-build ui. "
        "(check --trust first-party)",
        "full       A first-party package that uses every section of the manifest, as a living example. "
        "(check --trust first-party)",
    ]


def test_an_unknown_template_is_a_usage_error_with_a_suggestion(new: NewRunner, tmp_path: Path) -> None:
    run = new("new", "my-package", "--template", "widgets", "--no-input")
    assert run.code == 2
    assert run.err.splitlines() == [
        'error: there is no template "widgets"',
        'hint: did you mean "widget"? the templates are minimal, tools, widget, ui-module, full '
        "(neuralis new --list describes them)",
    ]
    assert list(tmp_path.iterdir()) == []


def test_templates_render_in_a_sandbox_that_refuses_to_reach_python(tmp_path: Path) -> None:
    """cycler.__init__.__globals__ is the way from plain Jinja2 to os.system; the sandbox refuses its first step,
    and a template that takes it is reported as a broken template, not run."""
    from jinja2.exceptions import SecurityError

    env = environment()
    with pytest.raises(SecurityError, match="access to attribute '__init__' of 'type' object is unsafe"):
        env.from_string("{{ cycler.__init__.__globals__ }}").render()
    with pytest.raises(SecurityError):  # immutable too: the templates only read their context
        env.from_string("{{ names.append('x') }}").render(names=[])

    marker = tmp_path / "ran"
    (tmp_path / "t").mkdir()
    (tmp_path / "t/README.md.jinja").write_text(f'{{{{ cycler.__init__.__globals__.os.system("touch {marker}") }}}}')
    template = Template("t", tmp_path / "t", "", "untrusted", "", (), 1)
    with pytest.raises(UsageError) as refused:
        render_template(template, {})
    assert refused.value.message == (
        "the t template is broken: README.md.jinja: access to attribute '__init__' of 'type' object is unsafe."
    )
    assert not marker.exists()


def test_template_sources_mark_every_templated_file() -> None:
    """A file with Jinja syntax but no .jinja suffix would ship its placeholders unrendered."""
    for template in list_templates():
        for rel in template.files():
            if not rel.name.endswith(JINJA_SUFFIX):
                text = (template.root / rel).read_text("utf-8")
                assert not LEFTOVER.search(text), f"{template.name}/{rel} has Jinja syntax but no {JINJA_SUFFIX}"


@pytest.mark.parametrize("template", TEMPLATES)
@pytest.mark.parametrize("name", NAMES)
def test_every_rendered_file_is_complete(template: str, name: str, tmp_path: Path) -> None:
    result = plan(Request(name=name, template=template, directory=tmp_path / "pkg"))
    for f in result.files:
        text = f.content.decode("utf-8")
        kept = ACTIONS_EXPRESSION.sub("", text) if f.path.startswith(".github/workflows/") else text
        assert not LEFTOVER.search(kept), f"{f.path} keeps Jinja syntax"
        assert text.endswith("\n") and not text.endswith("\n\n"), f"{f.path} does not end in one newline"
        if f.path.endswith(".json"):
            json.loads(text)
    manifest = json.loads(next(f.content for f in result.files if f.path == "package.json"))
    assert manifest["name"] == name
    assert manifest["neuralis"]["id"] == name
    readme = next(f.content.decode() for f in result.files if f.path == "README.md")
    assert f"neuralis-build check --trust {result.template.trust}" in readme
    assert f"neuralis-build pack --trust {result.template.trust}" in readme


def test_minimal_is_the_spec_minimal_manifest(tmp_path: Path) -> None:
    result = plan(Request(name="my-package", directory=tmp_path / "pkg", description="Human-facing description"))
    create(result)
    assert json.loads((tmp_path / "pkg/package.json").read_text()) == {
        "name": "my-package",
        "version": "0.1.0",
        "private": True,
        # the one place the toolchain to install is named (the npm scripts' wrapper and CI read it)
        "config": {"neuralisBuildInstall": f"neuralis-build=={__version__}"},
        "neuralis": {
            "id": "my-package",
            "name": "My Package",
            "description": "Human-facing description",
            "descriptionForModel": "Human-facing description",
        },
    }


def test_the_package_records_its_template_and_toolchain_version(tmp_path: Path) -> None:
    create(plan(Request(name="@acme/reports", template="widget", directory=tmp_path / "pkg")))
    assert json.loads((tmp_path / "pkg/.neuralis-scaffold.json").read_text()) == {
        "$comment": "Written by `neuralis new`. `neuralis update` reads it to bring this package up to date "
        "with its template; keep it in version control.",
        "template": "widget",
        "toolchainVersion": __version__,
        "answers": {
            "name": "@acme/reports",
            "id": "@acme/reports",
            "description": "Reports: a checklist widget with a summary card and a dock entry.",
        },
        "reactMajor": 19,
    }


@pytest.mark.parametrize("template", TEMPLATES)
def test_same_answers_give_the_same_bytes(template: str, tmp_path: Path) -> None:
    for folder in ("one", "two"):
        create(plan(Request(name="@acme/reports", template=template, directory=tmp_path / folder)))
    assert read_tree(tmp_path / "one") == read_tree(tmp_path / "two")


def test_the_files_each_template_writes(tmp_path: Path) -> None:
    layouts = {
        t: [f.path for f in plan(Request(name="@acme/reports", template=t, directory=tmp_path / t)).files]
        for t in TEMPLATES
    }
    common = [".github/workflows/package.yml", ".gitignore", ".neuralis-scaffold.json", "README.md", "package.json"]
    wrapper = "scripts/neuralis-build.mjs"
    assert layouts == {
        "minimal": common,
        "tools": [
            *common[:4],
            "commands/acme-reports-count.md",
            "package.json",
            "skills/acme-reports-word-limits/SKILL.md",
            "team/acme-reports-editor.md",
            "tools/acme_reports_word_count.ts",
        ],
        "widget": [
            *common[:4],
            "app/surfaces/card/acme.reports.summary/index.html",
            "app/surfaces/widget/acme_reports_workspace/index.html",
            "package.json",
            wrapper,
        ],
        "ui-module": [
            *common,
            wrapper,
            "src/app/env.d.ts",
            "src/app/host.css",
            "src/app/host.tsx",
            "src/types/neuralis-client.d.ts",
            "tsconfig.json",
        ],
        "full": [
            *common[:4],
            "app/surfaces/card/acme.reports.summary/index.html",
            "package.json",
            wrapper,
            "src/app/env.d.ts",
            "src/app/host.css",
            "src/app/host.tsx",
            "src/connectors/acme-reports.ts",
            "src/events/report.ts",
            "src/types/neuralis-client.d.ts",
            "tools/acme_reports_report_link.ts",
            "tsconfig.build.json",
            "tsconfig.json",
        ],
    }


def test_module_templates_export_the_install_function_named_for_the_id(tmp_path: Path) -> None:
    for template in ("ui-module", "full"):
        result = plan(Request(name="@acme/reports", template=template, directory=tmp_path / template))
        host = next(f.content.decode() for f in result.files if f.path == "src/app/host.tsx")
        assert "export function installAcmeReportsHostComponents(host: HostComponents): void {" in host
        assert 'import type { HostComponents, WidgetProps } from "@neuralis/client";' in host
        # The host API's declarations are the toolchain's own, byte for byte.
        types = next(f.content for f in result.files if f.path == "src/types/neuralis-client.d.ts")
        assert types == (REPO / "neuralis_build/data/types/neuralis-client.d.ts").read_bytes()
        manifest = json.loads(next(f.content for f in result.files if f.path == "package.json"))
        assert manifest["scripts"]["dev"] == "node scripts/neuralis-build.mjs dev --trust first-party"
        assert manifest["scripts"]["build:ui"] == "node scripts/neuralis-build.mjs ui"
        assert manifest["scripts"]["prepack"] == "npm run build"
        assert manifest["exports"]["./package.json"] == "./package.json"
        assert manifest["peerDependencies"] == {"react": "^19.0.0"}
        assert manifest["devDependencies"]["react"] == "^19.0.0"
        assert manifest["neuralis"]["app"]["module"] == {"entry": "dist/app/host.js", "css": "dist/app/host.css"}


@pytest.mark.parametrize("template", [t for t in list_templates() if not t.build], ids=lambda t: t.name)
def test_declarative_templates_pass_check_at_every_tier_they_claim(template: Template, tmp_path: Path) -> None:
    create(plan(Request(name="@acme/reports", template=template.name, directory=tmp_path / "pkg")))
    for trust in TRUST_TIERS:
        if at_least(trust, template.trust):
            assert findings(check_path(tmp_path / "pkg", trust)) == [], trust

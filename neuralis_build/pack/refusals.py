"""Why a package must not be packed: one list of located diagnostics, shared by ``pack`` and ``image``."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from neuralis_build.judged import JudgedPackage
from neuralis_build.npm.exports import exports_diagnostics
from neuralis_build.npm.fields import NpmFields
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.outputs.buildmode import NB1617
from neuralis_build.outputs.rules import NB1615
from neuralis_build.pack.coverage import NB1706, declared_outputs, files_entry_diagnostics, output_diagnostics
from neuralis_build.pack.fields import files_diagnostics, identity_diagnostics, js_truthy
from neuralis_build.pack.packlist import packlist_exact
from neuralis_build.pack.tarball import PackResult
from neuralis_build.package import Package
from neuralis_build.util.archivepath import NB1803, path_problem
from neuralis_build.util.diagnostics import Diagnostic, code, has_errors
from neuralis_build.util.errors import DiagnosedError
from neuralis_build.util.printable import shown

NB1709 = code("NB1709", "bundled-dependencies", "bundleDependencies are not packed by neuralis-build pack")
NB1710 = code("NB1710", "workspaces-root", "a workspace root is not packed by neuralis-build pack")
NB1712 = code(
    "NB1712", "decompression-ratio", "the tarball unpacks to over 1000 times its size; npm refuses to read it"
)

MAX_RATIO = 1000


def _edge_type(npm: NpmFields, name: str) -> str | None:
    """The kind of dependency arborist makes of ``name`` for the package it packs: its dependency fields are
    read in this order and a later one replaces an earlier one (a name in both dependencies and devDependencies
    is a dev dependency). npm-packlist bundles only a prod or optional one that is installed; a listed peer or
    dev dependency, or a name in no dependency field, is left out of the tarball without a word."""
    kind = None
    for field_name, field_kind in (
        ("peerDependencies", "peer"),
        ("dependencies", "prod"),
        ("optionalDependencies", "optional"),
        ("devDependencies", "dev"),
    ):
        if name in npm.ranges(field_name):
            kind = field_kind
    return kind


def shape_diagnostics(package: Package) -> list[Diagnostic]:
    """What stops npm's file list from being computed or reproduced (name, version, files, bundles, workspaces)."""
    manifest = package.manifest
    found = identity_diagnostics(manifest) + files_diagnostics(manifest)
    key, bundled = package.npm.bundled
    installed = [
        name
        for name in bundled
        if _edge_type(package.npm, name) in ("prod", "optional") and (package.root / "node_modules" / name).is_dir()
    ]
    if installed:
        found.append(
            Diagnostic(
                "error",
                NB1709.id,
                MANIFEST,
                f"/{key}",
                f"{key} would pack node_modules/{installed[0]} into the tarball; neuralis-build pack does not "
                "bundle dependencies",
                'list them in "dependencies" so the installer fetches them, or pack with npm pack',
            )
        )
    if js_truthy(manifest.get("workspaces")) and manifest.get("workspaces") not in ([], {}):
        found.append(
            Diagnostic(
                "error",
                NB1710.id,
                MANIFEST,
                "/workspaces",
                "this is a workspace root; npm packs it with rules that differ (it reads nested package.json "
                "files as ignore files) and neuralis-build pack does not reproduce them",
                "pack each workspace package from its own folder",
            )
        )
    return found


def entry_path_diagnostics(files: list[str]) -> list[Diagnostic]:
    """A file whose path breaks the tarball path rule (NB1803) would make a tarball ``image`` refuses."""
    found = []
    for rel in files:
        problem = path_problem(rel)
        if problem is not None:
            found.append(
                Diagnostic(
                    "error",
                    NB1803.id,
                    rel,
                    "",
                    f'the path "{shown(rel)}" {problem}; image refuses a tarball that holds it',
                    "rename the file, or leave it out of the package (files, .npmignore)",
                )
            )
    return found


def pack_refusals(judged: JudgedPackage, files: list[str]) -> list[Diagnostic]:
    """Every reason to refuse packing ``files`` (npm's list for the package), warnings included."""
    package = judged.package
    assert package is not None
    found = [_as_pack_sees_it(d) for d in judged.diagnostics]
    # check already names an output that was never built (NB16xx) at the same pointer: say it once
    reported = {d.pointer for d in found if d.severity == "error"}
    outputs = declared_outputs(judged)
    found += entry_path_diagnostics(files)
    found += files_entry_diagnostics(package, files, outputs)
    found += [d for d in output_diagnostics(judged, files) if not (d.code == NB1706.id and d.pointer in reported)]
    if judged.block is None:  # check ran no rule (a reference-only package): the host still resolves its root
        found += exports_diagnostics(package.manifest, files)
    return _in_file_order([package.locate(d) for d in found])


def _as_pack_sees_it(d: Diagnostic) -> Diagnostic:
    """check warns about a stale or a development build; pack refuses both, since the tarball would ship them."""
    if d.code not in (NB1615.id, NB1617.id):
        return d
    again = "then pack again (a prepack script that builds does it: pack runs it first)"
    return replace(d, severity="error", hint=f"{d.hint}, {again}")


def _in_file_order(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """package.json findings by line and column first (as check orders them), then other files."""
    return sorted(diagnostics, key=lambda d: (d.file != MANIFEST, d.file, d.line or 0, d.column or 0, d.pointer))


@dataclass(frozen=True)
class Prepack:
    """npm's file list for a package and every diagnostic about packing it."""

    files: list[str]
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def prepare_pack(judged: JudgedPackage) -> Prepack:
    """List the judged package as npm would and judge the packing; a list that cannot be computed comes back empty."""
    package = judged.package
    assert package is not None, "pack takes a package whose package.json was read"
    shape = [package.locate(d) for d in shape_diagnostics(package)]
    if has_errors(shape):
        return Prepack([], shape + list(judged.diagnostics))
    try:
        # pack_package says when the order is not exact
        files, _ = packlist_exact(package.root, package.manifest, as_npm_pack=True)
    except DiagnosedError as exc:
        return Prepack([], shape + exc.diagnostics)
    return Prepack(files, _in_file_order(shape + pack_refusals(judged, files)))


def tarball_diagnostics(result: PackResult) -> list[Diagnostic]:
    """npm's tar reader aborts past a 1000:1 ratio (tar 7.5.22), so neither npm nor installs could read it."""
    ratio = result.tar_size / result.size if result.size else 0.0
    if ratio <= MAX_RATIO:
        return list(result.notes)
    return [
        *result.notes,
        Diagnostic(
            "error",
            NB1712.id,
            MANIFEST,
            "",
            f"the tarball unpacks to {ratio:.0f} times its size; npm's tar reader aborts past {MAX_RATIO} "
            "(TAR_ABORT max decompression ratio exceeded), so it cannot be installed",
            "leave the large, highly compressible files (zero-filled data, logs) out of the package",
        ),
    ]

"""What a new host profile would refuse of an image already built, without building it again (issue 33).

The image's report says what is installed where (``closure``), which packages the host loads, at which
tier and with which UI module verdict (``packages``), the host it was built for and the Node its engines
were judged against. The tree says the rest, as the host reads it (whatifread.py): each installed
package.json (its ``engines.node``, its peer ranges, its ``neuralis`` block) once per distinct tarball, and
each UI module's shared-imports record. Nothing else is read: no tarball, no cache, no npm lock, and npm
never runs.

The judges are the build's own: a UI module's verdict is ``record/verdict.py``'s, asked again for the new
host (esbuild parses a module only when the image's host had refused it, so its other reasons are known);
engines and peers are ``judge/conflicts.py``'s, a peer range on the host's React decided by node's own
semver (``judge/nodecheck.py``); a config key the new platform reserves is the namespaces' rule
(``judge/contests.py``). Each check runs against both profiles, so a refusal the image's own host makes
already is marked as such.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from neuralis_build.hostprofile import HostProfile, parse_host_profile
from neuralis_build.image.judge.conflicts import engine_conflict, host_peer_conflict
from neuralis_build.image.judge.contests import Facts, Registry
from neuralis_build.image.judge.report import REPORT
from neuralis_build.image.output.diff import read_report
from neuralis_build.image.output.whatifmodel import HostRefusal, RefusalKind, WhatIf
from neuralis_build.image.output.whatifread import Folder, LoadedFolder, image_folder, installed_of, loaded_of, rows
from neuralis_build.npm.packagejson import MANIFEST
from neuralis_build.record.verdict import NB1606, NB1607, NB1608, NB1609, REBUILD, ModuleProblem, judge_module
from neuralis_build.util.trust import Trust

_KINDS: dict[str, RefusalKind] = {
    NB1606.id: "host-api",
    NB1607.id: "react",
    NB1608.id: "react",
    NB1609.id: "shared-module",
}
_REACT = ("react", "react-dom")  # the host packages whose version the profile gives (its reactMajor)
_UI = "neuralis-build ui against the new profile"


def what_if(out: Path, host: HostProfile) -> WhatIf:
    """What ``host`` would refuse of the image in the folder ``out``; a UsageError when ``out`` is not one."""
    image = image_folder(out)
    report = read_report(image)
    current = parse_host_profile(report.get("host"), str(image / REPORT))
    installed = installed_of(image, report)
    loaded = loaded_of(report, installed)
    refusals = _config_keys(loaded, current, host)
    refused = {r.path for r in refusals}
    judged = [one for one in loaded if one.module is not None]
    refusals += _modules(image, judged, refused, current, host)
    node = host.node_version or _node_on_path()
    old_node = report.get("node") if isinstance(report.get("node"), str) else None
    refusals += _engines(installed.values(), old_node, node, host)
    refusals += _peers(image, installed.values(), current, host)
    # by package: the report's order (the listed ones as the SPEC lists them, then the neuralis dependencies), then
    # the rest of the tree by path; each package's refusals in the order above
    listed = [str(r.get("path")) for r in rows(report, "packages") if r.get("path")]
    order = {path: n for n, path in reversed(list(enumerate(listed)))}
    refusals.sort(key=lambda r: (order.get(r.path, len(order)), "" if r.path in order else r.path))
    return WhatIf(
        image=str(out),
        current=current.to_json(),
        next=host.to_json(),
        next_source=host.source,
        node=(old_node, node),
        packages=len(installed),
        modules=len(judged),
        refusals=refusals,
    )


# -- the UI modules ------------------------------------------------------------------------------------------


def _modules(
    image: Path, judged: list[LoadedFolder], refused: set[str], current: HostProfile, host: HostProfile
) -> list[HostRefusal]:
    """Each UI module's verdict for the new host (the ids it can hand the modules: its shared modules and what the
    packages it still loads publish), beside the same verdict for the image's own host."""
    modules = {one.at.path: one.at.block.module if one.at.block is not None else None for one in judged}
    published = {path: m.provides for path, m in modules.items() if m is not None}
    now = set(host.shared_modules) | {i for path, ids in published.items() if path not in refused for i in ids}
    before = set(current.shared_modules) | {i for ids in published.values() for i in ids}
    out = []
    for one in judged:
        if one.at.path in refused:
            continue  # refused as a package: its module is never loaded
        accepted = (one.module or {}).get("status") == "accepted"
        root = image.joinpath(*one.at.path.split("/"))
        # accepted by the image's host: check parsed it then, and only the host's side can change now
        verdict = judge_module(root, modules[one.at.path], host, now, package_id=one.id, parse=not accepted)
        was = {(p.code.id, p.pointer) for p in verdict.on(current, before).problems}
        record = verdict.record.shared_imports if verdict.record is not None else ()
        for problem in verdict.problems:
            out.append(
                _refusal(
                    one.at,
                    _KINDS.get(problem.code.id, "module"),
                    problem.reason,
                    _module_fix(one.at, problem, record, current, host),
                    problem.code.id,
                    (problem.code.id, problem.pointer) in was,
                )
            )
    return out


def _rebuilt(at: Folder, host: HostProfile) -> str:
    """Where the rebuilt module comes from: the image build itself for a folder, a new release otherwise."""
    if at.kind == "directory":
        return f" (the image build rebuilds it from the folder {at.source}: build the image with --host {host.source})"
    if at.kind == "dependency":
        return f", and publish it as a release {at.chain[-2]} depends on"
    return ", and list the new release in the SPEC"


def _module_fix(
    at: Folder, problem: ModuleProblem, record: tuple[str, ...], current: HostProfile, host: HostProfile
) -> str:
    name, major, code = at.name, host.react_major, problem.code.id
    if code == NB1606.id:
        return f"rebuild {name}'s UI module with {_UI}{_rebuilt(at, host)}"
    if code == NB1607.id:
        return f"move {name}'s react to ^{major}.0.0 and rebuild its UI module with {_UI}{_rebuilt(at, host)}"
    if code == NB1608.id:
        return (
            f'declare "react": "^{major}.0.0" in {name}\'s devDependencies or peerDependencies and rebuild its UI '
            f"module with {_UI}{_rebuilt(at, host)}"
        )
    if code == NB1609.id:
        index = problem.pointer.rsplit("/", 1)[-1]
        wanted = record[int(index)] if index.isdigit() and int(index) < len(record) else None
        if wanted is not None and wanted in current.shared_modules and wanted not in host.shared_modules:
            return (
                f"keep \"{wanted}\" in the new profile's sharedModules, or rebuild {name}'s UI module without "
                f"importing it{_rebuilt(at, host)}"
            )
    return problem.hint or REBUILD


# -- the packages --------------------------------------------------------------------------------------------


def _config_keys(loaded: list[LoadedFolder], current: HostProfile, host: HostProfile) -> list[HostRefusal]:
    """A first-party package's config key that the new platform reserves: the namespaces refuse the package."""
    from neuralis_build.manifest.sections.config import config_keys

    out = []
    for one in loaded:
        if one.trust != "first-party":
            continue  # configSettings count for first-party packages only (contests.facts_of)
        claims = tuple((k.value, MANIFEST, k.at.pointer) for k in config_keys(one.at.block))
        facts = Facts(one.id, Trust.FIRST_PARTY, config_keys=claims)
        keys = {pointer: key for key, _, pointer in claims}
        was = {d.pointer for d in Registry(current.platform_config_keys).conflicts(facts)}
        for d in Registry(host.platform_config_keys).conflicts(facts):
            fix = f'{d.hint}, or take "{keys[d.pointer]}" out of the new profile\'s platformConfigKeys'
            if one.at.kind == "dependency":
                fix += f"; until then {one.at.chain[0]}, which brings it in, is refused with it"
            out.append(_refusal(one.at, "config-key", d.message, fix, d.code, d.pointer in was))
    return out


def _engines(installed: Iterable[Folder], old_node: str | None, node: str, host: HostProfile) -> list[HostRefusal]:
    """Each installed package whose ``engines.node`` the new host's Node does not satisfy."""
    where = "the new host profile's nodeVersion" if host.node_version else "the node on PATH: the new profile sets none"
    out = []
    for at in installed:
        wanted = at.npm.engines_node
        found = engine_conflict(at.name, at.version, at.path, at.chain, wanted, node, where)
        if found is None:
            continue
        was = old_node is not None and engine_conflict(at.name, at.version, at.path, at.chain, wanted, old_node, "")
        if at.kind == "directory":
            fix = f"let {at.name}'s engines.node (in the folder {at.source}) admit Node {node}, once it runs there"
        else:
            fix = f"upgrade {at.name} to a version whose engines.node admits Node {node}"
        out.append(_refusal(at, "engines", found.message, fix, None, bool(was)))
    return out


def _peers(image: Path, installed: Iterable[Folder], current: HostProfile, host: HostProfile) -> list[HostRefusal]:
    """Each peer range on what the host provides: on its React, judged against the new major (node's semver, in one
    process for both profiles); on a package the new host no longer provides, which the image never installed."""
    from neuralis_build.image.judge.nodecheck import check_with_node

    now, before = host.provided_packages, current.provided_packages
    asks = [
        (at, name, spec)
        for at in installed
        for name, spec in sorted(at.npm.peer_dependencies.items())
        # a peer that is also a dependency is a dependency (the walk's edges, layout/graph.py)
        if isinstance(spec, str) and name not in at.npm.dependencies and name not in at.npm.optional_dependencies
    ]
    judged = [
        (spec, major) for _, name, spec in asks if name in _REACT for major in (host.react_major, current.react_major)
    ]
    verdicts = iter(check_with_node([], judged).peers if judged else [])
    out = []
    for at, name, spec in asks:
        if name in _REACT:
            meets, met = next(verdicts), next(verdicts)
            if name in now and meets is False:
                message = host_peer_conflict(at.chain, name, spec, host.react_major).message
                out.append(
                    _refusal(at, "peer", message, _peer_fix(at, name, host), None, name in before and met is False)
                )
                continue
        if name in before and name not in now and not _finds(image, at.path, name):
            message = (
                f"{' → '.join(at.chain)} declares the peer {name}@{spec}, which the new host no longer provides; the "
                f"image installs no {name} (the host it was built for provides it), so {at.name} would not find it"
            )
            fix = (
                f"keep {name} in the new profile's sharedModules, or build the image against the new profile, which "
                f"installs {name} for {at.name}"
            )
            out.append(_refusal(at, "peer", message, fix, None, False))
    return out


def _peer_fix(at: Folder, name: str, host: HostProfile) -> str:
    major = host.react_major
    if at.kind == "directory":
        return f'widen {at.name}\'s peer range on {name} to admit React {major} ("{name}": "^{major}.0.0")'
    return f"upgrade {at.name} to a version whose peer range on {name} admits React {major}"


def _finds(image: Path, path: str, name: str) -> bool:
    """Does node find a folder for ``name`` from the installed ``path``? Its lookup (``Module._nodeModulePaths``):
    the ``node_modules`` of each folder up from the package's real path, within the image."""
    top = os.path.realpath(image)
    here = os.path.realpath(image.joinpath(*path.split("/")))
    while here.startswith(top + os.sep) or here == top:
        if os.path.basename(here) != "node_modules" and os.path.isfile(
            os.path.join(here, "node_modules", *name.split("/"), MANIFEST)
        ):
            return True
        if here == top:
            break
        here = os.path.dirname(here)
    return False


def _refusal(at: Folder, kind: RefusalKind, message: str, fix: str, code: str | None, already: bool) -> HostRefusal:
    return HostRefusal(kind, at.name, at.version, at.path, at.chain, message, fix, code, already)


def _node_on_path() -> str:
    from neuralis_build.image.judge.nodecheck import node_version

    return node_version()

"""One dev session: rebuild the package (the `ui` build: UI module, events), judge it, update the state.

The build is `neuralis-build ui`'s own (``ui.run.build_package``); a package with nothing to build
(iframe surfaces only) is judged as it is. The page is judged with the packages that ship UI modules
in its node_modules (the providers of the ids it imports), as the host would load them together.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from neuralis_build.check import check_package
from neuralis_build.dev.state import BuildReport, DevState
from neuralis_build.hostpage.model import MODULE_TREE, PagePackage, judge_packages
from neuralis_build.hostprofile import HostProfile
from neuralis_build.judged import JudgedPackage
from neuralis_build.npm.resolve import installed_ui_packages
from neuralis_build.outputs.buildmode import NB1617
from neuralis_build.package import Package, load_package
from neuralis_build.ui.events import has_sources
from neuralis_build.ui.run import BuildOptions, build_package, wants_ui
from neuralis_build.ui.watch import error_files, inputs_of
from neuralis_build.ui.watchset import build_watch_set
from neuralis_build.util.diagnostics import Diagnostic
from neuralis_build.util.errors import DiagnosedError, NeuralisError, UsageError
from neuralis_build.util.trust import Trust

if TYPE_CHECKING:
    from neuralis_build.esbuild.runner import EsbuildRunner
    from neuralis_build.model.block import Block
    from neuralis_build.ui.env import Mode


PAGE_MODE: Mode = "development"
"""What the page is built for: its React (``dev.run``) and the package's module alike, so a library that picks
its code by NODE_ENV (react-three-fiber's reconciler) meets the React it was built for."""


@dataclass(frozen=True)
class DevOptions:
    """The knobs of `neuralis-build dev`."""

    path: Path
    host: HostProfile
    trust: Trust = Trust.FIRST_PARTY
    port: int = 0


def _errors(exc: NeuralisError) -> tuple[Diagnostic, ...]:
    if isinstance(exc, DiagnosedError):
        return tuple(d for d in exc.diagnostics if d.severity == "error") or tuple(exc.diagnostics)
    return ()


def code_frame(root: Path, errors: Sequence[Diagnostic]) -> str | None:
    """The lines around the first located error (as Vite's overlay shows them), or None."""
    first = next((d for d in errors if d.line is not None), None)
    if first is None or first.line is None:
        return None
    path = (root / first.file).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    try:
        lines = path.read_text("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    out = []
    for n in range(max(1, first.line - 2), min(len(lines), first.line + 2) + 1):
        out.append(f"{'>' if n == first.line else ' '} {n:>4} | {lines[n - 1]}")
        if n == first.line and first.column:
            out.append(f"       | {' ' * (first.column - 1)}^")
    return "\n".join(out)


def sample(schema: Any) -> Any:
    """A small value that a (simple) JSON Schema admits, to prefill the test-event form."""
    if not isinstance(schema, Mapping):
        return None
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties")
        listed = schema.get("required")
        required = listed if isinstance(listed, list) else []
        # data.title and data.nav shape the notification row: left out unless required, the author adds them.
        items = props.items() if isinstance(props, Mapping) else []
        return {k: sample(v) for k, v in items if k not in ("title", "nav") or k in required}
    if kind == "string":
        limit = schema.get("maxLength")
        text = "r-1"
        return text[:limit] if isinstance(limit, int) else text
    if kind in ("number", "integer"):
        low = schema.get("minimum")
        return low if isinstance(low, int | float) else 1
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    return None


def page_events(judged: JudgedPackage) -> list[dict[str, Any]]:
    """The events the host honours (the effective block's) with what the test-event form needs."""
    assert judged.package is not None
    package = judged.package
    found = []
    for event in judged.events:
        if event.id is None:
            continue
        subject = event.subject
        found.append(
            {
                "id": event.id,
                "title": event.title,
                "subject": subject,
                "source": subject is not None and (package.root / f"src/events/{subject}.ts").is_file(),
                "compiled": subject is not None and (package.root / f"dist/src/events/{subject}.js").is_file(),
                "sample": sample(event.data_schema),
            }
        )
    return found


class DevSession:
    """Refreshes the state from the package on disk: build, judge, publish to the page."""

    def __init__(self, options: DevOptions, state: DevState, esbuild: EsbuildRunner | None = None) -> None:
        self.options = options
        self.root = options.path.resolve()
        self.state = state
        self.esbuild = esbuild
        self.block: Block | None = None  # the block the host loads, from the last good refresh
        self.source: str | None = None  # the package id: the events' CloudEvents source
        self.read: tuple[str, ...] = ()  # what the last good build read (its metafiles' inputs)
        self.watching = build_watch_set(self.root, (), failed=True, since=time.time_ns())

    def _watch(self, since: int, error: NeuralisError | None = None) -> None:
        """What the next refresh waits on: what the build read, the manifest, and every tree the page serves but
        the package's own build (its surface roots, the providers' dist/app/ and their manifests)."""
        trees: list[str] = []
        manifests: list[str] = []
        for pkg in self.state.snapshot.packages:
            theirs = pkg.root.resolve() != self.root
            if theirs:
                manifests.append(str(pkg.root / "package.json"))
            trees += [str(pkg.root / t.folder) for t in pkg.trees if theirs or t.folder != MODULE_TREE]
        self.watching = build_watch_set(
            self.root,
            self.read,
            failed=error is not None,
            since=since,
            named=error_files(error),
            trees=trees,
            manifests=manifests,
        )

    def publish(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Publish a test event through the package's subject module (see ``dev.publish``)."""
        from neuralis_build.dev.publish import publish_test_event

        source = self.source or self.root.name
        return publish_test_event(self.root, self.block, request, self.options.trust, source).to_json()

    def _providers(self, package: Package) -> list[Package]:
        found = []
        # an unreadable one is named among the package's own findings (check's NB1917)
        for ui in installed_ui_packages(self.root, exclude=package.name).packages.values():
            try:
                found.append(load_package(ui.root))
            except NeuralisError:
                continue  # a provider that cannot be read publishes nothing: the consumer is told by its verdict
        return found

    def refresh(self, changed: Sequence[str] = ()) -> BuildReport:
        """Rebuild and re-judge; a failure keeps the last good page and shows the error."""
        started = time.perf_counter()
        since = time.time_ns()
        changed = tuple(changed)
        try:
            package = load_package(self.root)
        except DiagnosedError as exc:
            errors = _errors(exc)
            frame = code_frame(self.root, errors)
            report = BuildReport(False, changed, time.perf_counter() - started, exc.message, errors, frame=frame)
            self.state.failed(report, exc.diagnostics)
            self._watch(since, exc)
            return report
        outputs: tuple[str, ...] = ()
        built = None
        # Below first-party the host drops app.module and events, so nothing is built: a build may run the
        # package's own stylesheet tools (its PostCSS config and plugins) in Node, and a package under review
        # never runs code here (docs/security.md).
        first_party = self.options.trust == "first-party"
        if first_party and (wants_ui(package, None) or has_sources(package)):
            try:
                options = BuildOptions(self.options.host, minify=False, mode=PAGE_MODE)
                built = build_package(package, options, self.esbuild)
            except UsageError:
                raise  # esbuild vanished, the folder is gone: the session cannot go on
            except NeuralisError as exc:
                errors = _errors(exc)
                seconds = time.perf_counter() - started
                report = BuildReport(False, changed, seconds, exc.message, errors, frame=code_frame(self.root, errors))
                result = check_package(package, self.options.trust, self.options.host)
                self.state.failed(report, result.diagnostics)
                self._watch(since, exc)
                return report
            outputs = (*(built.ui.outputs if built.ui else ()), *(built.events.outputs if built.events else ()))
        self.read = inputs_of(built)
        # Judged once, after the build (check reads dist/ from disk; the build never writes package.json).
        # The providers are builtins the host loads from its dependencies: first-party for the author's
        # own package. Below first-party they came with the package under review (its node_modules), so
        # they are judged at its tier: no module of theirs runs in the page either.
        host = self.options.host
        providers = [check_package(p, self.options.trust, host) for p in self._providers(package)]
        judged = check_package(package, self.options.trust, host)
        pages = judge_packages([*providers, judged], host)
        primary: PagePackage = pages[-1]
        self.block = judged.block
        self.source = package.id
        report = BuildReport(True, changed, time.perf_counter() - started, None, (), tuple(sorted(outputs)))
        # the page's own development build is what it serves: its NB1617 warning is for check and pack
        shown = [d for d in primary.diagnostics if d.code != NB1617.id]
        self.state.good(pages, primary.name, report, shown, page_events(judged))
        self._watch(since)
        return report

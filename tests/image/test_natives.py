"""The pieces of the native-module check that need no install: the addon binding.gyp names, the host's Node, the
proof that no load changed the tree."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from neuralis_build.hostprofile import parse_host_profile
from neuralis_build.image.judge import confine
from neuralis_build.image.judge.natives import AtRunTime, Load, Loaded, gyp_addon
from neuralis_build.util.errors import UsageError, UserError

BASE = {"hostApiVersion": "1", "reactMajor": 19}


def test_the_addon_is_the_first_loadable_target_of_binding_gyp(tmp_path: Path) -> None:
    gyp = tmp_path / "binding.gyp"
    # a copy step first (type none), then the addon, then a test extension; comments are allowed
    gyp.write_text(
        "# built by node-gyp\n{'targets': [{'target_name': 'copy', 'type': 'none'},"
        " {'target_name': 'better_sqlite3', 'sources': ['src/x.cpp']}, {'target_name': 'test_ext'}]}\n"
    )
    assert gyp_addon(tmp_path) == "better_sqlite3"
    gyp.write_text("{'targets': [{'target_name': 'lib', 'type': 'static_library'}]}")
    assert gyp_addon(tmp_path) is None  # nothing loadable: only the package's entry is loaded
    gyp.write_text("{'targets': [{'target_name': '../escape'}]}")
    assert gyp_addon(tmp_path) is None
    gyp.write_text("{not python")
    assert gyp_addon(tmp_path) is None


def test_verdicts_read_as_the_report_says_them() -> None:
    assert Load("works").sentence == "works without its script"
    assert Load("fails", "boom").sentence == "will fail at run time: boom"
    assert Load("fails", "boom").to_json() == {"status": "fails", "detail": "boom"}
    assert Load("no-entry").to_json() == {"status": "no-entry", "detail": None}
    assert Load("needs-host", "react").sentence == (
        "cannot be loaded here: it needs react, which the host provides (nothing to check)"
    )


def test_the_host_profile_may_name_its_node_version() -> None:
    assert parse_host_profile(BASE, "p").node_version is None
    host = parse_host_profile({**BASE, "nodeVersion": "22.12.0"}, "p")
    assert host.node_version == "22.12.0" and host.to_json()["nodeVersion"] == "22.12.0"
    for bad in ("22", "v22.12.0", 22):
        with pytest.raises(UsageError, match=r'nodeVersion must be a version such as "22\.12\.0"'):
            parse_host_profile({**BASE, "nodeVersion": bad}, "p")


def test_a_change_to_the_tree_while_packages_load_fails_the_build_and_names_the_load_running_then(
    tmp_path: Path,
) -> None:
    modules = tmp_path / "node_modules"
    (modules / "fp-lib").mkdir(parents=True)
    (modules / "fp-lib/index.js").write_text("module.exports = 'reviewed';\n")
    (modules / "fp-lib/gone.js").write_text("")
    before = confine.snapshot(modules)
    quiet = confine.Window("quiet@1.0.0 (node_modules/quiet)", time.time_ns() - 10**10, time.time_ns() - 10**9)
    start = time.time_ns()
    (modules / "fp-lib/index.js").write_text("module.exports = 'pwned';\n")  # the same size, its mtime set back
    os.utime(modules / "fp-lib/index.js", ns=(before["fp-lib/index.js"][3], before["fp-lib/index.js"][3]))
    (modules / "fp-lib/gone.js").unlink()
    evil = confine.Window("evil@1.0.0 (node_modules/evil)", start, time.time_ns())
    runs = AtRunTime("20.20.2", Loaded({}, None, before, (quiet, evil)), [])
    with pytest.raises(UserError) as raised:
        runs.verify(tmp_path)
    assert raised.value.message == (
        "the image's tree changed while its packages were loaded: node_modules/fp-lib, node_modules/fp-lib/gone.js, "
        "node_modules/fp-lib/index.js; loading at the time: evil@1.0.0 (node_modules/evil)"
    )


def test_an_untouched_tree_passes_and_a_build_that_loaded_nothing_is_not_walked(tmp_path: Path) -> None:
    (tmp_path / "node_modules/a").mkdir(parents=True)
    (tmp_path / "node_modules/a/index.js").write_text("")
    (tmp_path / "node_modules/link").symlink_to("a")
    before = confine.snapshot(tmp_path / "node_modules")
    AtRunTime("20.20.2", Loaded({}, None, before, ()), []).verify(tmp_path)
    AtRunTime("20.20.2", Loaded({}), []).verify(tmp_path / "absent")

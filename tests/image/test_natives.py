"""The pieces of the native-module check that need no install: the addon binding.gyp names, the host's Node."""

from __future__ import annotations

from pathlib import Path

import pytest

from neuralis_build.errors import UsageError
from neuralis_build.hostprofile import parse_host_profile
from neuralis_build.image.natives import Load, gyp_addon

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

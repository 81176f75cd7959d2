"""The host profile: the host a UI module is built for and judged against (docs/design.md, "The host profile")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from neuralis_build.util.errors import UsageError
from neuralis_build.util.limits import MAX_JSON_BYTES
from neuralis_build.util.regularfile import TooLarge, read_regular
from neuralis_build.util.strictjson import JSONRefused, describe, parse

if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True, slots=True)
class HostProfile:
    """What the host provides: its API version, React major, shared modules, tools and config keys."""

    host_api_version: str
    react_major: int
    shared_modules: tuple[str, ...]
    platform_tools: tuple[str, ...] = ()
    platform_config_keys: tuple[str, ...] = ()
    source: str = "<default>"
    node_version: str | None = None
    """The Node.js version the host runs (``22.12.0``); None: the node on PATH, which the image build runs."""

    @property
    def provided_packages(self) -> frozenset[str]:
        """The npm packages whose modules the host provides (``react`` for ``react/jsx-runtime``)."""
        return frozenset(
            "/".join(m.split("/")[:2]) if m.startswith("@") else m.split("/")[0] for m in self.shared_modules
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "hostApiVersion": self.host_api_version,
            "reactMajor": self.react_major,
            "sharedModules": list(self.shared_modules),
            "platformTools": list(self.platform_tools),
            "platformConfigKeys": list(self.platform_config_keys),
        } | ({"nodeVersion": self.node_version} if self.node_version is not None else {})


_KEYS = ("hostApiVersion", "reactMajor", "sharedModules", "platformTools", "platformConfigKeys", "nodeVersion")
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def _string_list(data: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where}: {key} must be an array of strings")
    return tuple(value)


def parse_host_profile(data: Any, where: str) -> HostProfile:
    """Validate a host profile's JSON; a bad profile is a usage error (exit 2)."""
    if not isinstance(data, dict):
        raise UsageError(f"{where}: a host profile is a JSON object")
    unknown = sorted(set(data) - {*_KEYS, "$schema"})
    if unknown:
        raise UsageError(
            f"{where}: unknown key(s) {', '.join(unknown)}",
            hint=f"a host profile has {', '.join(_KEYS)}",
        )
    api = data.get("hostApiVersion")
    if not isinstance(api, str) or not api:
        raise UsageError(f'{where}: hostApiVersion must be a non-empty string such as "1"')
    major = data.get("reactMajor")
    if not isinstance(major, int) or isinstance(major, bool) or major < 0:
        raise UsageError(f"{where}: reactMajor must be a whole number such as 19")
    node = data.get("nodeVersion")
    if node is not None and (not isinstance(node, str) or not _VERSION.match(node)):
        raise UsageError(f'{where}: nodeVersion must be a version such as "22.12.0" (the Node.js the host runs)')
    return HostProfile(
        host_api_version=api,
        react_major=major,
        shared_modules=_string_list(data, "sharedModules", where),
        platform_tools=_string_list(data, "platformTools", where),
        platform_config_keys=_string_list(data, "platformConfigKeys", where),
        source=where,
        node_version=node,
    )


def default_host_profile() -> HostProfile:
    """The profile that ships with the toolchain."""
    # A plain path, not importlib.resources: the package ships as files, and the import costs ~6 ms.
    text = (Path(__file__).parent / "data" / "host-profile.json").read_text("utf-8")
    return parse_host_profile(parse(text), "<default host profile>")


def load_host_profile(path: Path | str | None) -> HostProfile:
    """Read ``--host FILE``, or the default profile when no file is given."""
    if path is None:
        return default_host_profile()
    p = Path(path)
    try:
        text = read_regular(p, limit=MAX_JSON_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise UsageError(f"{p}: host profile not found") from None
    except TooLarge as exc:
        raise UsageError(
            f"{p}: the host profile is {exc.strerror}; it was not read",
            hint="a host profile lists the platform's versions and tools, a few KiB: pass the profile itself",
        ) from None
    except OSError as exc:
        raise UsageError(f"{p}: cannot read the host profile ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{p}: the host profile is not UTF-8 text (byte {exc.start})") from None
    try:
        data = parse(text)
    except JSONRefused as exc:
        problem = exc.problems[0]
        raise UsageError(describe(problem, str(p), text, "the host profile"), hint=problem.hint) from None
    return parse_host_profile(data, str(p))

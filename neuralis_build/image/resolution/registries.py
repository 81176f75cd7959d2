"""The registries npm is configured for, read with the real npm, and whether a lock's URL is one of their tarballs.

The image installs registry packages only: every package of the closure that is not listed must come
from the registry npm fetches its name from (``@scope:registry`` for a scoped name, else ``registry``),
as npm's own reify tells a registry tarball from a remote one (``isRegistryResolvedTarball`` in
@npmcli/arborist): the URL, after npm's ``replace-registry-host`` rewrite, has the registry's origin
and starts with its path. A dependency on a tarball URL is resolved by npm into the lock like any
other entry, with an integrity npm computed from whatever that URL served; this is what tells the two
apart.

The settings are read with ``npm config get`` (the user's ``.npmrc`` files and ``npm_config_*``, as for
the resolution itself), in a fresh folder of its own so that no project ``.npmrc`` applies, as none
applies where npm resolves the closure. Only the registry keys are asked for; no credential is read.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

from neuralis_build.image.resolution.npmcli import Runner, run_npm
from neuralis_build.image.resolution.npmlock import NpmLock
from neuralis_build.util.errors import UsageError

_NPMJS = "registry.npmjs.org"  # what replace-registry-host's default, "npmjs", stands for
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Registries:
    """npm's ``registry``, the ``@scope:registry`` of each scope asked about (None: the default serves it), and
    ``replace-registry-host``."""

    default: str
    scoped: Mapping[str, str | None] = field(default_factory=dict)
    replace_host: str = "npmjs"

    def to_json(self) -> dict[str, object]:
        """The settings as the last build's record keeps them (a changed setting means a tree judged anew)."""
        return {"default": self.default, "scoped": dict(sorted(self.scoped.items())), "replaceHost": self.replace_host}

    def covers(self, scopes: Iterable[str]) -> bool:
        """Whether every one of these scopes was asked about (so ``registry_of`` knows their registry)."""
        return all(s in self.scoped for s in scopes)

    def registry_of(self, name: str) -> str:
        """The registry npm fetches ``name`` from (npm-pick-registry: the scope's, else the default)."""
        scope = _scope(name)
        return (self.scoped.get(scope) if scope else None) or self.default

    def serves(self, name: str, url: str) -> bool:
        """Whether ``url`` is a tarball of the registry npm fetches ``name`` from."""
        registry = _parse(self.registry_of(name))
        fetched = _parse(self._as_npm_fetches(url))
        if registry is None or fetched is None:
            return False
        prefix = registry.path if registry.path.endswith("/") else registry.path + "/"
        return _origin(fetched) == _origin(registry) and (prefix == "/" or fetched.path.startswith(prefix))

    def _as_npm_fetches(self, url: str) -> str:
        """The URL npm fetches for a lock's ``resolved`` (arborist's ``registryResolved``): with
        ``replace-registry-host`` (``npmjs`` by default, ``always``, ``never``, a host or a URL), a matching URL's
        origin becomes the default registry's and its path is moved under the registry's path."""
        replace = self.replace_host
        resolved, registry = _parse(url), _parse(self.default)
        if replace == "never" or resolved is None or registry is None:
            return url
        match = _parse(replace) if "://" in replace else None
        host = match.hostname if match is not None else (_NPMJS if replace == "npmjs" else replace)
        match_path = match.path.rstrip("/") if match is not None else None
        if replace != "always" and host != resolved.hostname:
            return url
        if match_path and not _under(resolved.path, match_path):
            return url
        registry_path = registry.path.rstrip("/")
        path = resolved.path
        if match_path:
            path = registry_path + path[len(match_path) :]
        elif registry_path and not _under(path, registry_path):
            path = registry_path + path
        return resolved._replace(scheme=registry.scheme, netloc=registry.netloc, path=path).geturl()


def _scope(name: str) -> str | None:
    return name.split("/", 1)[0] if name.startswith("@") and "/" in name else None


def _parse(url: str) -> SplitResult | None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        return None
    return parts if parts.scheme in _DEFAULT_PORTS and parts.hostname else None


def _origin(parts: SplitResult) -> tuple[str, str, int | None]:
    return parts.scheme, parts.hostname or "", parts.port or _DEFAULT_PORTS.get(parts.scheme)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def scopes_of(lock: NpmLock) -> list[str]:
    """The scopes of every package the lock names (by the name in its package.json, which npm fetches by)."""
    return sorted({s for n in lock.nodes.values() if (s := _scope(n.package_name)) is not None})


def read_registries(scopes: Iterable[str], npm: Runner = run_npm) -> Registries:
    """npm's registry settings for these scopes, with ``npm config get`` (npm's error, exit 2, when it fails)."""
    keys = ["registry", "replace-registry-host", *(f"{s}:registry" for s in sorted(set(scopes)))]
    with tempfile.TemporaryDirectory(prefix="neuralis-npm-config-") as scratch:
        folder = Path(scratch)
        (folder / "package.json").write_text(json.dumps({"private": True}), "utf-8")  # npm's project is this folder
        done = npm(["config", "get", *keys, "--loglevel=error", "--update-notifier=false"], folder, 120.0)
    values = _values(keys, done.stdout)
    default = values.get("registry")
    if not default:
        raise UsageError(
            "npm config get registry printed no registry",
            hint="check npm's configuration (npm config get registry)",
        )
    scoped = {s: values.get(f"{s}:registry") for s in set(scopes)}
    return Registries(default, scoped, values.get("replace-registry-host") or "npmjs")


def _values(keys: list[str], stdout: str) -> dict[str, str]:
    """``npm config get`` prints ``key=value`` lines for several keys (``undefined`` for one not set)."""
    out: dict[str, str] = {}
    for line in stdout.splitlines():
        key, sep, value = line.strip().partition("=")
        if sep and key in keys and value != "undefined":
            out[key] = value
    return out

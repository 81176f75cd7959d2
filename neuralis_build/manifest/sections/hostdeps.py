"""A package with a UI module that installs its own copy of a package the host provides (React) is named.

The host supplies react, react-dom and its client library to every UI module through the page's import
map, so a copy in ``dependencies`` is installed with the package (the image build reports it as a
second React in the tree) and never used by the module. Only ``dependencies`` and
``optionalDependencies`` install anything; ``devDependencies`` and ``peerDependencies`` are the places.
"""

from __future__ import annotations

from typing import Any

from neuralis_build.hostprofile import default_host_profile
from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.engine import Section
from neuralis_build.util.diagnostics import code
from neuralis_build.util.jsonpointer import escape

NB0411 = code(
    "NB0411", "module-host-dependency", "a package with a UI module lists a package the host provides in dependencies"
)

INSTALLED = ("dependencies", "optionalDependencies")


def host_packages_in_dependencies(block: dict[str, Any], c: Checker) -> None:
    """react, react-dom (any package the host profile provides) in dependencies of a package with app.module."""
    package = c.package
    # dropped below first-party: no UI module there (an invalid one is still meant as one)
    if package is None or package.module is None or c.is_dropped("/neuralis/app/module"):
        return
    host = c.host or default_host_profile()
    provided = host.provided_packages
    for field in INSTALLED:
        deps = package.manifest.get(field)
        if not isinstance(deps, dict):
            continue
        for name in sorted(n for n in deps if n in provided):
            peer = f"^{host.react_major}.0.0" if name in ("react", "react-dom") else "*"
            c.warning(
                NB0411,
                f"/{field}/{escape(name)}",
                f'"{name}" is in {field}, so every install of this package brings its own copy beside the '
                f"host's: the UI module never uses it (the host provides {name} to every module), and the image "
                "build reports it as a second copy",
                f'move it to devDependencies (to build and type-check against it) and peerDependencies ("{name}": '
                f'"{peer}"): the host provides it',
            )


SECTION = Section(name="host-dependencies", fields={}, rules=(host_packages_in_dependencies,))

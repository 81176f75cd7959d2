"""The image's CycloneDX SBOM (``DIR/sbom.cdx.json``, CycloneDX 1.6 JSON), made with cyclonedx-python-lib.

One component per installed package folder (its ``bom-ref`` is the folder's path in the image, so a
package installed at two places is two components with one purl), with its SHA-512 (the lock's
integrity), its licence, where it was resolved from, and the dependency graph npm's lock gives.
The same image gives the same bytes: the serial number is derived from the content and there is no
timestamp (the build's time is not a fact about the image).
"""

from __future__ import annotations

import base64
import json
import uuid
from typing import TYPE_CHECKING, Any

from neuralis_build import __version__
from neuralis_build.image.layout.graph import Closure

if TYPE_CHECKING:
    from cyclonedx.model.component import Component

    from neuralis_build.image.judge.conflicts import Installed
    from neuralis_build.image.judge.report import ImageResult

SBOM = "sbom.cdx.json"
IMAGE_REF = "neuralis-image"


LOCAL = "file:"


def _purl(item: Installed, registry: bool, digest: str | None) -> Any:
    """The package URL of an installed package (purl spec, type npm): ``pkg:npm/<scope>/<name>@<version>``.

    A registry package (or a bundled one, npm's own identity for it) has the plain form: the lock check lets
    no other URL into the image (``Installed.from_registry``). A listed package npm took from a tarball the
    image made (a folder or a .tgz of the SPEC) is qualified with that tarball's ``file_name`` and
    ``checksum``, the purl spec's qualifiers for a package archive: scanners find the platform's own
    packages, and no one mistakes one for a public package of the same name.
    """
    from packageurl import PackageURL

    group, _, name = item.name.rpartition("/")
    qualifiers: dict[str, str] = {}
    if not registry and item.resolved is not None and item.resolved.startswith(LOCAL):
        qualifiers["file_name"] = item.resolved.rsplit("/", 1)[-1]
        if digest is not None:
            qualifiers["checksum"] = f"sha512:{digest}"
    return PackageURL(type="npm", namespace=group or None, name=name, version=item.version, qualifiers=qualifiers)


def _component(item: Installed, registry: bool, licenses: Any) -> Component:
    from cyclonedx.model import ExternalReference, ExternalReferenceType, HashAlgorithm, HashType, Property, XsUri
    from cyclonedx.model.component import Component

    group, _, name = item.name.rpartition("/")
    hashes = []
    digest: str | None = None
    if item.integrity and item.integrity.startswith("sha512-"):
        digest = base64.b64decode(item.integrity.split()[0][7:]).hex()
        hashes.append(HashType(alg=HashAlgorithm.SHA_512, content=digest))
    refs = []
    if item.resolved and item.resolved.startswith(("https://", "http://")):
        refs.append(ExternalReference(type=ExternalReferenceType.DISTRIBUTION, url=XsUri(item.resolved)))
    elif item.resolved and item.resolved.startswith(LOCAL):
        # where its bytes are: the tarball in the image folder, relative to this file (an IRI reference)
        refs.append(ExternalReference(type=ExternalReferenceType.DISTRIBUTION, url=XsUri(item.resolved[len(LOCAL) :])))
    properties = [
        Property(name="neuralis:path", value=item.path),
        Property(name="neuralis:chain", value=" → ".join(item.chain)),
        Property(name="neuralis:trust", value=item.trust),
    ]
    if "bundled" in item.flags:
        properties.append(Property(name="cdx:npm:package:bundled", value="true"))
    for hook, script in item.scripts:
        properties.append(Property(name=f"neuralis:install-script:{hook}", value=f"not run: {script}"))
    found = [licenses.make_from_string(item.license)] if item.license else []
    return Component(
        name=name,
        group=group or None,
        version=item.version,
        bom_ref=item.path,
        purl=_purl(item, registry or "bundled" in item.flags, digest),
        hashes=hashes,
        licenses=found,
        external_references=refs,
        properties=properties,
    )


def render_sbom(result: ImageResult, closure: Closure, npm_sources: frozenset[str] = frozenset()) -> str:
    """The SBOM's text: the image as the root component, every installed package, and their dependency graph."""
    from cyclonedx.contrib.license.factories import LicenseFactory
    from cyclonedx.model.bom import Bom, BomMetaData
    from cyclonedx.model.component import Component, ComponentType
    from cyclonedx.model.dependency import Dependency
    from cyclonedx.output.json import JsonV1Dot6

    licenses = LicenseFactory()  # one: building it reads the SPDX licence list
    components = {
        item.path: _component(item, item.from_registry or item.path in npm_sources, licenses)
        for item in result.installed
    }
    root = Component(name=IMAGE_REF, type=ComponentType.APPLICATION, bom_ref=IMAGE_REF, version=None)
    tool = Component(name="neuralis-build", type=ComponentType.APPLICATION, version=__version__)
    digest = json.dumps([[i.path, i.integrity] for i in result.installed]).encode()
    # the graph is built here, not with Bom.register_dependency, which searches every entry on each call
    graph = [
        Dependency(
            ref=root.bom_ref,
            dependencies=[Dependency(ref=components[p].bom_ref) for p in sorted(closure.listed) if p in components],
        )
    ]
    for path, component in sorted(components.items()):
        targets = sorted(set(closure.edges.get(path, {}).values()))
        graph.append(
            Dependency(
                ref=component.bom_ref,
                dependencies=[Dependency(ref=components[t].bom_ref) for t in targets if t in components],
            )
        )
    bom = Bom(
        serial_number=uuid.uuid5(uuid.NAMESPACE_URL, "urn:neuralis-image:" + base64.b64encode(digest).decode()),
        metadata=BomMetaData(component=root),
        components=components.values(),
        dependencies=graph,
    )
    bom.metadata.tools.components.add(tool)
    # The writer's validate() finds each component's graph entry by scanning the whole graph: quadratic,
    # minutes at ten thousand folders. What it checks holds by construction here: every component has its
    # entry (the graph above), every reference is a component's, and each carries at most one licence.
    bom.validate = lambda: True  # type: ignore[method-assign]
    text = JsonV1Dot6(bom).output_as_string(indent=2)
    data: dict[str, Any] = json.loads(text)
    data.get("metadata", {}).pop("timestamp", None)  # the build's time, which would change every byte's hash
    first = ("$schema", "bomFormat", "specVersion", "serialNumber", "version", "metadata")
    ordered = {k: data[k] for k in first if k in data} | {k: v for k, v in data.items() if k not in first}
    return json.dumps(ordered, indent=2, ensure_ascii=False) + "\n"

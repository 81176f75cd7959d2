"""The table of every diagnostic code: the module that declares it, beside the rule that emits it.

A code is declared once, where its rule lives (``NB0402 = code("NB0402", slug, summary)``); this
table is the one place that says where each is, so ``explain`` and the catalogue import the one
module they need rather than every module of the toolchain, and a stored verdict reads its code back
without importing the rules. ``tests/test_explain.py`` holds the table to the declarations it scans
in the source: a code declared without its row (or a row without its code) fails there.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from neuralis_build.util.diagnostics import Code

WHERE: dict[str, tuple[str, ...]] = {
    "neuralis_build.check": ("NB0009", "NB0120", "NB0121"),
    "neuralis_build.image.judge.contests": ("NB1820", "NB1821", "NB1822", "NB1823"),
    "neuralis_build.image.judge.dependencies": ("NB1814",),
    "neuralis_build.image.packages.depsources": ("NB1815",),
    "neuralis_build.image.archive.extract": ("NB1804", "NB1805", "NB1806", "NB1807", "NB1808"),
    "neuralis_build.image.resolution.fetch": ("NB1801", "NB1802"),
    "neuralis_build.image.packages.stages": ("NB1809", "NB1810", "NB1811"),
    "neuralis_build.image.tree.staged": ("NB1812", "NB1813"),
    "neuralis_build.manifest.block": ("NB0109",),
    "neuralis_build.manifest.contractfiles": ("NB1411", "NB1412", "NB1413", "NB1415", "NB1416", "NB1417"),
    "neuralis_build.manifest.iframeentry": ("NB0509", "NB0510", "NB0514", "NB0515"),
    "neuralis_build.manifest.names": ("NB1402", "NB1403", "NB1404", "NB1414"),
    "neuralis_build.manifest.sections.access": ("NB1501", "NB1502"),
    "neuralis_build.manifest.sections.config": (
        "NB1101",
        "NB1102",
        "NB1103",
        "NB1104",
        "NB1105",
        "NB1106",
        "NB1107",
        "NB1108",
        "NB1109",
        "NB1110",
        "NB1111",
        "NB1112",
        "NB1113",
        "NB1114",
    ),
    "neuralis_build.manifest.sections.connectorauth": ("NB0801", "NB0816", "NB0817", "NB0818", "NB0819"),
    "neuralis_build.manifest.sections.connectors": (
        "NB0802",
        "NB0803",
        "NB0804",
        "NB0805",
        "NB0806",
        "NB0807",
        "NB0808",
        "NB0809",
        "NB0810",
        "NB0811",
        "NB0812",
        "NB0813",
        "NB0814",
        "NB0815",
    ),
    "neuralis_build.manifest.sections.contributions": (
        "NB1401",
        "NB1405",
        "NB1406",
        "NB1407",
        "NB1408",
        "NB1409",
        "NB1410",
        "NB1418",
    ),
    "neuralis_build.manifest.sections.credentials": ("NB1001", "NB1002", "NB1003", "NB1004", "NB1005"),
    "neuralis_build.manifest.sections.datalayout": (
        "NB1301",
        "NB1302",
        "NB1303",
        "NB1304",
        "NB1305",
        "NB1306",
        "NB1307",
    ),
    "neuralis_build.manifest.sections.events": (
        "NB0701",
        "NB0702",
        "NB0703",
        "NB0704",
        "NB0705",
        "NB0706",
        "NB0707",
        "NB0708",
        "NB0709",
        "NB0710",
        "NB0711",
    ),
    "neuralis_build.manifest.sections.hostdeps": ("NB0411",),
    "neuralis_build.manifest.sections.identity": ("NB0110", "NB0111", "NB0112"),
    "neuralis_build.manifest.sections.module": (
        "NB0401",
        "NB0402",
        "NB0403",
        "NB0404",
        "NB0405",
        "NB0406",
        "NB0407",
        "NB0408",
        "NB0409",
        "NB0410",
    ),
    "neuralis_build.manifest.sections.provides": ("NB0201", "NB0202", "NB0203", "NB0204", "NB0205"),
    "neuralis_build.manifest.sections.render": ("NB0505", "NB0506", "NB0507", "NB0508"),
    "neuralis_build.manifest.sections.requires": (
        "NB0601",
        "NB0602",
        "NB0603",
        "NB0604",
        "NB0605",
        "NB0606",
        "NB0607",
        "NB0608",
        "NB0609",
        "NB0610",
    ),
    "neuralis_build.manifest.sections.runtime": ("NB0301", "NB0302", "NB0303", "NB0304", "NB0305", "NB0306"),
    "neuralis_build.manifest.sections.sources": (
        "NB0901",
        "NB0902",
        "NB0903",
        "NB0904",
        "NB0905",
        "NB0906",
        "NB0907",
        "NB0908",
        "NB0909",
    ),
    "neuralis_build.manifest.sections.surfaces": ("NB0501", "NB0502", "NB0503", "NB0504", "NB0511", "NB0512", "NB0513"),
    "neuralis_build.manifest.sections.uri": (
        "NB1201",
        "NB1202",
        "NB1203",
        "NB1204",
        "NB1205",
        "NB1206",
        "NB1207",
        "NB1208",
    ),
    "neuralis_build.manifest.shape": (
        "NB0100",
        "NB0101",
        "NB0102",
        "NB0103",
        "NB0104",
        "NB0105",
        "NB0106",
        "NB0107",
        "NB0108",
    ),
    "neuralis_build.npm.exports": ("NB1707", "NB1708"),
    "neuralis_build.npm.resolve": ("NB1917",),
    "neuralis_build.outputs.buildmode": ("NB1617",),
    "neuralis_build.outputs.rules": ("NB1603", "NB1612", "NB1615", "NB1616"),
    "neuralis_build.pack.coverage": ("NB1704", "NB1705", "NB1706"),
    "neuralis_build.pack.fields": ("NB1701", "NB1702", "NB1703"),
    "neuralis_build.pack.lifecycle": ("NB1711", "NB1718"),
    "neuralis_build.pack.packlist": ("NB1716", "NB1717"),
    "neuralis_build.pack.refusals": ("NB1709", "NB1710", "NB1712"),
    "neuralis_build.pack.tarball": ("NB1713", "NB1714"),
    "neuralis_build.package": (
        "NB0001",
        "NB0002",
        "NB0003",
        "NB0004",
        "NB0005",
        "NB0006",
        "NB0007",
        "NB0008",
        "NB0010",
    ),
    "neuralis_build.record.verdict": (
        "NB1601",
        "NB1602",
        "NB1604",
        "NB1605",
        "NB1606",
        "NB1607",
        "NB1608",
        "NB1609",
        "NB1610",
        "NB1611",
        "NB1613",
        "NB1614",
    ),
    "neuralis_build.ui.compiletime": ("NB1922",),
    "neuralis_build.ui.declaration": ("NB1908", "NB1909", "NB1910"),
    "neuralis_build.ui.driver": ("NB1900", "NB1901"),
    "neuralis_build.ui.duplicates": ("NB1923", "NB1924"),
    "neuralis_build.ui.entry": ("NB1902", "NB1912"),
    "neuralis_build.ui.env": ("NB1915",),
    "neuralis_build.ui.globalcss": ("NB1926",),
    "neuralis_build.ui.imports": ("NB1904", "NB1905"),
    "neuralis_build.ui.metaurl": ("NB1918",),
    "neuralis_build.ui.nodebuiltins": ("NB1919",),
    "neuralis_build.ui.stylesheets": ("NB1920", "NB1921"),
    "neuralis_build.ui.tsconfig": ("NB1916",),
    "neuralis_build.ui.unbound": ("NB1925",),
    "neuralis_build.util.archivepath": ("NB1803",),
}
"""Each module that declares codes, and the codes it declares."""

_MODULE = {code_id: module for module, ids in WHERE.items() for code_id in ids}


def known(code_id: str) -> bool:
    """Whether ``code_id`` (``NB0402``) is a code of the toolchain."""
    return code_id in _MODULE


@cache
def lookup(code_id: str) -> Code:
    """The code ``code_id``, from the module that declares it; KeyError for a code the toolchain has not."""
    code: Code = getattr(importlib.import_module(_MODULE[code_id]), code_id)
    return code


def every_code() -> dict[str, Code]:
    """Every code, by id, in the table's order of modules (each module imported once)."""
    return {code_id: lookup(code_id) for code_id in _MODULE}

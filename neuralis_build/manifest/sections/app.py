"""app: the package's UI, its surfaces and its prebuilt module (spec: "app.surfaces", "app.module")."""

from __future__ import annotations

from neuralis_build.manifest.compound import Field, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.sections import surfaces
from neuralis_build.manifest.sections.module import MODULE_FIELD
from neuralis_build.model import block as model

APP = Obj(
    fields={
        "surfaces": Field(surfaces.SURFACES),
        "module": MODULE_FIELD,
    },
    unknown="warning",
    what="app",
    description="UI contributions (surfaces) and a first-party package's prebuilt UI module.",
    model=model.App,
)

SECTION = Section(name="app", fields={"app": Field(APP)}, rules=surfaces.RULES)

"""The typed model and the manifest shapes describe each section with the same keys, so they cannot drift apart."""

from __future__ import annotations

import pytest

from neuralis_build.manifest.block import NEURALIS
from neuralis_build.manifest.compound import Obj
from neuralis_build.manifest.sections import (
    app,
    config,
    connectorauth,
    connectors,
    contributions,
    credentials,
    datalayout,
    events,
    module,
    render,
    requires,
    runtime,
    sources,
    surfaces,
)
from neuralis_build.model import block as model
from neuralis_build.model.reader import keys_of


def keys(*shapes: Obj) -> set[str]:
    return {key for shape in shapes for key in shape.fields}


PAIRS = [
    (model.Block, keys(NEURALIS) - {"routes"}),  # routes have no inline form: the host never reads the key
    (model.App, keys(app.APP)),
    (model.Module, keys(module.MODULE)),
    (model.Surface, keys(surfaces.WIDGET, surfaces.CARD, surfaces.DOCK)),
    (model.Render, keys(render.IFRAME, render.REACT)),
    (model.DockAction, keys(surfaces.ACTION)),
    (model.FeatureGate, keys(requires.FEATURE_GATE)),
    (model.Feature, keys(requires.FEATURE_OBJECT)),
    (model.Requires, keys(requires.REQUIRES)),
    (model.Event, keys(events.EVENT)),
    (model.Notify, keys(events.NOTIFY)),
    (model.Tool, keys(contributions.TOOL)),
    (model.TeamMember, keys(contributions.TEAM_MEMBER)),
    (model.Connector, keys(connectors.CONNECTOR)),
    (model.ConnectorAuth, keys(connectorauth.AUTH)),
    (model.SetupField, keys(connectorauth.SETUP_FIELD)),
    (model.Credential, keys(credentials.CREDENTIAL)),
    (model.ConfigSetting, keys(config.SETTING)),
    (model.Source, keys(sources.SOURCE)),
    (model.Runtime, keys(runtime.RUNTIME)),
    (model.Permissions, keys(runtime.PERMISSIONS)),
    (model.Hosted, keys(runtime.HOSTED)),
    (model.DataLayout, keys(datalayout.DATA_LAYOUT)),
    (model.MachineWritten, keys(datalayout.MACHINE_WRITTEN_ENTRY)),
]


@pytest.mark.parametrize(("cls", "shape_keys"), PAIRS, ids=lambda p: getattr(p, "__name__", ""))
def test_a_model_class_reads_the_keys_its_shape_allows(cls, shape_keys):
    assert keys_of(cls) == shape_keys

"""The ``neuralis`` block as typed section values, each with its place in package.json.

One class per section of the spec (and per object inside one); the field names are the JSON keys
(in snake_case; ``key=`` where Python cannot spell one). What each key may hold is the manifest
rules' business (manifest/sections/); each shape there names the class here that reads it
(``Obj(model=…)``), and a test walks every shape and holds these classes to their keys, so the two
descriptions of a section cannot drift apart. Read with :func:`read_block`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from neuralis_build.model.located import At, Located
from neuralis_build.model.reader import Json, read

if TYPE_CHECKING:
    from neuralis_build.util.jsonpointer import PointerMap

BLOCK = "/neuralis"
"""The pointer of the ``neuralis`` block in package.json."""


def _key(name: str) -> dict[str, str]:
    return {"key": name}


# -- app: the UI module and the surfaces ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Module:
    """``app.module``: the prebuilt browser module, its stylesheet and the module ids it publishes."""

    at: At
    entry: str | None = None
    css: str | None = None
    provides: tuple[str, ...] = ()
    raw: Json = field(default=None, compare=False, repr=False)
    """The object as written (after drops): what the image cache and report store."""


@dataclass(frozen=True, slots=True)
class FeatureGate:
    """A ``requires`` gate on a surface or an event: the feature ids the caller must hold."""

    at: At
    features: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Render:
    """A surface's ``component`` or ``render`` block: an iframe page or the module's React."""

    at: At
    renderer: str | None = None
    url: str | None = None
    asset_mode: str | None = None


@dataclass(frozen=True, slots=True)
class DockAction:
    at: At
    type: str | None = None
    widget: str | None = None


@dataclass(frozen=True, slots=True)
class Surface:
    """One ``app.surfaces[]`` entry (a widget, a card or a dock entry; ``kind`` says which)."""

    at: At
    kind: str | None = None
    id: str | None = None
    type: str | None = None
    title: str | None = None
    label: str | None = None
    component: Render | None = None
    render: Render | None = None
    action: DockAction | None = None
    requires: FeatureGate | None = None
    raw: Json = field(default=None, compare=False, repr=False)
    """The surface as written (after drops): what the dev page shows of it."""

    @property
    def blocks(self) -> tuple[tuple[str, Render], ...]:
        """(key, block) of the surface's ``component`` and ``render`` blocks, in that order."""
        return tuple((k, b) for k, b in (("component", self.component), ("render", self.render)) if b is not None)


@dataclass(frozen=True, slots=True)
class App:
    at: At
    module: Module | None = None
    surfaces: tuple[Surface, ...] = ()


# -- events ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Notify:
    at: At
    default: str | None = None
    tone: str | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One ``events[]`` entry: a notification a subject module filters per session."""

    at: At
    id: str | None = None
    title: str | None = None
    subject: str | None = None
    data_schema: Json = None
    requires: FeatureGate | None = None
    notify: Notify | None = None
    dock: str | None = None


# -- contributions: tools, workflows, skills, commands, hooks, team ------------------------------------


@dataclass(frozen=True, slots=True)
class Tool:
    """An inline tool; a tools/<name> file overrides it."""

    at: At
    name: str | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class Named:
    """An inline workflow, skill or command (``name``) or hook (``event``); a file of the contract overrides it."""

    at: At
    name: str | None = None
    event: str | None = None


@dataclass(frozen=True, slots=True)
class TeamMember:
    at: At
    id: str | None = None
    name: str | None = None
    template: str | None = None


# -- connectors, credentials, config -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SetupField:
    at: At
    key: str | None = None
    label: str | None = None
    description: str | None = None
    type: str | None = None
    required: bool | None = None
    sensitive: bool | None = None
    default: Json = None


@dataclass(frozen=True, slots=True)
class ConnectorAuth:
    at: At
    type: str | None = None
    setup_fields: tuple[SetupField, ...] = ()


@dataclass(frozen=True, slots=True)
class Connector:
    """One ``connectors[]`` entry."""

    at: At
    type: str | None = None
    kind: str | None = None
    config_schema: Json = None
    capabilities: tuple[str, ...] = ()
    connector_factory: str | None = None
    transports: tuple[str, ...] = ()
    auth: ConnectorAuth | None = None


@dataclass(frozen=True, slots=True)
class Credential:
    """One ``credentials[]`` entry of the admin catalog."""

    at: At
    id: str | None = None
    label: str | None = None
    category: str | None = None
    oauth: bool | None = None


@dataclass(frozen=True, slots=True)
class ConfigSetting:
    """One ``configSettings[]`` entry (first-party packages only)."""

    at: At
    key: str | None = None
    label: str | None = None
    description: str | None = None
    type: str | None = None
    default: Json = None
    env_fallback: str | None = None
    editable: bool | None = None
    category: str | None = None
    min: int | float | None = None
    max: int | float | None = None


# -- sources, requires, runtime, URI policies, data layout ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Source:
    """One ``sources[]`` entry: a folder of the package the host indexes."""

    at: At
    source: str | None = None
    kind: str | None = None
    root: str | None = None
    scope: str | None = None
    description: str | None = None
    seed: Json = None


@dataclass(frozen=True, slots=True)
class Feature:
    """A ``requires.providesFeatures[]`` entry in its object form (the string form is ``id`` alone)."""

    at: At
    id: str | None = None
    title: str | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class Requires:
    at: At
    packages: Json = None
    provides_features: Json = None
    default_role_grants: Json = None
    access_feature: str | None = None


@dataclass(frozen=True, slots=True)
class Permissions:
    at: At
    fs: Json = None
    net: Json = None
    exec: bool | None = None


@dataclass(frozen=True, slots=True)
class Hosted:
    at: At
    tools: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Runtime:
    at: At
    type: str | None = None
    binding: str | None = None
    permissions: Permissions | None = None
    hosted: Hosted | None = None
    skill_scripts: Json = None


@dataclass(frozen=True, slots=True)
class UriPolicies:
    """``uriPolicies``: per data zone, a baseline and path rules (kept as written; the host applies them)."""

    at: At
    raw: Json = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class MachineWritten:
    at: At
    path: str | None = None
    class_: str | None = field(default=None, metadata=_key("class"))


@dataclass(frozen=True, slots=True)
class DataLayout:
    at: At
    directories: tuple[str, ...] = ()
    agent_directories: tuple[str, ...] = ()
    machine_written: tuple[MachineWritten, ...] = ()


# -- the whole block -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Block:
    """The ``neuralis`` block: declared (``Package.declared``) or as the host loads it at a trust tier
    (``JudgedPackage.block``, every dropped value left out)."""

    at: At
    id: str | None = None
    name: str | None = None
    description: str | None = None
    description_for_model: str | None = None
    reference_only: bool | None = None
    app: App | None = None
    events: tuple[Event, ...] = ()
    tools: tuple[Tool, ...] = ()
    workflows: tuple[Named, ...] = ()
    skills: tuple[Named, ...] = ()
    commands: tuple[Named, ...] = ()
    hooks: tuple[Named, ...] = ()
    team: tuple[TeamMember, ...] = ()
    connectors: tuple[Connector, ...] = ()
    credentials: tuple[Credential, ...] = ()
    config_settings: tuple[ConfigSetting, ...] = ()
    sources: tuple[Source, ...] = ()
    provides: tuple[Located[str], ...] = ()
    requires: Requires | None = None
    runtime: Runtime | None = None
    uri_policies: UriPolicies | None = None
    data_layout: DataLayout | None = None
    access: Json = None
    raw: Json = field(default=None, compare=False, repr=False)
    """The block as JSON, as the host loads it (every drop left out): for output and tests, not for decisions."""

    @property
    def module(self) -> Module | None:
        """``app.module``: None when not declared, not an object, or dropped at this trust."""
        return self.app.module if self.app is not None else None

    @property
    def surfaces(self) -> tuple[Surface, ...]:
        return self.app.surfaces if self.app is not None else ()

    @property
    def has_events(self) -> bool:
        """True when the block declares events (an empty ``events`` array counts as none)."""
        return bool(self.events)


def read_block(value: object, source: PointerMap | None = None, dropped: Collection[str] = ()) -> Block | None:
    """The block at ``/neuralis`` as typed values (None when it is not an object), leaving out ``dropped``."""
    return read(Block, value, At(BLOCK, source), dropped)


def block_of(manifest: Mapping[str, object] | None, source: PointerMap | None = None) -> Block | None:
    """The ``neuralis`` block of a package.json object as typed values (None when absent or not an object)."""
    return read_block(manifest.get("neuralis"), source) if manifest is not None else None


def read_module(value: object, pointer: str = BLOCK + "/app/module") -> Module | None:
    """An ``app.module`` object read alone (a cached one, stored as written)."""
    return read(Module, value, At(pointer))

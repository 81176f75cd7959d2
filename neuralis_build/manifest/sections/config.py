"""configSettings[]: declared platform config keys (spec: "configSettings — declared platform config keys").

Honored for first-party packages only: on any other tier the whole field is dropped with a warning.
"""

from __future__ import annotations

from typing import Any

from neuralis_build.manifest.checker import Checker
from neuralis_build.manifest.compound import Arr, Field, Obj
from neuralis_build.manifest.engine import Section
from neuralis_build.manifest.secretnames import secret_word
from neuralis_build.manifest.shape import Anything, Bool, Num, Str
from neuralis_build.model import block as model
from neuralis_build.model.block import Block
from neuralis_build.model.located import Located
from neuralis_build.package import json_type
from neuralis_build.util.diagnostics import code
from neuralis_build.util.trust import Trust

NB1101 = code("NB1101", "config-setting-key", "a configSettings[] entry has a key outside its exact shape")
NB1102 = code("NB1102", "config-key-charset", "a config key is not flat camelCase ^[a-z][a-zA-Z0-9]{0,63}$")
NB1103 = code("NB1103", "config-type", "a config type is not number, string, boolean or json")
NB1104 = code("NB1104", "config-default-type", "a config default does not match its declared type")
NB1105 = code("NB1105", "config-bounds-type", "min or max is set on a config setting that is not a number")
NB1106 = code("NB1106", "config-bounds-order", "a config setting's min is greater than its max")
NB1107 = code("NB1107", "config-default-out-of-bounds", "a number default lies outside its min/max bounds")
NB1108 = code("NB1108", "config-json-env-fallback", "a json config setting declares envFallback, which json ignores")
NB1109 = code("NB1109", "config-duplicate-key", "two configSettings[] entries declare the same key")
NB1110 = code("NB1110", "config-first-party-only", "configSettings on a package below first-party is dropped")
NB1111 = code("NB1111", "config-secret-key", "a config key looks like a secret")
NB1112 = code("NB1112", "config-secret-env", "an envFallback name looks like a secret")
NB1113 = code("NB1113", "config-env-name", "an envFallback is not an environment variable name")
NB1114 = code("NB1114", "config-platform-key", "a config key is one the host profile lists as the platform's own")

CONFIG_KEY = r"^[a-z][a-zA-Z0-9]{0,63}$"
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
CONFIG_TYPES = ("number", "string", "boolean", "json")
_SECRET_HINT = "config values are admin-visible plaintext: declare a secret in neuralis.credentials[] instead"


def _default_matches(kind: str, value: Any) -> bool:
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    return True  # json: any JSON value


def _types(entry: dict[str, Any], pointer: str, c: Checker) -> None:
    kind, default = entry["type"], entry["default"]
    if not _default_matches(kind, default):
        c.error(
            NB1104,
            pointer + "/default",
            f"the default is {json_type(default)} but the type is {kind}",
            f"give a {kind} default, or change the type",
        )
    if kind != "number":
        for bound in ("min", "max"):
            if bound in entry:
                c.error(
                    NB1105,
                    f"{pointer}/{bound}",
                    f"{bound} applies to number settings only; this one is {kind}",
                    f"remove {bound}",
                )
        return
    low, high = entry.get("min"), entry.get("max")
    if low is not None and high is not None and low > high:
        c.error(NB1106, pointer + "/min", f"min {low:g} is greater than max {high:g}", "swap or correct the bounds")
        return
    if not _default_matches("number", default):
        return
    if (low is not None and default < low) or (high is not None and default > high):
        c.error(
            NB1107,
            pointer + "/default",
            f"the default {default:g} lies outside the bounds [{_bound(low, '-∞')}, {_bound(high, '∞')}]",
            "bounds are inclusive: move the default inside them, or widen the bounds",
        )


def _bound(value: float | None, unbounded: str) -> str:
    return unbounded if value is None else f"{value:g}"


def _env_and_names(entry: dict[str, Any], pointer: str, c: Checker) -> None:
    key = entry["key"]
    word = secret_word(key)
    if word:
        c.warning(
            NB1111,
            pointer + "/key",
            f'config key "{key}" looks like a secret ("{word}")',
            _SECRET_HINT,
        )
    if c.host is not None and key in c.host.platform_config_keys:
        c.warning(
            NB1114,
            pointer + "/key",
            f'"{key}" is a platform config key (host profile {c.host.source}); a key has one owning declarer, '
            "so a second declarer is rejected at load",
            "rename the key into your own domain (acmeMaxSteps), unless this package is the key's platform owner",
        )
    env = entry.get("envFallback")
    if env is None:
        return
    if entry["type"] == "json":
        c.drop(
            NB1108,
            pointer + "/envFallback",
            "json settings ignore envFallback (they are edited by dedicated UIs); it is dropped",
            "remove envFallback",
        )
        return
    word = secret_word(env)
    if word:
        c.warning(NB1112, pointer + "/envFallback", f'envFallback "{env}" looks like a secret ("{word}")', _SECRET_HINT)


SETTING = Obj(
    fields={
        "key": Field(
            Str(
                pattern=CONFIG_KEY,
                pattern_code=NB1102,
                pattern_message="must be flat camelCase: a lower-case letter, then up to 63 letters or digits",
                pattern_hint="config keys share one platform namespace; name them for your domain (acmeMaxSteps)",
                description="Flat camelCase key in the platform's one shared config namespace.",
            ),
            required=True,
        ),
        "label": Field(
            Str(min_length=1, description="Shown on the admin Config → Platform Settings tab."), required=True
        ),
        "description": Field(Str(description="Help text under the setting.")),
        "type": Field(
            Str(enum=CONFIG_TYPES, enum_code=NB1103, description="number, string, boolean or json."), required=True
        ),
        "default": Field(
            Anything(description="The value when neither an admin override nor envFallback is set; must match type."),
            required=True,
        ),
        "envFallback": Field(
            Str(
                pattern=ENV_NAME,
                pattern_code=NB1113,
                pattern_message="is not an environment variable name (letters, digits and _; no leading digit)",
                description="Environment variable read when no admin override is set (ignored for json).",
            )
        ),
        "editable": Field(Bool(description="false: shown read-only on the admin Config tab.")),
        "category": Field(Str(min_length=1, description="The group the setting is shown under."), required=True),
        "min": Field(Num(description="number only: inclusive lower bound, enforced when an admin saves.")),
        "max": Field(Num(description="number only: inclusive upper bound, enforced when an admin saves.")),
    },
    unknown_code=NB1101,
    what="a configSettings[] entry (exactly { key, label, description?, type, default, envFallback?, editable?, "
    "category, min?, max? })",
    checks=(_types, _env_and_names),
    description="One platform-level tunable this package owns.",
    model=model.ConfigSetting,
)

SECTION = Section(
    name="configSettings",
    fields={
        "configSettings": Field(
            Arr(
                SETTING,
                unique=lambda entry: entry["key"],
                unique_code=NB1109,
                unique_what="config key",
                unique_pointer=lambda at: at + "/key",
                description="Platform config keys this package owns, shown on the admin Config tab.",
            ),
            min_trust=Trust.FIRST_PARTY,
            drop_code=NB1110,
            drop_message="configSettings is honored for first-party packages only; it is dropped at load",
        )
    },
)


def config_keys(block: Block | None) -> list[Located[str]]:
    """The config keys a package contributes, each at its first declaration; pass the block the host loads."""
    keys: dict[str, Located[str]] = {}
    for setting in block.config_settings if block is not None else ():
        if setting.key is not None and setting.key not in keys:
            keys[setting.key] = Located(setting.key, setting.at.child("key"))
    return list(keys.values())

"""The outputs stage: judge a package's declarations against what its build wrote (dist/, build records).

It runs after the manifest rules (check.py composes the two), on the same walk's diagnostics and
validity marks, and is the only part of `check` that reads build output, walks node_modules or runs
esbuild. What it finds (the verdict on the UI module, what the last build read) is handed on with
the judged package, so the image build and the host page never judge it again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from neuralis_build.manifest.checker import Checker
    from neuralis_build.model.block import Block
    from neuralis_build.record.stale import BuildState
    from neuralis_build.record.verdict import ModuleVerdict


@dataclass(slots=True)
class OutputFacts:
    """What the outputs rules found, beside their diagnostics."""

    module_verdict: ModuleVerdict | None = None
    build: BuildState | None = None


def judge_outputs(block: Block, c: Checker) -> OutputFacts:
    """Run the outputs rules on the typed, trust-filtered block (their diagnostics join the manifest walk's)."""
    from neuralis_build.outputs.buildmode import development_build
    from neuralis_build.outputs.rules import event_outputs, module_outputs, stale_outputs

    found = OutputFacts()
    # a development build is judged last: only a module the other rules found built and fresh
    for rule in (module_outputs, event_outputs, stale_outputs, development_build):
        rule(block, c, found)
    return found

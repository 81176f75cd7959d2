"""The generated pages of the documentation site (docs/), made from the toolchain itself.

The command reference comes from the CLI (click, under typer), the manifest reference from the shapes
the validator checks, and the diagnostic catalogue from the explain entries. ``./scripts/docs-gen``
writes them; tests/test_docs_site.py fails when a committed page differs from what this package makes,
so a change to a command, a shape or an entry comes with its regenerated page.
"""

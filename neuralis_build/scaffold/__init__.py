"""Scaffolding: render a package template (templates/, Jinja2) into a new package folder, atomically."""

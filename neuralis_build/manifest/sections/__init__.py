"""One module per section of the spec, in the spec's order."""

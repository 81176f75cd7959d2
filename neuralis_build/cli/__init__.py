"""The command-line layer: thin commands over the library, one module per command."""

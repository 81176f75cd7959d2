"""The esbuild tool: the pinned binary, how it is found and run, and what its metafile says."""

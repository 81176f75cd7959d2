"""The UI module build: esbuild obtained and driven, the shared-imports record, events and routes."""

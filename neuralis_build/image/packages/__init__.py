"""The listed packages' own stages (fetch, build, stage, check), their cache, and what an unchanged rerun may keep."""

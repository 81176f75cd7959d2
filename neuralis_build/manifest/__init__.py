"""The manifest rules of the spec: shapes per section, cross-section rules, and the JSON Schema."""

"""The utilities every layer stands on: values, errors, files, processes, JSON, the sandbox."""

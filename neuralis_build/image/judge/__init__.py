"""The verdicts: contests, each package's standing and report row, node's view of the tree, the loads of
packages with install scripts.
"""

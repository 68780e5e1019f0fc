"""Shared engine: parse CUDA with libclang, query it, rewrite it, build and run it.

Nothing tool-specific lives here; hirace/ and cltestcheck/ plan their edits
on top of the query layer and hand them to the rewriter.
"""

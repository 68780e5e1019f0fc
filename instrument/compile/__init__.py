"""From instrumented sources to programs: the one build path every tool takes (pipeline.py), builds
kept between runs by their content (build_cache.py), compiler command lines and compilation databases (compile_line.py, compile_db.py), the compiler
launcher a project's own build runs (launcher.py), the toolchain (toolchain.py), and the small
native helpers (native/, native_cache.py, peak_rss.py, row_host.py)."""

"""The site side: writes the MyST pages, charts and diagrams from stored results (plain data in, files out).

It reads what the build side stored (rosetta.build's results, lessons and equivalence records) and the
project's definitions; it never executes a snippet.
"""

"""The site side: writes the MyST pages, charts and diagrams from stored results (plain data in, files out).

gather/ reads what the build side stored (rosetta.build's results, lessons and equivalence records) and the
project's definitions into a view per page; one module per page kind renders its view; pages.write_site walks
the registry of kinds. It never executes a snippet.
"""

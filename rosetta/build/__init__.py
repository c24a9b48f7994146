"""The build side: runs in the build's own environment (.envs/docs), never inside a framework's kernel.

It sets up the environments, executes the snippets, lessons and equivalence checks in them, keeps their
results, and (cli) drives the whole build. It imports the kernel side (rosetta's own modules: the
project's definitions among them) and, in cli alone, the site side that writes the pages.
"""

#!/usr/bin/env python3
"""Execute the snippets in their framework environments and build the site.

    python build_docs.py [--profile smoke|cpu|full] [--frameworks a,b] [--examples x]
                         [--force] [--strict] [--repeats N]

`make html` runs this inside the build's own environment (.envs/docs). See README.md.
"""
import sys

from rosetta.build.cli import main

if __name__ == "__main__":
    sys.exit(main())

"""What each page shows, gathered into plain view objects: the one part of the site side that reads files.

The renderers (one module per page kind) get these views and read nothing: results folders, executed
notebooks, the programs, READMEs, requirements, the fairness harness's records and docs/systems.toml are
read here, once, and handed over as data. One module per page kind (benchmark, notebook, framework,
environments, front, lessons, guide, conversion), each with its view dataclasses and the function that
gathers them (`<kind>_views`); `common` holds what several kinds read, and `SiteInput`, what the build hands
to the site.
"""
from . import benchmark, common, conversion, environments, framework, front, guide, lessons, notebook  # noqa: F401

"""The environments page's view: every environment's packages, the math modes, this machine."""
from __future__ import annotations

from dataclasses import dataclass

from ...build import environments
from ...project import Framework
from .common import SiteInput


@dataclass
class EnvironmentView:
    """One environment: the row that owns it, the rows it runs, its requirements and what was installed."""
    fw: Framework
    rows: list[Framework]
    env: object | None             # environments.Env, or None: not set up
    requirements: str
    existing_variable: str         # the variable that names an existing interpreter for it


@dataclass
class EnvironmentsView:
    frameworks: list[Framework]
    environments: list[EnvironmentView]
    machine: str
    machine_info: dict
    machine_label: str


def environments_views(site: SiteInput) -> list[EnvironmentsView]:
    owners: dict[str, list[Framework]] = {}
    for fw in site.frameworks:      # rows that share an environment (Keras 3 on a backend) are listed in it
        owners.setdefault(fw.environment, []).append(fw)
    found = []
    for environment, rows in owners.items():
        fw = next((row for row in rows if row.name == environment), rows[0])
        found.append(EnvironmentView(fw, rows, site.envs.get(fw.name),
                                     fw.requirements.read_text() if fw.requirements.exists() else "(missing)",
                                     environments.existing_python_variable(fw)))
    return [EnvironmentsView(site.frameworks, found, site.machine, site.machine_info, site.machine_label)]

"""The environments page: each environment's requirements and installed packages, each row's math mode on a
GPU, and the machine the pages' own results were measured on."""
from __future__ import annotations

from pathlib import Path

from ..project import Framework
from .gather.environments import EnvironmentsView, EnvironmentView
from .markup import Writer, cell_text, escape, fence


def render(view: EnvironmentsView, writer: Writer) -> None:
    lines = ["# Environments", "",
             "Each framework runs in its own virtual environment, made from a pinned requirements "
             "file and registered as a Jupyter kernel. The fingerprint (requirements hash and every "
             "installed package) is part of each result: change a package and the results are "
             "measured again.", "", "## Packages by environment", "",
             "::::{tab-set}", ":sync-group: framework", ""]
    for found in view.environments:
        lines += environment_tab(found)
    lines += ["::::", "", "## On a GPU: the math mode each row would use", "", MATH_INTRO, "",
              math_table(view.frameworks), "", "## This machine", "",
              *machine_table(view.machine, view.machine_info, view.machine_label), ""]
    writer.write("environments.md", "\n".join(lines) + "\n")


def environment_tab(found: EnvironmentView) -> list[str]:
    """One environment's tab: the rows it runs, its requirements, what was installed (or why not)."""
    fw, rows, env = found.fw, found.rows, found.env
    lines = [f":::{{tab-item}} {fw.environment_label}", f":sync: {fw.environment}", ""]
    if len(rows) > 1:
        lines += ["Runs the rows " + ", ".join(
            row.label + (" (" + ", ".join(f"`{k}={v}`" for k, v in row.variables.items()) + ")"
                         if row.variables else "") for row in rows) + ".", ""]
    lines += [f"Requirements (`envs/{fw.requirements.name}`):", "", fence(found.requirements, "text"), ""]
    if env is None or not env.ok:
        lines += [f"```{{warning}}\nNot installed: {escape(env.reason) if env else 'not set up'}\n```", ""]
    else:
        packages = env.fingerprint.get("packages", {})
        if env.fingerprint.get("existing_python"):
            lines += [f"An existing interpreter, `{escape(env.fingerprint['existing_python'])}` (set by "
                      f"`{found.existing_variable}`): no virtual environment was made, "
                      "and these are its packages as found.", ""]
        lines += [f"Python {env.fingerprint.get('python')}, fingerprint `{env.fingerprint_hash[:16]}`, "
                  f"{len(packages)} packages:", "",
                  fence("\n".join(f"{k}=={v}" for k, v in packages.items()), "text"), ""]
    lines += [":::", ""]
    return lines


def machine_table(machine: str, machine_info: dict, label: str) -> list[str]:
    """The machine the pages' own results were measured on, in words (never a path of the building machine)."""
    peak = machine_info.get("float32_matmul") or {}
    gpus = machine_info.get("gpus") or []
    published = machine_info.get("results_folder")
    rows = [("Name", f"{cell_text(label)} (`{machine}`)" if machine_info.get("cpu")
             else f"`{machine}`"),
            ("CPU", f"{machine_info.get('cpu', '?')}, {machine_info.get('cores', '?')} cores"
             + (f", {machine_info['cpu_flags']}" if machine_info.get("cpu_flags") else "")),
            ("Memory", f"{machine_info['memory_gib']} GiB" if machine_info.get("memory_gib") else "not recorded"),
            ("GPU", "; ".join(f"{g.get('name')} ({g.get('memory')}, driver {g.get('driver')}, CUDA "
                              f"{g.get('driver_cuda')})" for g in gpus) or "none: no GPU results from this machine"),
            ("Operating system", machine_info.get("os", "not recorded")),
            ("Python of the build", machine_info.get("python", "not recorded")),
            ("float32 peak", f"{peak['gflops']:.0f} GFLOP/s, {peak.get('how', '')}, measured "
             f"{peak.get('date', '')[:10]}; per environment: "
             + ", ".join(f"{name} {rate:.0f}" for name, rate in peak.get("by", {}).items())
             if peak.get("gflops") else "not measured"),
            ("Results", "read from " + ("the reference results kept in the repository"
                                        if Path(published).name == "reference" else f"the results folder "
                                        f"`{Path(published).name}`") + ": this site executed nothing"
             if published else "measured by this build")]
    return ["| Property | As recorded |", "|---|---|",
            *(f"| {name} | {cell_text(str(value)) if name != 'Name' else value} |" for name, value in rows)]


MATH_INTRO = ("On a GPU, every row computes in float32 (no TF32), lets cuDNN pick its fastest algorithms, "
              "and compiles the way its own documentation recommends; each row sets the first two in its "
              "snippets' setup step, or in its environment variables where the program has no switch "
              "(see {doc}`/methodology`). On a CPU none of the three changes anything.")
MATH_COLUMNS = (("float32", "float32 / TF32"), ("autotune", "cuDNN autotuning"), ("compiler", "compilation"))


def math_table(frameworks: list[Framework]) -> str:
    """Each row's math mode on a GPU, as its envs/<row>.toml [math] declares it."""
    lines = ["| Framework | " + " | ".join(label for _, label in MATH_COLUMNS) + " |",
             "|---|" + "---|" * len(MATH_COLUMNS)]
    for fw in frameworks:
        lines.append(f"| {fw.label} | " + " | ".join(
            " ".join(fw.math.get(key, "not declared").split()).replace("|", "\\|") for key, _ in MATH_COLUMNS) + " |")
    return "\n".join(lines)

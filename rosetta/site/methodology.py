"""The methodology's and the front page's includes: the profiles' sizes of every example, and where the
site's figures come from (the pages' own machine and profile, the other machines on record, any GPU)."""
from __future__ import annotations

from pathlib import Path

from ..project import PROFILES
from .gather.front import ProvenanceView
from .markup import Writer, cell_text, escape, sizes_text


def profiles_table(view: ProvenanceView) -> str:
    examples = view.examples
    profiles = ["| profile | " + " | ".join(ex.short_title for ex in examples) + " |",
                "|---|" + "---|" * len(examples)]
    for profile in PROFILES:
        profiles.append(f"| `{profile}` | " + " | ".join(
            cell_text(sizes_text(ex.profiles.get(profile, {})) or "–") for ex in examples) + " |")
    return "\n".join(profiles)


def site_provenance(view: ProvenanceView) -> str:
    """The front page's word on where its figures come from: the pages' own machine and profile, measured when
    the site was built or read from stored results, the other machines on record, and whether any has a GPU."""
    profile, machine, machine_info, others = view.profile, view.machine, view.machine_info, view.others
    own = [r for rows in view.all_results.values() for r in rows.values() if (r.get("provenance") or {}).get("date")]
    dates = sorted({r["provenance"]["date"][:10] for r in own})
    commits = sorted({((r["provenance"].get("repository") or {}).get("commit") or "")[:10] for r in own} - {""})
    when = (f"measured {dates[0]}" + (f" to {dates[-1]}" if dates[-1] != dates[0] else "") if dates else "") + \
        (f" at commit {', '.join(commits)}" if commits else "")
    published = machine_info.get("results_folder")
    source = ("the reference results kept in the repository" if published and Path(published).name == "reference"
              else f"the results folder `{Path(published).name}`" if published else "")
    lines = [(f"This site was published from {source}: no program ran while it was built. " if published else
              "This site's own figures were measured when it was built. ")
             + f"Its own column: **{escape(view.machine_label)}** (`{machine}`), profile "
               f"`{profile}` ({{doc}}`its sizes </methodology>`)" + (f", {when}" if when else "") + "."]
    if others:
        lines.append("Beside it: " + "; ".join(f"{escape(r.get('machine_label', m))}, profile `{p}`"
                                               for (m, p), r in sorted(others.items())) + ".")
    if not view.gpu:
        lines.append("**No GPU results yet**: every figure on this site was measured on a CPU; the original "
                     "study's figures are from GPUs. {ref}`How to add GPU results <gpu-results>`.")
    lines.append("A figure marked *(stale)* was measured with code that has changed since (not only in its "
                 "comments); `make html` measures it again.")
    return " ".join(lines)


def render(view: ProvenanceView, writer: Writer) -> None:
    writer.write("includes/profiles.md", profiles_table(view) + "\n")
    writer.write("includes/provenance.md", site_provenance(view) + "\n")

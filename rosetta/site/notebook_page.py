"""Notebook pages: each row's executed notebook (else its program read as one), headed by where and how it
ran, or by its traceback; beside it, the program to download."""
from __future__ import annotations

import nbformat

from ..build.outcome import Outcome
from .gather.notebook import NotebookView
from .markup import STATUS_TEXT, Writer, fence, notebook_doc, traceback_label, without_build_outputs


def provenance_text(view: NotebookView) -> str:
    """The header cell: the downloads, the row's program and variables, where it ran or how it failed."""
    example, fw, result, name, script = view.example, view.fw, view.result, view.fw.name, view.script
    info = [f"Downloads: {{download}}`{script} <{script}>` (the snippet, a jupytext script) · "
            f"{{download}}`{name}.ipynb <{name}.ipynb>` (this notebook, executed)."]
    if fw.variables:
        info.append(f"The program `{script}` run with " + ", ".join(f"`{k}={v}`" for k, v in fw.variables.items())
                    + f" in the {fw.environment_label} environment.")
    if result:
        prov = result.get("provenance", {})
        versions = ", ".join(f"{k} {v}" for k, v in prov.get("framework_versions", {}).items())
        if result["status"] == Outcome.OK:
            info.append(f"Executed {prov.get('date', '')} on {result.get('machine_label', '')}, profile "
                        f"{result['profile']}; {versions}. Data: {prov.get('data_source', '')}. "
                        f"Weights: {prov.get('weights', '')}.")
        else:
            info.append(f"({traceback_label(example.name, fw.name)})=")
            info.append(f"**This run did not complete ({STATUS_TEXT.get(result['status'], result['status'])}).**")
            error = result.get("error")
            detail = error["traceback"] if error else result.get("reason", "")
            info.append(fence(detail or "(no detail)", "text"))
    return "\n\n".join(info)


def render(view: NotebookView, writer: Writer) -> None:
    notebook = view.notebook
    without_build_outputs(notebook)
    # Fixed ids (nbformat would draw random ones): the same results make the same notebook, byte for byte.
    header = nbformat.v4.new_markdown_cell(provenance_text(view), id="rosetta-provenance")
    position = 1 if notebook.cells and notebook.cells[0].cell_type == "markdown" \
        and notebook.cells[0].source.startswith("#") else 0
    if position == 0:
        notebook.cells.insert(0, nbformat.v4.new_markdown_cell(f"# {view.example.short_title}: {view.fw.label}",
                                                               id="rosetta-title"))
        position = 1
    notebook.cells.insert(position, header)
    writer.write(f"{notebook_doc(view.example.name, view.fw.name)}.ipynb", nbformat.writes(notebook))
    writer.write(f"{notebook_doc(view.example.name, '')}{view.script}", view.script_bytes)

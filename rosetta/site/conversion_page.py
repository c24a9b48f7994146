"""The conversion pages: each example's model exported to ONNX by every framework that can, the export code
as tabs (synced with the benchmark pages'), and what became of each file in ONNX Runtime and in PyTorch.

The records come from the conversion stage (rosetta/build/conversion.py); this module only renders them.
"""
from __future__ import annotations

from ..build import conversion
from ..build.outcome import Outcome
from .gather.conversion import ConversionView, ExportTab
from .markup import STATUS_TEXT, Writer, cell_text, doc_link, escape, fence


def size_text(count: int) -> str:
    return f"{count / 2**20:.1f} MiB" if count >= 2**20 else f"{count / 2**10:.0f} KiB"


def operators_text(operators: dict) -> str:
    return ", ".join(f"{name} ×{count}" for name, count in operators.items())


def side_text(side: dict, own: str) -> str:
    """ONNX Runtime's or the import route's outcome, in words."""
    if side["status"] in (Outcome.OK, conversion.DIFFERS):
        verdict = "within" if side["status"] == Outcome.OK else "**outside**"
        return f"max \\|difference\\| {side['difference']:.2g} from {own}'s own outputs ({verdict} the tolerance)"
    what = "ONNX Runtime refused to run it" if side["status"] == conversion.NOT_RUN else "refused"
    return f"{what}: `{escape_code(side['message'])}`"


def escape_code(text: str) -> str:
    """A message inside a code span (a backtick would end it)."""
    return text.replace("`", "'")


def cell_code(text: str) -> str:
    """A message as a code span in a table cell (a bar would end the cell)."""
    return "`" + escape_code(text).replace("|", "\\|") + "`"


def export_cell(row: dict) -> str:
    if row.get("exported"):
        return f"✓ {size_text(row['bytes'])}" if "bytes" in row else "✓"
    if row["status"] == conversion.REFUSED:
        return f"refused: {cell_code(row['message'])}"
    return f"{STATUS_TEXT.get(row['status'], row['status'])}: {cell_text(row.get('reason', ''))}"


def difference_cell(side: dict | None) -> str:
    if not side:
        return ""
    if "difference" in side:
        return f"{'✓' if side['status'] == Outcome.OK else '✗'} {side['difference']:.1e}"
    return ("not run: " if side["status"] == conversion.NOT_RUN else "refused: ") + cell_code(side["message"])


def matrix(view: ConversionView) -> list[str]:
    """Row × export, opset, ONNX Runtime's difference, the import route's: the page's summary."""
    rows = (view.record or {}).get("frameworks", {})
    route = (view.record or {}).get("import_route", conversion.IMPORT_ROUTE)
    lines = ["| Framework | Export | opset | ONNX Runtime | Into PyTorch (" + route + ") |", "|---|---|---|---|---|"]
    for tab in view.tabs:
        for fw in tab.rows:
            row = rows.get(fw.name)
            if row is None:
                lines.append(f"| {fw.label} | not converted yet |  |  |  |")
                continue
            lines.append(f"| {fw.label} | {export_cell(row)} | {row.get('opset') or ''} | "
                         f"{difference_cell(row.get('runtime'))} | {difference_cell(row.get('import'))} |")
    for rows_left, why in view.left_out:
        for fw in rows_left:
            lines.append(f"| {fw.label} | no exporter: {cell_text(why)} |  |  |  |")
    return lines


def tab_outcome(fw, row: dict | None, several: bool) -> list[str]:
    """Under a tab's code: what its row's export became (named by its backend where a program has several)."""
    name = f"**{fw.backend}**: " if several else ""
    if row is None:
        return [f"- {name}not converted yet (`make html` converts it)"]
    if not row.get("exported"):
        return [f"- {name}" + (f"refused: `{escape_code(row['message'])}`" if row["status"] == conversion.REFUSED
                               else export_cell(row))]
    if "opset" not in row:                 # written, but the check of the files did not run
        return [f"- {name}written: {size_text(row['bytes'])}; not checked: {cell_text(row.get('reason', ''))}"]
    checker = "valid" if not row.get("checker") else f"`{escape_code(row['checker'])}`"
    producer = row.get("producer") or "its exporter"
    beside = (f" (its weights written beside it, in {', '.join(f'`{name}`' for name in row['external_data'])}: "
              "kept inside it here)" if row.get("external_data") else "")
    lines = [f"- {name}written: opset {row['opset']}, {size_text(row['bytes'])}{beside}, by {producer}; "
             f"operators: {operators_text(row['operators'])}; the ONNX checker: {checker}"]
    if "runtime" in row:
        lines += [f"  - ONNX Runtime: {side_text(row['runtime'], fw.label)}",
                  f"  - back into PyTorch ({conversion.IMPORT_ROUTE}): {side_text(row['import'], fw.label)}"]
    return lines


def tab_lines(tab: ExportTab, rows: dict) -> list[str]:
    body = [fence(tab.code, "python"), ""]
    for fw in tab.rows:
        body += tab_outcome(fw, rows.get(fw.name), len(tab.rows) > 1)
    return [f"::::{{tab-item}} {tab.label}", f":sync: {tab.sync}", "", *body, "", "::::", ""]


def timing_lines(view: ConversionView) -> list[str]:
    """ONNX Runtime's throughput on each row's file beside the row's own benchmark result, same batches."""
    timing = (view.record or {}).get("timing")
    if not timing:
        return []
    if timing["status"] != Outcome.OK:
        return ["## Inference time: ONNX Runtime against each framework", "",
                f"The timing did not run: {cell_text(timing.get('reason', ''))}", ""]
    unit = view.example.throughput_unit
    lines = ["## Inference time: ONNX Runtime against each framework", "",
             f"Each row's file in ONNX Runtime {timing['onnxruntime']}, over the benchmark's own batches at this "
             f"profile ({timing['batches']} of {timing['batch_size']} images, after one warm-up batch; "
             f"{timing['threads']} intra-op threads, every core, as each framework's kernel has them), beside the "
             f"row's own benchmark result on the same machine. Median of {timing['rounds']} passes, rows "
             "interleaved; the range in brackets.", "",
             f"| Framework | its own ({unit}) | ONNX Runtime on its file ({unit}) | ONNX Runtime / own |",
             "|---|---|---|---|"]
    labels = {fw.name: fw.label for fw in view.frameworks}
    order = [fw.name for fw in view.frameworks]
    for row, measured in sorted(timing["rows"].items(), key=lambda item: order.index(item[0])):
        rates = sorted(timing["images"] / seconds for seconds in measured["seconds"])
        ort = f"{measured['images_per_second']:.1f} ({rates[0]:.1f}–{rates[-1]:.1f})"
        own = (view.native.get(row) or {}).get("metrics", {}).get("throughput")
        stale = " (stale)" if (view.native.get(row) or {}).get("stale") else ""
        ratio = f"{measured['images_per_second'] / own:.2f}×" if own else ""
        lines.append(f"| {labels.get(row, row)} | {f'{own:.1f}{stale}' if own else 'not measured here'} | {ort} | "
                     f"{ratio} |")
    for row, why in timing.get("skipped", {}).items():
        own = (view.native.get(row) or {}).get("metrics", {}).get("throughput")
        lines.append(f"| {labels.get(row, row)} | {f'{own:.1f}' if own else 'not measured here'} | "
                     f"{cell_text(why)} |  |")
    return [*lines, "", "The files hold the equivalence checks' neutral weights, the benchmark the zoo's (or seeded "
            "random) ones: the time does not depend on the values.", ""]


def provenance(view: ConversionView) -> list[str]:
    record = view.record
    if not record:
        return ["No conversion on record for this machine: `make html` exports, runs and compares them."]
    stale = (["```{warning}", "Something these conversions ran has changed since (a program, an export tab, an "
              "environment): `make html` converts them again.", "```", ""] if record.get("stale") else [])
    versions = next((row["versions"] for row in record["frameworks"].values() if row.get("versions")), {})
    exporters = [f"{fw.label}" + (f" (exported in `envs/{row['export_environment']}.txt`)"
                                  if row.get("export_environment") else "") + ": "
                 + ", ".join(f"{name} {version}" for name, version in row.get("exporter_versions", {}).items())
                 for tab in view.tabs for fw in tab.rows if (row := record["frameworks"].get(fw.name)) is not None]
    return [*stale, f"Converted on {escape(record['machine_label'])}, {record['date'][:10]} (profile "
            f"`{record['profile']}`); weights: the equivalence checks' neutral weights (seed {record['seed']}); "
            f"inputs: their forward batch of {record['forward_batch']} images.", "",
            "Checked with " + ", ".join(f"{name} {version}" for name, version in versions.items()) + ".", "",
            "Each row's environment: " + "; ".join(exporters) + "."]


def render(view: ConversionView, writer: Writer) -> None:
    example, record = view.example, view.record or {}
    rows = record.get("frameworks", {})
    benchmark = doc_link(f"benchmarks/{example.name}")
    tolerance = record.get("tolerance")
    over = " over the largest \\|output\\|" if record.get("relative") else ""
    lines = [f"# {example.short_title} through ONNX", "",
             f"Each tab exports the model that its {{doc}}`benchmark program <{benchmark}>` builds, in inference "
             "mode, to an ONNX file, at build time. The model holds the equivalence checks' neutral weights, so every "
             "row's file should compute the same function. Each file is then run in ONNX Runtime, and brought back "
             f"into PyTorch by {conversion.IMPORT_ROUTE}, on the checks' forward batch; both outputs are compared "
             "with the framework's own outputs as a pair of tabs is"
             + (f" (max \\|difference\\|{over}, tolerance {tolerance:g})." if tolerance else "."),
             "", "## The conversions", "", *matrix(view), "",
             "A refused export, or a file that ONNX Runtime or the import refuses, is shown with the message it "
             "gave. A file's opset is the one its exporter chose: every tab uses its exporter's defaults.", "",
             "## Export code", "", "Pick a framework once: the tabs follow the choice made on any other page.", "",
             ":::::{tab-set}", ":sync-group: framework", ""]
    for tab in view.tabs:
        lines += tab_lines(tab, rows)
    lines += [":::::", "", "## How each file is checked", "",
              f"In the PyTorch environment, which has ONNX Runtime and {conversion.IMPORT_ROUTE} "
              f"(`{conversion.CHECKER}`):", "", fence(view.checker, "python"), "",
              *timing_lines(view), "## Provenance", "", *provenance(view), ""]
    writer.write(f"conversions/{example.name}.md", "\n".join(lines) + "\n")


def render_index(views: list[ConversionView], writer: Writer) -> None:
    listing = [f"- **{{doc}}`{view.example.short_title} <{doc_link('conversions/' + view.example.name)}>`**: "
               + (f"{conversion.through(view.record)} of {len(view.record['frameworks'])} rows' files run in ONNX "
                  "Runtime with the framework's own results" if view.record else "not converted yet") for view in views]
    writer.write("conversions.md", "\n".join(
        ["# ONNX", "",
         "Travelling between frameworks: a model trained in one framework and served by another travels as an "
         "ONNX file. Each page exports one "
         "benchmark's model from every framework that can, and checks that the file still computes the same "
         "function: in ONNX Runtime, and back in PyTorch.", "",
         *(listing or ["No example has export tabs yet."]), "",
         "```{toctree}", ":hidden:", "", *[f"conversions/{view.example.name}" for view in views], "```"]) + "\n")

"""The package's three sides (docs/architecture.md), read from the import statements of every module."""
import ast
import sys
from pathlib import Path

from rosetta.project import REPO_ROOT

PACKAGE = REPO_ROOT / "rosetta"
# What kernel-side code may import besides the standard library: every framework's kernel has these.
KERNEL_THIRD_PARTY = {"numpy", "IPython", "PIL"}
# A worker that runs in one named environment only may import what that environment has (inside functions):
# the ONNX checker runs in conversion.RUNTIME_ROW's.
ONE_ENVIRONMENT = {"rosetta.onnx_check_worker": {"onnx", "onnxruntime", "onnx2torch", "torch"},
                   "rosetta.onnx_timing_worker": {"onnx", "onnxruntime"}}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, name: str = "") -> set[str]:
    """Every module a file imports (relative imports resolved), at any depth of the file."""
    return imports_in(ast.parse(path.read_text()), package_of(path, name))


def package_of(path: Path, name: str = "") -> str:
    name = name or module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imports_in(tree: ast.AST, package: str) -> set[str]:
    """The modules the import statements under a node name, relative ones resolved against `package`."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, *([base] if base else [])])
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}   # (from . import x: module x)
    return found


def side(module: str) -> str:
    if module.startswith("rosetta.build"):
        return "build"
    if module.startswith("rosetta.site"):
        return "site"
    return "kernel"


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def test_the_three_sides_are_where_the_readme_says():
    sides = {side(name) for name in MODULES}
    assert sides == {"kernel", "build", "site"}
    assert (PACKAGE / "js" / "rosetta.ts").exists()     # the JavaScript rows' kernel side


def test_the_kernel_side_imports_nothing_from_the_build_or_the_site_and_nothing_heavy():
    for name, path in MODULES.items():
        if side(name) != "kernel":
            continue
        for imported in imports(path):
            top = imported.split(".")[0]
            assert side(imported) == "kernel" or top != "rosetta", f"{name} imports {imported}"
            assert top == "rosetta" or top in sys.stdlib_module_names or top in KERNEL_THIRD_PARTY \
                or top in ONE_ENVIRONMENT.get(name, ()) or top == "__future__", \
                f"{name} (kernel side) imports {imported}"


def test_only_the_command_line_of_the_build_side_imports_the_site_side():
    for name, path in MODULES.items():
        found = {imported for imported in imports(path) if imported.startswith("rosetta.")}
        if side(name) == "build" and name != "rosetta.build.cli":
            assert not {m for m in found if side(m) == "site"}, f"{name} imports the site side"
        if side(name) == "site":
            assert "rosetta.build.cli" not in found, f"{name} imports the command line"


def test_the_rule_can_fail(tmp_path):
    """The import reader sees a relative import two levels up (what a careless move would add)."""
    module = tmp_path / "x.py"
    module.write_text("def f():\n    from ..build import results\n")
    assert "rosetta.build.results" in imports(module, "rosetta.data.x")
    assert side("rosetta.build.results") == "build"


def rosetta_imports(path: Path) -> set[str]:
    """The rosetta modules a file imports (a `from . import x` counted as module x where x is one)."""
    return {name for name in imports(path) if name in MODULES} - {module_name(path)}


def cycle_in(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of the graph (the modules in order, the first repeated at the end), or []."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node], found = "open", []
        path.append(node)
        for other in sorted(graph.get(node, ())):
            if state.get(other) == "open":
                return path[path.index(other):] + [other]
            if other not in state and (found := visit(other)):
                return found
        state[node] = "done"
        path.pop()
        return found

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_import_cycle_among_rosetta_s_modules():
    """Imports anywhere in a file count: one inside a function only hides a circle."""
    graph = {name: rosetta_imports(path) for name, path in MODULES.items()}
    assert cycle_in(graph) == [], " -> ".join(cycle_in(graph))


def test_the_cycle_check_can_fail():
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle_in({"a": {"b"}, "b": set()}) == []


def imports_inside_functions(path: Path, name: str = "") -> set[str]:
    """The rosetta modules a file imports inside a function (relative imports resolved)."""
    package = package_of(path, name)
    return {imported for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for imported in imports_in(node, package) if imported.split(".")[0] == "rosetta"}


def test_the_build_and_site_sides_import_rosetta_at_the_top_of_their_files_only():
    for name, path in MODULES.items():
        if side(name) in ("build", "site"):
            assert not imports_inside_functions(path), f"{name} imports {imports_inside_functions(path)} in a function"


def test_the_inside_function_rule_can_fail(tmp_path):
    module = tmp_path / "x.py"
    module.write_text("import json\n\n\ndef f():\n    from . import guide\n    import json\n")
    assert imports_inside_functions(module, "rosetta.site.x") == {"rosetta.site", "rosetta.site.guide"}


# Who may parse the project's TOML files (example.toml, envs/<row>.toml, lesson.toml, docs/systems.toml): the
# model (rosetta/model.py) for the build and the site; rosetta/project.py, which builds the examples and rows
# and is code every snippet runs (its identity keys every result); and the kernel side's own readers, which run
# inside the kernels: the lesson helper reads a lesson's sizes, the equivalence worker its spec.
TOML_READERS = {"rosetta.model", "rosetta.project", "rosetta.lesson", "rosetta.neutral"}
# Scripts outside the package that import it (benchmarks/, build_docs.py) follow the same rule; the install
# survey runs on a bare Python without the package (benchmarks/try_installs.py) and reads the one value it needs.
SCRIPTS = {path.relative_to(REPO_ROOT).as_posix(): path for path in
           [REPO_ROOT / "build_docs.py", REPO_ROOT / "conf.py", *sorted((REPO_ROOT / "benchmarks").glob("*.py"))]}
STANDALONE_SCRIPTS = {"benchmarks/try_installs.py"}


def test_only_the_model_reads_the_project_s_toml_files():
    readers = {name for name, path in MODULES.items() if "tomllib" in imports(path)}
    assert readers <= TOML_READERS, f"{sorted(readers - TOML_READERS)} parse TOML: ask rosetta.model instead"
    scripts = {name for name, path in SCRIPTS.items() if "tomllib" in imports(path, "benchmarks.x")}
    assert scripts <= STANDALONE_SCRIPTS, f"{sorted(scripts - STANDALONE_SCRIPTS)} parse TOML: ask rosetta.model"
    assert "rosetta.model" in TOML_READERS and any("tomllib" in imports(p) for p in [MODULES["rosetta.model"]])


def test_the_toml_rule_can_fail(tmp_path):
    module = tmp_path / "x.py"
    module.write_text("def f(path):\n    import tomllib\n    return tomllib.loads(path.read_text())\n")
    assert "tomllib" in imports(module, "rosetta.site.x")


MAX_PARAMETERS = 7      # more, and a call site reads as a row of values: a plan object says what they are together


def parameter_counts(path: Path) -> dict[str, int]:
    """Each function's parameters (self and cls not counted), by its name and line."""
    found = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            given = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            count = len(given) + bool(node.args.vararg) + bool(node.args.kwarg)
            count -= bool(given and given[0].arg in ("self", "cls"))
            found[f"{node.name} (line {node.lineno})"] = count
    return found


def test_no_function_takes_more_than_seven_parameters():
    for name, path in {**MODULES, **SCRIPTS}.items():
        long = {function: count for function, count in parameter_counts(path).items() if count > MAX_PARAMETERS}
        assert not long, f"{name}: {long}"


def test_the_parameter_rule_can_fail(tmp_path):
    module = tmp_path / "x.py"
    module.write_text("class A:\n    def f(self, a, b, c, d, e, f, g, *rest):\n        pass\n")
    assert parameter_counts(module) == {"f (line 2)": 8}


def rosetta_variables_read(path: Path) -> set[str]:
    """The ROSETTA_* names a file reads from its environment (os.environ.get, os.environ[...], os.getenv)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        key = None
        if isinstance(node, ast.Call) and node.args and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get", "getenv"):
            key = node.args[0]
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "environ":
            key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.startswith("ROSETTA_"):
            found.add(key.value)
    return found


def test_the_build_and_site_sides_read_rosetta_settings_through_variables_only():
    """The ROSETTA_* settings are read and checked once, into the run context (rosetta/build/variables.py). The
    kernel side reads its own (it runs in the kernels); conf.py, Sphinx's process, reads the site's prefix."""
    for name, path in {**MODULES, **SCRIPTS}.items():
        if name in ("rosetta.build.variables", "conf.py") or (name in MODULES and side(name) == "kernel"):
            continue
        assert not rosetta_variables_read(path), f"{name} reads {rosetta_variables_read(path)}: use variables.read()"


def test_the_settings_rule_can_fail(tmp_path):
    module = tmp_path / "x.py"
    module.write_text("import os\nA = os.environ.get('ROSETTA_DATA')\nB = os.environ['ROSETTA_WEIGHTS']\n")
    assert rosetta_variables_read(module) == {"ROSETTA_DATA", "ROSETTA_WEIGHTS"}


# What the site side may read of the build side: the records it stored and their vocabulary (the store and
# its results, outcomes, verdicts, identities and staleness; the parsed programs; the lessons, checks and
# conversions as definitions), never the machinery that runs things (executing, jobs, ranks, workers, stages).
BUILD_RECORDS = {"rosetta.build.store", "rosetta.build.results", "rosetta.build.outcome", "rosetta.build.verdict",
                 "rosetta.build.identity", "rosetta.build.staleness", "rosetta.build.snippets",
                 "rosetta.build.files", "rosetta.build.lessons", "rosetta.build.equivalence",
                 "rosetta.build.conversion", "rosetta.build.environments"}


def test_the_site_side_reads_the_build_s_records_never_its_machinery():
    for name, path in MODULES.items():
        if side(name) != "site":
            continue
        used = {".".join(m.split(".")[:3]) for m in imports(path) if m.startswith("rosetta.build.")}
        used = {m for m in used if m in MODULES}          # (from ..build import x: the module x)
        assert used <= BUILD_RECORDS, f"{name} imports {sorted(used - BUILD_RECORDS)} of the build's machinery"
    assert {m for m in MODULES if side(m) == "build"} - BUILD_RECORDS >= {
        "rosetta.build.execute", "rosetta.build.jobs", "rosetta.build.ranks", "rosetta.build.workers",
        "rosetta.build.stages", "rosetta.build.cli"}, "the rule leaves out the machinery"

"""The package's three sides (README, "Architecture"), read from the import statements of every module."""
import ast
import sys
from pathlib import Path

from rosetta.project import REPO_ROOT

PACKAGE = REPO_ROOT / "rosetta"
# What kernel-side code may import besides the standard library: every framework's kernel has these.
KERNEL_THIRD_PARTY = {"numpy", "IPython", "PIL"}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, name: str = "") -> set[str]:
    """Every module a file imports (relative imports resolved), at any depth of the file."""
    name = name or module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
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
                or top == "__future__", f"{name} (kernel side) imports {imported}"


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

"""The package's shape, for a note about its architecture: modules and lines, import cycles, rosetta imports
inside functions, the longest functions, functions with 8 or more parameters, and how often a result's
outcome is compared as a string literal.

    .envs/docs/bin/python benchmarks/package_metrics.py [ROOT]     (ROOT: a checkout; default: this one)
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

OUTCOME_AS_TEXT = re.compile(
    r"""(?:\[["']status["']\]|\.get\(["']status["']\)|(?<![.\w])status)\s*(?:==|!=|in|not in)\s*[(\[{]?\s*"""
    r"""["'](?:ok|failed|timeout|not-installed|snippet-error|data-error|needs-gpu|no-adapter)["']""")


def module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The module names an import statement names (relative ones resolved against `package`)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        base = ".".join([*parent, *([base] if base else [])])
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def main(root: Path) -> None:
    modules = {module_name(root, p): p for p in sorted((root / "rosetta").rglob("*.py"))}
    graph, inner, functions, outcome_as_text, lines = {}, [], [], 0, 0
    for name, path in modules.items():
        text = path.read_text()
        lines += len(text.splitlines())
        outcome_as_text += len(OUTCOME_AS_TEXT.findall(text))
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        graph[name] = set()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import | ast.ImportFrom):
                graph[name] |= {m for m in imported(node, package) if m in modules and m != name}
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = node.args
                count = len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs)
                count -= 1 if args.args and args.args[0].arg in ("self", "cls") else 0
                functions.append((node.end_lineno - node.lineno + 1, count, f"{name}.{node.name}"))
                inner += [f"{name}.{node.name}: {ast.unparse(i)}" for i in ast.walk(node)
                          if isinstance(i, ast.Import | ast.ImportFrom) and i is not node
                          and any(m.split(".")[0] == "rosetta" for m in imported(i, package))]
    print(f"modules: {len(modules)}, lines: {lines}")
    found = cycles(graph)
    print(f"import cycles: {len(found)}" + "".join(f"; {' <-> '.join(c)}" for c in found))
    print(f"rosetta imports inside functions: {len(inner)}" + "".join(f"\n    {line}" for line in inner))
    longest = sorted(functions, reverse=True)[:5]
    print("longest functions: " + ", ".join(f"{n} ({length} lines)" for length, _, n in longest))
    many = sorted((f for f in functions if f[1] >= 8), key=lambda f: -f[1])
    print(f"functions with 8+ parameters: {len(many)}: " + ", ".join(f"{n} ({c})" for _, c, n in many))
    print(f"outcome compared as a string literal: {outcome_as_text}")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)

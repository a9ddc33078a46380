"""The shape of the code base: no import cycles, small modules, no game-name branches in generic layers."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("envs", "agents", "arena", "train", "play")
GENERIC = ("agents", "arena", "train")  # layers that must ask a game's description instead of its name
MAX_LINES = 440  # "a file over ~400 lines is asking to be split"


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            out[name.removesuffix(".__init__")] = path
    return out


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every project module ``module`` imports, at the top or inside a function."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name, modules) if name.split(".")[0] in PACKAGES else None
            # a module's own parent packages are always imported before it: not an edge back
            if target and target != module and not module.startswith(target + "."):
                found.add(target)
    return found


def test_no_import_cycles_lazy_imports_included():
    modules = _modules()
    graph = {m: _imports(m, p, modules) for m, p in modules.items()}
    cycles, state = [], {}

    def visit(m: str, trail: list[str]) -> None:
        state[m] = "open"
        for n in graph[m]:
            if state.get(n) == "open":
                cycles.append(trail[trail.index(n):] + [n] if n in trail else [m, n])
            elif n not in state:
                visit(n, trail + [n])
        state[m] = "done"

    for m in graph:
        if m not in state:
            visit(m, [m])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_modules_stay_small():
    big = {str(p.relative_to(ROOT)): n for p in _modules().values()
           if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not big, f"modules over {MAX_LINES} lines: {big}"


def test_generic_layers_do_not_branch_on_a_game_name():
    pattern = re.compile(r"""(==|!=)\s*["'](skat|thirtyone)["']|["'](skat|thirtyone)["']\s*(==|!=)|"""
                         r"""in\s*\(\s*["'](skat|thirtyone)["']""")
    hits = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
            for m, p in _modules().items() if m.split(".")[0] in GENERIC
            for i, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert not hits, "game-name branches outside the game descriptions:\n" + "\n".join(hits)

"""The rooms and the way their doors open: the core needs nothing of the web, the simulator or
the command line; the simulator and the web need the core (the web also the simulator, for the
chance meter and the statistics); only the command line needs them all; and no module imports
itself back through another."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).parent.parent / "src" / "cardwar"
STATIC = PACKAGE / "web" / "static"
CORE = {"cards", "rules", "records", "engine", "loops", "persist", "story", "match", "text",
        "errors"}  # fmt: skip
# What each part may import besides itself (the core, `cardwar` itself, is every part's base).
ALLOWED = {"core": {"core"}, "sim": {"core", "sim"}, "web": {"core", "sim", "web"},
           "cli": {"core", "sim", "web", "cli"}}  # fmt: skip


def module_name(path: Path) -> str:
    """`cardwar.web.routes.rounds` for src/cardwar/web/routes/rounds.py."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def part(module: str) -> str:
    """Which room a module of the package is in: core, sim, web or cli."""
    name = module.split(".")[1] if module.count(".") else ""
    return name if name in {"sim", "web", "cli"} else "core"


def imports() -> dict[str, set[str]]:
    """Every module of the package and the package modules it imports, lazily or not."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                    + ([base] if base else []))  # fmt: skip
                names.add(base)
                names |= {f"{base}.{alias.name}" for alias in node.names}
        found[module] = {name for name in names if name.startswith("cardwar")} - {module}
    known = set(found)
    return {module: {name for name in names if name in known} for module, names in found.items()}


def test_the_core_is_what_the_rules_say_it_is() -> None:
    """The core's modules are the ones named here: a new one must say which room it is in."""
    core = {
        module.split(".")[1] for module in imports() if part(module) == "core" and "." in module
    }
    assert core == CORE


def test_every_import_points_the_way_the_rooms_allow() -> None:
    """No core module imports the simulator, the web or the command line; the simulator imports
    no web or command line; the web no command line."""
    wrong = sorted(
        f"{module} imports {name}"
        for module, names in imports().items()
        for name in names
        if part(name) not in ALLOWED[part(module)]
    )
    assert wrong == []


def cycles(graph: dict[str, set[str]]) -> list[str]:
    """Every cycle of `graph`, each once, as "a -> b -> a"."""
    found, done = [], set()
    for start in sorted(graph):
        stack = [(start, [start])]
        while stack:
            module, path = stack.pop()
            for name in sorted(graph[module]):
                if name == start:
                    found.append(" -> ".join([*path, name]))
                elif name not in path and name not in done:
                    stack.append((name, [*path, name]))
        done.add(start)
    return found


def test_no_module_imports_itself_back() -> None:
    """The import graph has no cycle. A package's `__init__` that gathers its own modules for
    others to import is not a cycle, so those edges are left out."""
    graph = {
        module: {name for name in names if not name.startswith(module + ".")}
        for module, names in imports().items()
    }
    assert cycles(graph) == []


def test_a_cycle_is_found() -> None:
    """The cycle check notices one."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a -> b -> c -> a"]


# `import { a, b } from "./x.js";`, `import * as x from "./x.js";` and `import "./x.js";`, over
# one line or several: the page's modules import one another by relative path only.
ES_IMPORT = re.compile(r"^import\s+(?:[^;]*?\s+from\s+)?[\"']\./([\w-]+\.js)[\"']", re.MULTILINE)


def page_imports(sources: dict[str, str]) -> dict[str, set[str]]:
    """Each page module (by file name) and the page modules it imports, from their sources."""
    return {name: set(ES_IMPORT.findall(source)) & set(sources) for name, source in sources.items()}


def test_no_page_module_imports_itself_back() -> None:
    """The page's ES modules import one another without a cycle: each can be read, and changed,
    knowing only the modules below it."""
    sources = {path.name: path.read_text() for path in sorted(STATIC.glob("*.js"))}
    graph = page_imports(sources)
    assert graph["app.js"] >= {"act.js", "live.js", "play.js"}  # the imports are read at all
    assert cycles(graph) == []


def test_a_cycle_among_page_modules_is_found() -> None:
    """The page's import check reads each form of import, over several lines too, and notices
    a cycle through them."""
    sources = {
        "a.js": 'import { b,\n  c } from "./b.js";\n// import "./d.js";',
        "b.js": 'import * as c from "./c.js";',
        "c.js": 'import "./a.js";\nimport { x } from "./elsewhere/x.js";',
        "d.js": 'import { a } from "./a.js";',
    }
    assert page_imports(sources) == {
        "a.js": {"b.js"},
        "b.js": {"c.js"},
        "c.js": {"a.js"},
        "d.js": {"a.js"},
    }
    assert cycles(page_imports(sources)) == ["a.js -> b.js -> c.js -> a.js"]


def feature(module: str) -> str:
    """Which of the simulator's rooms a module of `cardwar.sim` is in: `runs` (random rounds),
    `exact` (every deal of a small deck), or `shared` (the kernels, tally, errors and cluster
    both stand on); `top` for the modules over both (`warm`)."""
    parts = module.split(".")
    if parts[2:3] in (["runs"], ["exact"]):
        return parts[2]
    return "top" if parts[2:3] == ["warm"] else "shared"


def test_the_simulators_two_features_stand_on_shared_ground() -> None:
    """`sim/runs` and `sim/exact` never import each other, and nothing they share (`sim/kernels`,
    `sim/tally`, `sim/errors`, `sim/cluster`) imports either of them."""
    allowed = {"runs": {"runs", "shared"}, "exact": {"exact", "shared"}, "shared": {"shared"},
               "top": {"runs", "exact", "shared", "top"}}  # fmt: skip
    sim = {m: names for m, names in imports().items() if m.startswith("cardwar.sim.")}
    wrong = sorted(
        f"{module} imports {name}"
        for module, names in sim.items()
        for name in names
        if name.startswith("cardwar.sim.") and feature(name) not in allowed[feature(module)]
    )
    assert wrong == []
    assert {feature(module) for module in sim} == {"runs", "exact", "shared", "top"}


# The numba kernels are the one place where a long function is right: a kernel is compiled
# whole, and a call between kernels costs what the kernel is there to save (each says so at its
# head). Everywhere else a function stays under 80 lines and a class under 250.
LONGEST = {"function": 80, "class": 250}


def too_long(source: str, module: str) -> list[str]:
    """The functions and classes of `source` (module `module`) longer than LONGEST allows."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > LONGEST[kind]:
                found.append(f"{module}.{node.name}: a {kind} of {lines} lines")
    return found


def test_no_function_or_class_outgrows_its_room() -> None:
    """Outside the numba kernels, no function is over 80 lines and no class over 250."""
    found = [
        entry
        for path in sorted(PACKAGE.rglob("*.py"))
        if "kernels" not in path.parts
        for entry in too_long(path.read_text(), module_name(path))
    ]
    assert found == []


def test_the_size_check_notices_a_long_class_and_function() -> None:
    """A class of 251 lines and a function of 81 are both reported; 250 and 80 are not."""

    def lines(name: str, count: int) -> str:
        return "\n".join(f"    {name}{n} = {n}" for n in range(count))

    source = f"class Big:\n{lines('x', 250)}\n\n\ndef long():\n{lines('y', 80)}\n"
    assert too_long(source, "probe") == [
        "probe.Big: a class of 251 lines",
        "probe.long: a function of 81 lines",
    ]
    fitting = f"class Fits:\n{lines('x', 249)}\n\n\ndef short():\n{lines('y', 79)}\n"
    assert too_long(fitting, "probe") == []


def our_bases(node: ast.ClassDef, ours: set[str]) -> list[str]:
    """The bases of a class that are classes of ours (by name)."""
    return [ast.unparse(base) for base in node.bases if ast.unparse(base) in ours]


def test_no_class_of_the_web_extends_another_of_ours() -> None:
    """In `cardwar/web`, a class that grows becomes collaborators, never a parent and a child:
    no class extends another of ours, but an error (a kind of a kind of failure) and a request
    or message shape (pydantic models that share their fields)."""
    classes = {
        node.name: node
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef)
    }

    def kind(name: str) -> str:
        node = classes[name]
        bases = [ast.unparse(base) for base in node.bases]
        if any(base in ("BaseModel", "Exception") or base.endswith("Error") for base in bases):
            return "shape or error"
        return next((kind(base) for base in bases if base in classes), "ours")

    found = sorted(
        f"{path.relative_to(PACKAGE)}: {node.name}({', '.join(bases)})"
        for path in (PACKAGE / "web").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef)
        and (bases := our_bases(node, set(classes)))
        and any(kind(base) == "ours" for base in bases)
    )
    assert found == []


MOST_IN_A_FOLDER = 15


def test_every_folder_shows_its_parts_at_a_glance() -> None:
    """No folder of the package holds more than 15 modules: a part that grows becomes a folder
    of its own (the web's live tables, store, game, limits and routes each are one)."""
    crowded = sorted(
        f"{folder.relative_to(PACKAGE.parent)}: {count} modules"
        for folder in [PACKAGE, *(path for path in PACKAGE.rglob("*") if path.is_dir())]
        if (count := len(list(folder.glob("*.py")))) > MOST_IN_A_FOLDER
    )
    assert crowded == []

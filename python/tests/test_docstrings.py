"""The Python docstrings and the cheat sheet against the C++ public headers.

Every function and class of the module names the C++ function or type it wraps ("C++ abdyn::forwardDynamics"),
and that name must be declared in include/abdyn/; a docstring of a function whose C++ counterpart returns a
vector or a matrix states the shape of what it returns ("(nv,)", "(6, nv)"). docs/cheatsheet.md puts the
daily calls of both languages side by side: every Python name in it exists in the module, and every C++
call in it is declared in the headers.
"""

import functools
import inspect
import re

import pytest

import abdyn
from conftest import SOURCE_DIR

HEADERS = sorted((SOURCE_DIR / "include" / "abdyn").rglob("*.hpp"))
CHEATSHEET = SOURCE_DIR / "docs" / "cheatsheet.md"

# Python-only helpers with no C++ counterpart: what they are instead.
PYTHON_ONLY = {
    "abdyn.Data.__init__": "pybind11's constructor (the class docstring names C++ abdyn::Data)",
}


@functools.lru_cache(maxsize=None)
def header_text():
    # Comments are kept: a name mentioned only in a comment is not declared, so declarations are matched below.
    return "\n".join(path.read_text() for path in HEADERS)


@functools.lru_cache(maxsize=None)
def declared_names():
    """Names of the functions, types, enumerators and members the public headers declare."""
    text = header_text()
    names = set()
    code = "\n".join(line.split("//")[0] for line in text.splitlines())
    names.update(re.findall(r"\b(?:class|struct|enum class|enum|using)\s+([A-Za-z_]\w*)", code))
    names.update(re.findall(r"([A-Za-z_]\w*)\s*\(", code))  # functions, constructors, member functions
    names.update(re.findall(r"([A-Za-z_]\w*)\s*(?:=[^=;]*)?;", code))  # data members and constants
    names.update(re.findall(r"\b([A-Z]\w*)\s*,", code))  # enumerators
    names.update(re.findall(r"\b([A-Z]\w*)\s*}", code))
    return names


@functools.lru_cache(maxsize=None)
def return_kinds():
    """For each C++ free or member function: 'vector', 'matrix' or 'other', from its declarations."""
    kinds = {}
    code = "\n".join(line.split("//")[0] for line in header_text().splitlines())
    pattern = re.compile(r"^\s*(?:static\s+|inline\s+|ABDYN_ALWAYS_INLINE\s+)*(?:const\s+)?([\w:<>, ]+?)\s*&?\s+(\w+)\s*\(",
                         re.MULTILINE)
    for return_type, name in pattern.findall(code):
        if re.search(r"VectorXd|Vector3|Vector6|Vector4", return_type):
            kind = "vector"
        elif re.search(r"MatrixXd|Matrix6X|Matrix3X|Matrix3\b|Matrix6\b|Isometry3d", return_type):
            kind = "matrix"
        else:
            kind = "other"
        kinds.setdefault(name, set()).add(kind)
    return kinds


def documented_objects():
    """(qualified name, object) of every public function, class and method of the module and its submodules."""
    found = []
    modules = [("abdyn", abdyn)] + [("abdyn." + n, getattr(abdyn, n)) for n in ("rbdl", "brax", "pinocchio", "mujoco", "tds")]
    for prefix, module in modules:
        for name, obj in vars(module).items():
            if name.startswith("_") or inspect.ismodule(obj):
                continue
            if getattr(obj, "__module__", "abdyn").split(".")[0] not in ("abdyn", "builtins") and not callable(obj):
                continue
            if inspect.isbuiltin(obj) or inspect.isroutine(obj):
                if getattr(obj, "__module__", None) not in (None, "abdyn._abdyn", "abdyn") and prefix == "abdyn":
                    continue  # the pure-Python parts (abdyn.plot, abdyn.viewer) are not bindings
                found.append((f"{prefix}.{name}", obj))
            elif inspect.isclass(obj) and obj.__module__.startswith("abdyn") and not issubclass(obj, BaseException):
                found.append((f"{prefix}.{name}", obj))
                for member, value in vars(obj).items():
                    if member.startswith("__") and member != "__init__":
                        continue
                    if inspect.isroutine(value) and type(value).__name__ in ("instancemethod", "builtin_function_or_method"):
                        found.append((f"{prefix}.{name}.{member}", value))
    return found


BINDINGS = documented_objects()
CPP_NAME = re.compile(r"C\+\+\s+(?:abdyn::)?((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)")


def test_the_module_has_bindings_to_check():
    # The walk over the module must find the bindings, or the checks below would pass on nothing.
    names = {name for name, _ in BINDINGS}
    assert {"abdyn.forward_dynamics", "abdyn.frame_jacobian", "abdyn.Simulator", "abdyn.Simulator.step",
            "abdyn.rbdl.state_from_abdyn"} <= names
    assert len(BINDINGS) > 100


@pytest.mark.parametrize("name,obj", BINDINGS, ids=[name for name, _ in BINDINGS])
def test_docstring_names_a_declared_cpp_symbol(name, obj):
    doc = inspect.getdoc(obj) or ""
    if name in PYTHON_ONLY:
        return
    if inspect.isroutine(obj) and name.endswith(".__init__"):
        return  # constructors: the class's docstring names the type
    cited = CPP_NAME.findall(doc)
    owner_doc = ""
    if not cited and "." in name[len("abdyn."):]:
        # A method or property may rely on its class's docstring, which names the C++ type.
        owner = name.rsplit(".", 1)[0]
        owner_obj = dict(BINDINGS).get(owner)
        owner_doc = inspect.getdoc(owner_obj) or ""
        cited = CPP_NAME.findall(owner_doc)
    assert doc.strip(), f"{name} has no docstring"
    assert cited, f"{name}'s docstring names no C++ function or type: {doc[:120]!r}"
    declared = declared_names()
    for qualified in cited:
        leaf = qualified.split("::")[-1]
        assert leaf in declared, f"{name}'s docstring cites C++ {qualified}, which include/abdyn/ does not declare"


def test_cited_functions_exist_with_their_names():
    # The C++ name of a wrapped function is the Python name in camelCase (load_urdf: loadUrdf), or the
    # docstring says which C++ call it runs.
    declared = declared_names()
    mismatched = []
    for name, obj in BINDINGS:
        if not inspect.isroutine(obj) or name.count(".") != 1:
            continue
        leaf = name.split(".")[1]
        camel = re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), leaf)
        doc = inspect.getdoc(obj) or ""
        if camel in declared and camel not in doc:
            mismatched.append(f"{name} (C++ {camel} exists, the docstring cites {CPP_NAME.findall(doc)})")
    assert not mismatched, "docstrings that do not name their C++ function: " + "; ".join(mismatched)


def test_docstrings_state_the_shape_of_returned_arrays():
    # pybind11 puts the signature on the docstring's first line: "name(...) -> numpy.ndarray[...]".
    # A function returning an array (or a tuple of them) states the shape, e.g. "(nv,)" or "(6, nv)"; one
    # whose C++ counterpart returns a vector or matrix returns an array too, unless it leaves it in data.
    kinds = return_kinds()
    shape = re.compile(r"\((?:[A-Za-z0-9_ +*]+,\s*)+(?:[A-Za-z0-9_ +*]+)?\)")
    missing, disagreeing = [], []
    for name, obj in BINDINGS:
        if not inspect.isroutine(obj) or name.endswith("__init__"):
            continue
        doc = obj.__doc__ or ""
        signature, _, text = doc.partition("\n")
        returns = signature.rsplit("->", 1)[-1].strip() if "->" in signature else ""
        if returns.startswith(("numpy.ndarray", "tuple")) and not shape.search(text):
            missing.append(name)
        cited = [c.split("::")[-1] for c in CPP_NAME.findall(text)]
        if (returns == "None" and any(kinds.get(c, set()) & {"vector", "matrix"} for c in cited)
                and "into data" not in text):
            disagreeing.append(name)
    assert not missing, "docstrings without the shape of the array they return: " + ", ".join(missing)
    assert not disagreeing, ("functions returning nothing whose C++ counterpart returns an array: "
                             + ", ".join(disagreeing))


def cheatsheet_cells(column):
    """The code spans of one column (1: C++, 2: Python) of the cheat sheet's tables."""
    cells = []
    for line in CHEATSHEET.read_text().splitlines():
        parts = line.split("|")
        if len(parts) >= 5 and not set(parts[1].strip()) <= set("-") and parts[1].strip() != "what":
            cells.extend(re.findall(r"`([^`]+)`", parts[column + 1]))
    return cells


# The objects the cheat sheet's Python column calls methods and fields on.
CHEATSHEET_INSTANCES = {
    "model": lambda: abdyn.Model,
    "sim": lambda: abdyn.Simulator,
    "s": lambda: abdyn.SimulatorSettings,
    "cd": lambda: abdyn.ConstrainedData,
}


def test_cheatsheet_python_names_exist(arm):
    cells = cheatsheet_cells(2)
    assert len(cells) > 30
    checked = 0
    for cell in cells:
        for dotted in re.findall(r"\b(abdyn(?:\.\w+)+)", cell):
            obj = abdyn
            for part in dotted.split(".")[1:]:
                assert hasattr(obj, part), f"docs/cheatsheet.md: {dotted} does not exist ({cell!r})"
                obj = getattr(obj, part)
            checked += 1
        for instance, member in re.findall(r"(?<![\w.])(model|sim|s|cd)\.(\w+)", cell):
            owner = CHEATSHEET_INSTANCES[instance]()
            target = arm if instance == "model" else owner
            assert hasattr(target, member), f"docs/cheatsheet.md: {instance}.{member} ({owner.__name__}) does not exist"
            checked += 1
        joint = re.search(r"model\.joint\(i\)\.(\w+)", cell)
        if joint:
            assert hasattr(arm.joint(1), joint.group(1))
    assert checked > 40


def test_cheatsheet_cpp_calls_are_declared():
    declared = declared_names()
    cells = cheatsheet_cells(1)
    assert len(cells) > 30
    calls = set()
    for cell in cells:
        # A construction `Type name(args)` names the type, not a call of `name`.
        constructed = dict((var, t) for t, var in re.findall(r"\b([A-Z]\w*)\s+(\w+)\s*\(", cell))
        calls.update(constructed.values())
        calls.update(c for c in re.findall(r"(?<![\w.])([A-Za-z_]\w*)\s*\(", cell) if c not in constructed)
        calls.update(re.findall(r"\.([A-Za-z_]\w*)\s*\(", cell))  # member functions
        calls.update(re.findall(r"data\.(\w+)", cell))  # results in Data
    keywords = {"if", "for", "while", "return", "sizeof"}
    unknown = sorted(c for c in calls - keywords if c not in declared)
    assert not unknown, f"docs/cheatsheet.md names C++ calls the headers do not declare: {unknown}"

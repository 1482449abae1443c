"""The store's modules hold no function over 60 lines: a longer one does more than one
thing. Measured from a function's first line (its first decorator) to its last, docstring
included."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 60
STORE_MODULES = (
    "gateway/store.py",
    "gateway/store_sets.py",
    "gateway/commit_script.py",
    "gateway/log_record.py",
    "gateway/archive_format.py",
    "gateway/framing.py",
)


def long_functions(source: str) -> dict[str, int]:
    """Each function of ``source`` over LIMIT lines, by name, with its length."""
    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            end = node.end_lineno or node.lineno
            if end - start + 1 > LIMIT:
                found[node.name] = end - start + 1
    return found


def test_the_measure_sees_a_long_function():
    body = "\n".join(f"        x{n} = {n}" for n in range(LIMIT))
    source = f"def short():\n    return 1\n\n\nclass C:\n    @staticmethod\n    async def long():\n{body}\n"
    assert long_functions(source) == {"long": LIMIT + 2}


def test_no_store_function_is_over_the_limit():
    found = {
        f"{name}:{function}": lines
        for name in STORE_MODULES
        for function, lines in long_functions((ROOT / name).read_text()).items()
    }
    assert not found, f"split these (at most {LIMIT} lines a function): {found}"

"""Cheaper construction of the frozen dataclasses engines are made of.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``,
looked up anew for every field; states, events, views and actions are built at every
decision, and that was a large part of an engine's cost. ``fast_inits`` gives each frozen
dataclass of a module an ``__init__`` with the same signature, defaults and
``__post_init__`` call that writes the fields directly (into the instance dict, or through
the slot descriptors). Nothing else changes: instances stay frozen, equal, hashable and
printable as before.
"""

import dataclasses
import sys
from dataclasses import MISSING


def fast_init(cls: type) -> None:
    """Replace ``cls``'s generated ``__init__`` (a frozen dataclass defined without
    ``init=False`` fields, default factories or init-only variables)."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen and params.init, f"{cls.__name__} is no frozen dataclass with an __init__"
    declared = cls.__dataclass_fields__  # type: ignore[attr-defined]
    fields = dataclasses.fields(cls)
    if len(fields) != len(declared) or any(not f.init or f.default_factory is not MISSING for f in fields):
        raise TypeError(f"{cls.__name__}: only plain fields get a fast __init__")
    namespace: dict[str, object] = {}
    arguments, body = [], []
    for f in fields:
        if f.default is MISSING:
            arguments.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            arguments.append(f"{f.name}=_default_{f.name}")
    if "__slots__" in cls.__dict__:
        for f in fields:
            namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
            body.append(f"_set_{f.name}(self, {f.name})")
    elif fields:
        body.append("values = self.__dict__")
        body.extend(f"values[{f.name!r}] = {f.name}" for f in fields)
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(arguments)}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"  # type: ignore[attr-defined]
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}  # as introspection saw them
    cls.__init__ = init  # type: ignore[misc]


def fast_inits(module_name: str) -> None:
    """``fast_init`` every frozen dataclass defined in the module ``module_name``."""
    for value in list(vars(sys.modules[module_name]).values()):
        if (
            isinstance(value, type)
            and value.__module__ == module_name
            and dataclasses.is_dataclass(value)
            and value.__dataclass_params__.frozen  # type: ignore[attr-defined]
        ):
            fast_init(value)

"""The static registry: which loader modules a file needs, which rule modules a workspace needs.

A one-file run must not import every loader and rule (issue 14: start-up under 120 ms). What each
loader reads (suffixes, exact names, a :mod:`netlint.loader_names` predicate) and what each rule
needs in the workspace (``Rule.needs``) is kept as data in :mod:`netlint.registry_data`, generated
from the classes themselves::

    python -m netlint.registry          # rewrite netlint/registry_data.py
    python -m netlint.registry --check  # exit 1 when it is stale (a test runs the same comparison)

The defaults of netlint's settings are kept there too, so a run without a configuration file needs
no pydantic (netlint/config_file.py).

A run asks this module which loaders want a file name, imports only their modules, and after the
join imports only the rules whose needs the workspace meets. The order is that of the full import
(module name order), so findings come out exactly as when everything is imported.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from netlint import loader_names

if TYPE_CHECKING:
    from netlint.loaders.base import Loader
    from netlint.rules.base import Rule
    from netlint.workspace import Workspace

DATA = Path(__file__).with_name("registry_data.py")


# -- loaders -------------------------------------------------------------------------------------

def _data():
    from netlint import registry_data

    return registry_data


def _extra_loaders() -> list["Loader"]:
    """Loaders registered by code outside netlint's package (a test, a plug-in) before the run."""
    from netlint.loaders.base import REGISTRY

    modules = _data().LOADER_MODULES
    return [loader for lname, loader in REGISTRY.items() if lname not in modules]


def wanting(name: str, suffix: str) -> list[str]:
    """Names of the loaders that read files called ``name`` (suffix lower case, with its dot)."""
    out = [l.name for l in _extra_loaders() if l.wants(name, suffix)]
    for lname, _module, _kind, suffixes, filenames, wants_by in _data().LOADERS:
        if wants_by:
            if getattr(loader_names, wants_by)(name, suffix):
                out.append(lname)
        elif suffix in suffixes or name in filenames:
            out.append(lname)
    return out


def wants_any(name: str, suffix: str) -> bool:
    return bool(wanting(name, suffix))


def owns_name(name: str) -> bool:
    """A name some format owns (``inventory.yaml``): such a file is reported on when it is unreadable."""
    return any(name in row[4] for row in _data().LOADERS) or any(name in l.filenames for l in _extra_loaders())


def loaders_for(name: str, suffix: str) -> list["Loader"]:
    """The loaders that want this file name, their modules imported, in registration order."""
    from netlint.loaders.base import REGISTRY

    out = []
    modules = _data().LOADER_MODULES
    for lname in wanting(name, suffix):
        loader = REGISTRY.get(lname)  # built in and imported already, or registered from outside
        if loader is None:
            importlib.import_module(modules[lname])
            loader = REGISTRY[lname]
        out.append(loader)
    return out


def loader_names_of_kind(kind: str) -> list[str]:
    return [l.name for l in _extra_loaders() if l.kind == kind] + [row[0] for row in _data().LOADERS if row[2] == kind]


# -- rules ---------------------------------------------------------------------------------------

def present(ws: "Workspace") -> set[str]:
    """The kinds of what the workspace holds, as ``Rule.needs`` names them."""
    kinds = {k for k in ("nics", "nccl_envs", "jobs", "templates", "pins", "runs") if getattr(ws, k, None)}
    if ws.inventory is not None:
        kinds.add("inventory")
    if ws.switches or ws.switch_tables:
        kinds.add("switches")
    settings = getattr(ws.config, "settings", None)
    if getattr(settings, "nccl_version", None):
        kinds.add("nccl-version")
    return kinds


def meets(needs: tuple[tuple[str, ...], ...], kinds: set[str]) -> bool:
    return all(any(k in kinds for k in group) for group in needs)


def rules_for(ws: "Workspace") -> dict[str, type["Rule"]]:
    """The rules that can find something in ``ws`` (their modules imported), in code order."""
    from netlint.rules.base import REGISTRY, _code_order

    kinds = present(ws)
    static = _data().RULES
    builtin = {row[0] for row in static}
    out = {code: cls for code, cls in REGISTRY.items() if code not in builtin}  # a test's, a plug-in's
    for code, module, needs in static:
        if not meets(needs, kinds):
            continue
        if code not in REGISTRY:
            importlib.import_module(module)
        out[code] = REGISTRY[code]
    return dict(sorted(out.items(), key=lambda kv: _code_order(kv[0])))


def rule_codes() -> tuple[str, ...]:
    """Every built-in rule code, in code order, without importing a rule."""
    return tuple(row[0] for row in _data().RULES)


# -- generation ----------------------------------------------------------------------------------

def generate() -> str:
    """The text of registry_data.py, read from every loader and rule class (all imported)."""
    from netlint.loaders.base import load_loaders
    from netlint.rules.base import load_rules

    loaders = []
    for lname, loader in load_loaders().items():
        cls = type(loader)
        if cls.wants_by and not callable(getattr(loader_names, cls.wants_by, None)):
            raise RuntimeError(f"loader {lname}: wants_by {cls.wants_by!r} is no netlint.loader_names function")
        if not cls.wants_by and type(loader).wants is not _base_wants():
            raise RuntimeError(f"loader {lname} overrides wants(): name a netlint.loader_names predicate "
                               f"in wants_by instead, so the registry can ask it without the import")
        loaders.append((lname, cls.__module__, cls.kind, tuple(cls.suffixes), tuple(cls.filenames), cls.wants_by))
    rules = []
    for code, cls in load_rules().items():
        needs = _needs_of(cls)
        rules.append((code, cls.__module__, needs))
    lines = ['"""Generated by ``python -m netlint.registry`` from the loader and rule classes: do not edit.',
             "",
             "LOADERS: (name, module, kind, suffixes, file names, netlint.loader_names predicate or ''), in",
             "registration order. RULES: (code, module, needs), in code order; needs are groups of workspace",
             'kinds, one of each group present (netlint.registry.present), () = always run."""',
             "",
             "LOADERS = ("]
    lines += [f"    {row!r}," for row in loaders]
    lines += [")", "", "RULES = ("]
    lines += [f"    {row!r}," for row in rules]
    lines += [")", "", "LOADER_MODULES = {row[0]: row[1] for row in LOADERS}", "",
              "# netlint.config.Settings().model_dump() without limits (netlint.limits.DEFAULT): the settings",
              "# of a run without a configuration file (netlint.config_file.DefaultSettings).",
              f"SETTINGS_DEFAULTS = {_settings_defaults()!r}", "",
              "# How each key of a configuration file is read without pydantic: key (alias or name) -> (field,",
              "# kind); kind None: pydantic validates it (netlint.config_file.plain_settings).",
              f"SETTINGS_FIELDS = {_settings_fields()!r}", ""]
    return "\n".join(lines)


def _settings_defaults() -> dict:
    from netlint.config import Settings

    defaults = Settings().model_dump()
    defaults.pop("limits")
    return defaults


def _settings_fields() -> dict:
    from netlint.config import Settings

    out = {}
    for name, info in Settings.model_fields.items():
        kind = None if info.metadata else _kind(info.annotation)
        for key in dict.fromkeys((info.alias or name, name)):
            out[key] = (name, kind)
    return out


def _kind(tp) -> str | tuple | None:
    """A setting's type as plain data when values of exactly that type are taken by pydantic as they
    are; None for anything else (constraints, nested models, numbers)."""
    import types
    import typing

    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is str or tp is bool:
        return tp.__name__
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and args[1] is type(None) and args[0] is str:
        return "str?"
    if origin is typing.Literal and all(isinstance(a, str) for a in args):
        return ("literal", args)
    if origin is list and args == (str,):
        return "list[str]"
    if origin is dict and args[:1] == (str,):
        value = args[1]
        if typing.get_origin(value) is list and typing.get_args(value) == (str,):
            return "dict[str,list[str]]"
        if typing.get_origin(value) is typing.Literal and all(isinstance(a, str) for a in typing.get_args(value)):
            return ("dict[str,literal]", typing.get_args(value))
        if typing.get_origin(value) is dict and typing.get_args(value) == (str, typing.Any):
            return "dict[str,dict]"
    return None


def _base_wants():
    from netlint.loaders.base import Loader

    return Loader.wants


def _needs_of(cls: type) -> tuple[tuple[str, ...], ...]:
    """The rule's own ``needs``, else its family package's ``NEEDS`` (netlint/rules/<family>/__init__.py)."""
    needs = getattr(cls, "needs", None)
    if needs is None:
        family = cls.__module__.rsplit(".", 1)[0]
        needs = getattr(sys.modules[family], "NEEDS", ())
    return tuple(tuple(group) for group in needs)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = generate()
    if "--check" in argv:
        current = DATA.read_text(encoding="utf-8") if DATA.exists() else ""
        if current != text:
            sys.stderr.write(f"{DATA} is stale: run python -m netlint.registry\n")
            return 1
        return 0
    DATA.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

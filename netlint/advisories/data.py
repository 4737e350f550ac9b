"""``netlint/data/advisories.yaml`` as typed objects, read once per process.

Versions compare as tuples of integers (``2.18.3-1`` → (2, 18, 3); ``v1.8.0-aws`` → (1, 8, 0)); a range
is a comma list of ``>=``, ``>``, ``<=``, ``<``, ``==`` bounds, all of which must hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "advisories.yaml"
SCHEMA_FILE = Path(__file__).resolve().parent.parent / "schemas" / "advisories.schema.json"  # package data

_VERSION = re.compile(r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")
_BOUND = re.compile(r"\s*(>=|<=|==|<|>)\s*([\d.]+)\s*")


def version(text: str | None) -> tuple[int, ...] | None:
    if not text:
        return None
    m = _VERSION.match(str(text).strip())
    if not m:
        return None
    return tuple(int(g) for g in m.groups() if g is not None)


def _cmp(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    n = max(len(a), len(b))
    a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (a > b) - (a < b)


def in_range(v: tuple[int, ...], spec: str) -> bool:
    for part in spec.split(","):
        m = _BOUND.fullmatch(part)
        if m is None:
            return False
        op, bound = m.group(1), version(m.group(2))
        c = _cmp(v, bound)
        if not {">=": c >= 0, ">": c > 0, "<=": c <= 0, "<": c < 0, "==": c == 0}[op]:
            return False
    return True


def at_least(v: tuple[int, ...], other: str | None) -> bool:
    o = version(other)
    return o is not None and _cmp(v, o) >= 0


@dataclass(frozen=True)
class Setting:
    variable: str
    value: str

    def matches(self, value: str | None) -> bool:
        """Does an assignment's value equal this one (case-insensitively, blanks trimmed)?"""
        return value is not None and value.strip().lower() == self.value.lower()

    def __str__(self) -> str:
        return f"{self.variable}={self.value}"


@dataclass(frozen=True)
class Advisory:
    id: str
    library: str
    affected: str
    fixed: str | None
    severity: str
    symptom: str
    hardware: str
    gpus: tuple[str, ...]
    transport: tuple[str, ...]
    nvls: bool | None
    settings: tuple[Setting, ...]
    workaround: tuple[Setting, ...]
    sources: tuple[str, ...]
    api: str = ""  # a call the application must make (netlint cannot see calls: info, naming it)

    def affects(self, v: tuple[int, ...]) -> bool:
        return in_range(v, self.affected)


@dataclass(frozen=True)
class Advisories:
    advisories: tuple[Advisory, ...]
    images: dict[tuple[str, str], tuple[str, str]]       # (image, tag) -> (nccl version, source)
    packages: tuple[dict, ...]

    def for_library(self, library: str, v: tuple[int, ...]) -> list[Advisory]:
        return [a for a in self.advisories if a.library == library and a.affects(v)]

    def image_nccl(self, image: str, tag: str) -> tuple[str, str] | None:
        return self.images.get((image, tag))

    def package_nccl(self, package: str, pinned: str) -> tuple[str, str] | None:
        """The NCCL release a pinned pip package brings, with the source that says so."""
        v = version(pinned)
        if v is None:
            return None
        for row in self.packages:
            if row["package"] != package.lower():
                continue
            if row.get("versions") and not in_range(v, row["versions"]):
                continue
            return (pinned if row["nccl"] == "same" else row["nccl"]), row["source"]
        return None


def _settings(rows) -> tuple[Setting, ...]:
    return tuple(Setting(r["variable"], str(r["value"])) for r in rows or ())


def parse(doc: dict) -> Advisories:
    out = []
    for a in doc.get("advisories", ()):
        when = a.get("when") or {}
        out.append(Advisory(
            id=a["id"], library=a["library"], affected=a["affected"], fixed=a.get("fixed"),
            severity=a["severity"], symptom=" ".join(a["symptom"].split()), hardware=when.get("hardware", ""),
            gpus=tuple(when.get("gpus", ())), transport=tuple(when.get("transport", ())), nvls=when.get("nvls"),
            settings=_settings(when.get("settings")), workaround=_settings(a.get("workaround")),
            sources=tuple(a["sources"]), api=when.get("api", "")))
    images = {(r["image"], str(r["tag"])): (str(r["nccl"]), r["source"]) for r in doc.get("images", ())}
    return Advisories(tuple(out), images, tuple(doc.get("packages", ())))


@cache
def advisories() -> Advisories:
    import yaml

    return parse(yaml.load(DATA_FILE.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))

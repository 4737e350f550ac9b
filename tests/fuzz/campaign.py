"""A long fuzz campaign that counts instead of stopping: every family of families.py (and damaged
corpus files when ../shared is present) for N random examples each, recording each input that makes
netlint fail (NL000, an exception, an incomplete output) without shrinking it.

    python tests/fuzz/campaign.py --examples 100000 [--family sonic ...] [--minutes 60] [--out DIR]

It prints one line per family: examples run, failures, seconds. Failing inputs are written to
``--out`` (one JSON file each) to be turned into regression tests. CI runs the bounded, shrinking
pytest harness instead (test_fuzz_families.py); this is for the figures of a long run."""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


class Tally:
    def __init__(self, out: Path | None):
        self.examples = 0
        self.failures = 0
        self.kinds: dict[str, int] = {}
        self.out = out

    def record(self, family: str, files: dict, error: BaseException) -> None:
        self.failures += 1
        kind = f"{type(error).__name__}: {str(error).splitlines()[0][:120] if str(error) else ''}"
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if self.out is not None and self.kinds[kind] <= 3:  # a few inputs of each kind are enough
            self.out.mkdir(parents=True, exist_ok=True)
            (self.out / f"{family}-{self.failures}.json").write_text(json.dumps(
                {"files": files, "error": traceback.format_exception(error)}, ensure_ascii=True))


def run_family(family: str, strategy, examples: int, deadline: float, tally: Tally) -> None:
    from hypothesis import HealthCheck, Phase, given, settings

    from fuzz_harness import lint_repo

    class OutOfTime(Exception):
        pass

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(files=strategy)
    def check(files):
        if time.monotonic() > deadline:
            raise OutOfTime
        tally.examples += 1
        try:
            lint_repo(files)
        except Exception as error:  # counted, never shrunk: the campaign wants the rate
            tally.record(family, files, error)

    try:
        check()
    except BaseException as error:  # noqa: BLE001 - the deadline only; Hypothesis may wrap it
        # Hypothesis replays the example that raised; the clock has not gone back, so it calls the
        # replay flaky and raises a group holding the OutOfTime.
        if not _is_out_of_time(error, OutOfTime):
            raise


def _is_out_of_time(error: BaseException, kind: type) -> bool:
    if isinstance(error, kind):
        return True
    return any(_is_out_of_time(e, kind) for e in getattr(error, "exceptions", ()))


def corpus_strategy():
    """Damaged corpus files (test_fuzz_corpus.py's mutation), when ../shared is beside the project."""
    from hypothesis import strategies as st

    import test_fuzz_corpus as corpus_test

    root = HERE.parents[2] / "shared"
    if not (root / "corpus").is_dir():
        return None

    class Shared:
        def __truediv__(self, name):
            return root / name

    corpus = corpus_test._corpus(Shared())

    @st.composite
    def damaged(draw):
        rng = draw(st.randoms(use_true_random=True))
        rel, text = corpus[draw(st.integers(0, len(corpus) - 1))]
        folder = rel.rsplit("/", 1)[0]
        files = {r.rsplit("/", 1)[-1]: t for r, t in corpus if r.rsplit("/", 1)[0] == folder and r != rel
                 and rng.random() < 0.3}
        files[rel.rsplit("/", 1)[-1]] = corpus_test._damage(rng, text)
        return files

    return damaged()


def main(argv=None) -> int:
    from families import FAMILIES, with_inventory

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--family", action="append", help="only these families (repeatable)")
    parser.add_argument("--minutes", type=float, default=0, help="time budget per family (0: none)")
    parser.add_argument("--out", type=Path, default=None, help="folder for failing inputs")
    args = parser.parse_args(argv)

    families = dict(FAMILIES)
    corpus = corpus_strategy()
    if corpus is not None:
        families["corpus"] = corpus
    total_failures = 0
    for family in args.family or sorted(families):
        strategy = families[family]
        if family not in ("inventory", "policies", "corpus"):
            strategy = with_inventory(strategy)
        tally = Tally(args.out)
        start = time.monotonic()
        deadline = start + args.minutes * 60 if args.minutes else float("inf")
        run_family(family, strategy, args.examples, deadline, tally)
        total_failures += tally.failures
        print(f"{family:14} examples {tally.examples:7d}  failures {tally.failures:4d}  "
              f"{time.monotonic() - start:7.1f} s", flush=True)
        for kind, count in sorted(tally.kinds.items(), key=lambda kv: -kv[1]):
            print(f"    {count:5d} × {kind}", flush=True)
    return 1 if total_failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""Try the other fillings of a `verify: run` blanks item, many per sandbox job.

A blanks item is only proven when its key runs and no other filling does: otherwise a learner who
picks that other filling is marked wrong for code that works. The proof tries every filling when
there are at most `ALL_FILLINGS_UP_TO`, else every filling that differs from the key in exactly one
blank.

Running each filling as a sandbox job of its own would cost a fork and a result round trip per
filling (thousands per course), so the fillings go in batches: one job runs a small driver that
executes each filling of its batch in a fresh `__main__` module, restoring the global state a
template may change (random generators, grad mode, default dtype, warning filters, print options)
between fillings, and prints one tagged line per filling. A batch stops starting fillings after
`BATCH_BUDGET_S`, and whatever it did not report is batched again (a filling that alone stops a
job is run as a job of its own). The driver is a screen: every filling it finds running cleanly is
run again as an ordinary job, exactly as a learner's answer would be, before it counts.
"""

from __future__ import annotations

import itertools
import json
import secrets
from dataclasses import dataclass

from .models import BLANK, BlanksQuestion

ALL_FILLINGS_UP_TO = 500
BATCH_SIZE = 60  # fillings per job; most fail at once, a few run a short training loop
BATCH_BUDGET_S = 5.0  # a batch starts no filling after this many seconds (the job limit is 10 s)
EACH_FILLING_S = 4.0  # one filling's own limit inside a batch

Filling = dict[int, str]


def fillings_to_try(question: BlanksQuestion) -> list[Filling]:
    """Return the fillings to try besides the key and the `also_correct` entries, in a fixed order."""
    blanks = question.blanks()
    right = question.right_fillings()
    if len(question.options) ** len(blanks) <= ALL_FILLINGS_UP_TO:
        every = (dict(zip(blanks, combo, strict=True)) for combo in itertools.product(question.options, repeat=len(blanks)))
        return [f for f in every if f not in right]
    found: list[Filling] = []
    for number in blanks:
        for option in question.options:
            if option != question.answers[number]:
                changed = {**question.answers, number: option}
                if changed not in right:
                    found.append(changed)
    return found


def describe(question: BlanksQuestion, filling: Filling) -> str:
    """Show a filling the way an author writes it in `answers`: {1: "a", 2: "b"}."""
    return "{" + ", ".join(f"{n}: {json.dumps(filling[n])}" for n in sorted(question.blanks())) + "}"


_DRIVER = r'''
import io, json, random, re, signal, sys, time, types, warnings
import torch

TEMPLATE = json.loads(__TEMPLATE__)
OPTIONS = json.loads(__OPTIONS__)
BLANKS = json.loads(__BLANKS__)
FILLINGS = json.loads(__FILLINGS__)
TAG = __TAG__
BLANK = re.compile(r"\{\{\s*(\d{1,9})\s*\}\}")


class Late(BaseException):
    pass


def late(signum, frame):
    raise Late()


signal.signal(signal.SIGALRM, late)
saved = {
    "rng": torch.get_rng_state(),
    "py": random.getstate(),
    "np": sys.modules["numpy"].random.get_state() if "numpy" in sys.modules else None,
    "grad": torch.is_grad_enabled(),
    "dtype": torch.get_default_dtype(),
    "filters": list(warnings.filters),
    "anomaly": torch.is_anomaly_enabled(),
    "deterministic": torch.are_deterministic_algorithms_enabled(),
    "main": sys.modules.get("__main__"),
    "out": sys.stdout,
    "err": sys.stderr,
}


def restore():
    torch.set_rng_state(saved["rng"])
    random.setstate(saved["py"])
    if saved["np"] is not None:
        sys.modules["numpy"].random.set_state(saved["np"])
    torch.set_grad_enabled(saved["grad"])
    torch.set_default_dtype(saved["dtype"])
    warnings.filters[:] = saved["filters"]
    torch.autograd.set_detect_anomaly(saved["anomaly"])
    torch.use_deterministic_algorithms(saved["deterministic"])
    torch.set_printoptions(profile="default")
    sys.modules["__main__"] = saved["main"]
    sys.stdout, sys.stderr = saved["out"], saved["err"]


began = time.monotonic()
for index, choice in enumerate(FILLINGS):
    if time.monotonic() - began > __BUDGET__:
        break
    values = {number: OPTIONS[option] for number, option in zip(BLANKS, choice)}
    source = BLANK.sub(lambda m: values.get(int(m.group(1)), m.group(0)), TEMPLATE)
    module = types.ModuleType("__main__")
    module.__file__ = "filling.py"
    ok = False
    try:
        sys.modules["__main__"] = module
        sys.stdout = sys.stderr = io.StringIO()
        signal.setitimer(signal.ITIMER_REAL, __EACH__)
        try:
            exec(compile(source, "filling.py", "exec", dont_inherit=True), module.__dict__)
            ok = True
        except SystemExit as exc:
            ok = exc.code in (None, 0)
        except BaseException:
            ok = False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        restore()
    print(TAG, index, "ok" if ok else "no", flush=True)
'''


@dataclass(frozen=True)
class Batch:
    """One driver job: the source to run and the fillings it covers, in order."""

    code: str
    tag: str
    fillings: tuple[Filling, ...]

    def read(self, stdout: str) -> dict[int, bool]:
        """Return, by position in `fillings`, whether each reported filling ran cleanly."""
        found: dict[int, bool] = {}
        for line in stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[0] == self.tag and parts[1].isdigit() and parts[2] in ("ok", "no"):
                index = int(parts[1])
                if index < len(self.fillings):
                    found[index] = parts[2] == "ok"
        return found


def batch(question: BlanksQuestion, fillings: list[Filling]) -> Batch:
    """Build the driver job that screens `fillings` of `question`."""
    blanks = question.blanks()
    position = {option: i for i, option in enumerate(question.options)}
    tag = "filling-" + secrets.token_hex(8)
    code = (
        _DRIVER.replace("__TEMPLATE__", repr(json.dumps(question.code)))
        .replace("__OPTIONS__", repr(json.dumps(question.options)))
        .replace("__BLANKS__", repr(json.dumps(blanks)))
        .replace("__FILLINGS__", repr(json.dumps([[position[f[n]] for n in blanks] for f in fillings])))
        .replace("__TAG__", repr(tag))
        .replace("__BUDGET__", repr(BATCH_BUDGET_S))
        .replace("__EACH__", repr(EACH_FILLING_S))
    )
    return Batch(code=code, tag=tag, fillings=tuple(fillings))


def chunks(fillings: list[Filling], size: int = BATCH_SIZE) -> list[list[Filling]]:
    """Split fillings into batches of at most `size`."""
    return [fillings[i : i + size] for i in range(0, len(fillings), size)]


__all__ = ["ALL_FILLINGS_UP_TO", "BLANK", "Batch", "Filling", "batch", "chunks", "describe", "fillings_to_try"]

#!/usr/bin/env python3
"""Compare two JSON reports of `grader grade`, times aside.

Usage: scripts/compare-report.py BEFORE.json AFTER.json
       scripts/compare-report.py --normalize REPORT.json > BASELINE.json

A refactor must not change a report: run the bundled job before and after
(`cargo run --release -- grade submissions --cases cases --json PATH`) and
compare. Fields that hold a measured time (`time_ms`, and any key naming a
wall clock, a duration or an elapsed time, among them each test's time limit,
a multiple of the lab's listing's time on the host) are dropped before
comparing, since they differ between any two runs, and so do figures measured
inside a message ("having used 3 ms of CPU", "the time limit of 250 ms", "it
spent 1502 ms without using ... a CPU") and the thread id of a Rust panic,
which are masked; so is `reruns`, how often a test was timed again because
the host was too busy (the verdict must not move with it). Which clock ended
a timeout is not masked: the CPU limit and the time spent not runnable are
both independent of the host's load, so a difference there is a difference.
Every other difference is printed with its path in the document, e.g.
`submissions[3](c-leftover.c).tests[7].verdict`.

The `run` section's fields that describe the host and the moment rather
than the grading (`grader`, the version; `started`; `safeguards`, which
differ between a root CI runner and a laptop) are dropped too.

`--normalize` prints a report as it is compared: that is how the committed
baseline of the bundled run, tests/baseline/bundled-run.json, is written
(scripts/update-baseline), and CI compares every run against it.

Exit code: 0 the same, 1 some difference, 2 bad usage or unreadable input.
"""

import json
import re
import sys

# Keys that hold a measured time: `time_ms`, `wall_ms`, `elapsed`, `duration_s`, ...
TIMING_KEY = re.compile(r"(^|_)(time|times|wall|elapsed|duration|seconds|ms)(_|$)", re.IGNORECASE)


# Figures measured by the grader, or set by the machine, inside text:
# the CPU and wall-clock milliseconds of a timeout message, the thread id a
# Rust panic message prints, code addresses in a backtrace (which move
# with address-space randomisation and with every rebuild), and the run of
# symbol-less frames below a student's panic (the grader's own worker
# stack: how deep it is changes with the grader's code, not the student's).
MEASURED_IN_TEXT = [
    (re.compile(r"(having used )\d+( ms of CPU)"), r"\1<measured>\2"),
    (re.compile(r"(time limit of )\d+( ms)"), r"\1<limit>\2"),
    (re.compile(r"(it spent )\d+( ms without using)"), r"\1<measured>\2"),
    (re.compile(r"(more than the )\d+( ms of its time limit)"), r"\1<limit>\2"),
    (re.compile(r"(thread '[^']*' \()\d+(\))"), r"\1<tid>\2"),
    (re.compile(r"\b0x[0-9a-f]{6,}\b"), "<address>"),
    (re.compile(r"(?:[ ]*\d+:[ ]+(?:<address>|0x0) - <unknown>\n)+"), "  <frames>\n"),
]

# Keys whose value depends on the host's load, not on the grading.
LOAD_KEYS = ("reruns",)


# Fields of the top-level `run` section that describe the host or the
# moment, not the grading.
HOST_KEYS = ("grader", "started", "safeguards")


def host_neutral(report):
    """The report without the `run` fields that differ between hosts."""
    if isinstance(report, dict) and isinstance(report.get("run"), dict):
        report = dict(report)
        report["run"] = {k: v for k, v in report["run"].items() if k not in HOST_KEYS}
    return report


def is_timing_key(key):
    return bool(TIMING_KEY.search(key))


def strip_times(value):
    """The value with every timing key removed and measured figures masked,
    at any depth."""
    if isinstance(value, dict):
        return {
            k: strip_times(v)
            for k, v in value.items()
            if not is_timing_key(k) and k not in LOAD_KEYS
        }
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    if isinstance(value, str):
        for pattern, replacement in MEASURED_IN_TEXT:
            value = pattern.sub(replacement, value)
        return value
    return value


def label(item):
    """A short name for a list element, so a path says which one it is."""
    if isinstance(item, dict):
        if "id" in item:
            return f"({item['id']})"
        if "case" in item and "function" in item:
            return f"({item['case']}/{item['function']})"
    return ""


def differences(before, after, path="$"):
    """Yields one line per difference between two JSON values."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before:
            if key not in after:
                yield f"{path}.{key}: only in the first report: {json.dumps(before[key])[:200]}"
        for key in after:
            if key not in before:
                yield f"{path}.{key}: only in the second report: {json.dumps(after[key])[:200]}"
        for key in before:
            if key in after:
                yield from differences(before[key], after[key], f"{path}.{key}")
    elif isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            yield f"{path}: {len(before)} entries in the first report, {len(after)} in the second"
        for i, (b, a) in enumerate(zip(before, after)):
            yield from differences(b, a, f"{path}[{i}]{label(b)}")
    elif isinstance(before, str) and isinstance(after, str) and before != after:
        yield f"{path}: {excerpt(before, after)}"
    elif before != after or type(before) is not type(after):
        yield f"{path}: {json.dumps(before)[:300]} -> {json.dumps(after)[:300]}"


def excerpt(before, after, context=60):
    """Two strings around their first difference, for a readable line."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    start = max(0, start - context)
    cut = lambda text: ("..." if start else "") + json.dumps(text[start:start + 4 * context])[1:-1]
    return f'"{cut(before)}" -> "{cut(after)}"'


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"error: cannot read the report {path}: {e}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    normalize = "--normalize" in argv[1:]
    paths = [a for a in argv[1:] if a != "--normalize"]
    if normalize and len(paths) == 1:
        json.dump(strip_times(host_neutral(load(paths[0]))), sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    if normalize or len(paths) != 2:
        print(
            "usage: compare-report.py BEFORE.json AFTER.json\n"
            "       compare-report.py --normalize REPORT.json",
            file=sys.stderr,
        )
        return 2
    before, after = (strip_times(host_neutral(load(p))) for p in paths)
    found = 0
    for line in differences(before, after):
        print(line)
        found += 1
    if found:
        print(f"{found} difference(s), times aside", file=sys.stderr)
        return 1
    print("same, times aside", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

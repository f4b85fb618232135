#!/usr/bin/env python3
"""Compare two JSON reports of `grader grade`, times aside.

Usage: scripts/compare-report.py BEFORE.json AFTER.json

A refactor must not change a report: run the bundled job before and after
(`cargo run --release -- grade submissions --cases cases --json PATH`) and
compare. Fields that hold a measured time (`time_ms`, and any key naming a
wall clock, a duration or an elapsed time) are dropped before comparing, since
they differ between any two runs, and so does a figure measured by the
grader inside a message ("having used 3 ms of CPU"), which is replaced by
`<measured>`. Every other difference is printed with its
path in the document, e.g. `submissions[3](c-leftover.c).tests[7].verdict`.

Exit code: 0 the same, 1 some difference, 2 bad usage or unreadable input.
"""

import json
import re
import sys

# Keys that hold a measured time: `time_ms`, `wall_ms`, `elapsed`, `duration_s`, ...
TIMING_KEY = re.compile(r"(^|_)(time|times|wall|elapsed|duration|seconds|ms)(_|$)", re.IGNORECASE)


# Figures measured by the grader that appear inside message text.
MEASURED_IN_TEXT = re.compile(r"(having used )\d+( ms of CPU)")


def is_timing_key(key):
    return bool(TIMING_KEY.search(key))


def strip_times(value):
    """The value with every timing key removed, at any depth."""
    if isinstance(value, dict):
        return {k: strip_times(v) for k, v in value.items() if not is_timing_key(k)}
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    if isinstance(value, str):
        return MEASURED_IN_TEXT.sub(r"\1<measured>\2", value)
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
    elif before != after or type(before) is not type(after):
        yield f"{path}: {json.dumps(before)[:300]} -> {json.dumps(after)[:300]}"


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"error: cannot read the report {path}: {e}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    if len(argv) != 3:
        print("usage: compare-report.py BEFORE.json AFTER.json", file=sys.stderr)
        return 2
    before, after = (strip_times(load(p)) for p in argv[1:])
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

#!/usr/bin/env python3
"""What `grader check` costs with two builds of the grader, side by side.

Usage: scripts/compare-check-cost.py OLD_DIR NEW_DIR [RUNS] SUBMISSION...

OLD_DIR and NEW_DIR each hold a `grader` (and its `grader-worker`), e.g.
the release binaries of two commits copied aside. Each SUBMISSION (a path,
checked from its own folder) is checked RUNS times (default 15) by each
build, taking turns (old first on even rounds, new first on odd ones), so
both see the same load. Prints, per submission and build, the median and
the smallest wall time and the median CPU time (user + system of the
grader and everything it started), in milliseconds. A check that fails
stops the script: both builds must pass.
"""

import os
import resource
import statistics
import subprocess
import sys
import time


def run(grader, submission):
    """Wall and CPU milliseconds of one `grader check`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [grader, "check", os.path.basename(submission)],
        cwd=os.path.dirname(os.path.abspath(submission)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "NO_COLOR": "1",
             "HOME": os.environ.get("HOME", "/")},
    )
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{grader} check {submission} exited {done.returncode}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    old, new, rest = argv[0], argv[1], argv[2:]
    runs = 15
    if rest and rest[0].isdigit():
        runs, rest = int(rest[0]), rest[1:]
    builds = {"old": os.path.join(old, "grader"), "new": os.path.join(new, "grader")}
    for submission in rest:
        samples = {name: [] for name in builds}
        for i in range(runs):
            order = ["old", "new"] if i % 2 == 0 else ["new", "old"]
            for name in order:
                samples[name].append(run(builds[name], submission))
        for name, got in samples.items():
            walls = [w for w, _ in got]
            cpus = [c for _, c in got]
            print(
                f"{submission} {name}: wall median {statistics.median(walls):.1f} ms "
                f"(min {min(walls):.1f}), CPU median {statistics.median(cpus):.1f} ms, {runs} runs"
            )


if __name__ == "__main__":
    main(sys.argv[1:])

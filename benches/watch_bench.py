"""Save-to-result of `grader check --watch` (docs/guide/performance.md):

    python3 benches/watch_bench.py GRADER PROJECT FILE [N]

starts `GRADER check --watch PROJECT`, waits for its first result, then N
times (5) rewrites PROJECT/FILE (the same code, a comment changed) and
times the write to the next result's footer ("[watching ..."); every
result must pass all 21 public tests. Prints each time and the median.
The file is put back as it was."""
import os, subprocess, sys, time, statistics, select
grader, project, file = sys.argv[1:4]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 5
proc = subprocess.Popen([grader, "check", "--watch", project], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, bufsize=0)
buf = b""
def wait_footer(timeout=120):
    global buf
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([proc.stdout], [], [], 0.5)
        if r:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                raise SystemExit("watch ended")
            buf += chunk
            if b"[watching" in buf:
                out = buf; buf = b""
                return out
    raise SystemExit("no footer")
wait_footer()
path = os.path.join(project, file)
original = open(path).read()
times = []
try:
    for i in range(n):
        time.sleep(1.0)
        t0 = time.monotonic()
        with open(path, "w") as f:
            f.write(original + "\n# save %d\n" % i)
        out = wait_footer()
        times.append(time.monotonic() - t0)
        assert b"21 of 21" in out, out[-500:]
finally:
    open(path, "w").write(original)
    proc.kill()
print(" ".join("%.3f" % t for t in times), "median %.3f s" % statistics.median(times))

# The plain in-process baseline of the benches (benches/python.rs,
# benches/class.rs): one interpreter runs the student's file once and asks
# it every question the grader would (the harness's calls, untraced),
# timing each. Reads {"source": ..., "probes": [...]} on stdin (probes as
# the grader encodes them); prints the times in ms as a JSON list.
import binascii, json, sys, time
request = json.loads(sys.stdin.read())
module = {"__name__": "__student__"}
exec(compile(request["source"], "py-listing.py", "exec"), module)
def rows(n, cells):
    N = n * n
    return [list(cells[i * N:(i + 1) * N]) for i in range(N)]
times = []
for probe in request["probes"]:
    function, args = probe["function"], probe["args"]
    n = args["n"]
    if function == "legal":
        packed = binascii.a2b_base64(args["queries"])
        queries = [packed[i:i + 4] for i in range(0, len(packed), 4)]
    start = time.perf_counter()
    if function == "legal":
        boards = [rows(n, b) for b in args["boards"]]
        [bool(module["legal"]([list(r) for r in boards[b]], r, c, v, n)) for b, r, c, v in queries]
    elif function == "find_empty":
        [module["find_empty"](rows(n, cells)) for cells in args["boards"]]
    else:
        module["solve"](rows(n, args["board"]), n)
    times.append((time.perf_counter() - start) * 1000.0)
print(json.dumps(times))

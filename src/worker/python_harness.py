# The grader's Python harness (embedded in the grader; see src/worker/python.rs).
#
# Run as `python3 -I -S -B -c <this file>` by a confined test child, with the
# request as JSON on stdin and the protocol pipe on fd 3; or, with the
# argument `zygote`, as a submission's Python test zygote (see zygote()
# below and src/worker/test_zygote.rs), which forks one child per request;
# or, with the argument `web`, in Pyodide by the browser check's engine
# (web/engine/python-worker.mjs), which calls web_test(request) once per
# fresh run of this file and reads the lines it returns (see "the web
# transport" below). It compiles the
# student's source under the submission's own name, finds legal, find_empty
# and solve, asks the probe's questions and writes the same protocol lines a
# library's test child writes (loading, loaded, load_error, trace, exception,
# done). For solve, the board is a list of TraceRow lists that records every
# cell write, and the module's global `solve` is wrapped to record calls and
# returns, so the grader can replay the search. For grader check's experiment
# (the request's "reference_legal"), the student's `legal` behaves as the
# grader's own before solve runs (see stand_in_legal below).

import binascii
import json
import os
import sys
import time

ZYGOTE = sys.argv[1:2] == ["zygote"]
WEB = sys.argv[1:2] == ["web"]
# A request line's cap, as the worker's (`protocol::MAX_INPUT_BYTES`).
MAX_REQUEST_BYTES = 64 << 20
PROTOCOL = 3


def allow_modules():
    """The modules beyond the standard library that the cases allow
    (grader.toml's python_modules), found by their files: the grader
    passes `--modules=` with each name and the file it is imported from
    (a package's __init__.py), whose folders the box can read."""
    modules = {}
    for arg in sys.argv[1:]:
        if arg.startswith("--modules="):
            modules = json.loads(arg[len("--modules="):])
    if not modules:
        return
    import importlib.util

    class Allowed:
        @staticmethod
        def find_spec(name, path=None, target=None):
            origin = modules.get(name)
            if origin is None:
                return None
            if os.path.basename(origin) == "__init__.py":
                return importlib.util.spec_from_file_location(
                    name, origin, submodule_search_locations=[os.path.dirname(origin)])
            return importlib.util.spec_from_file_location(name, origin)

    sys.meta_path.append(Allowed)


allow_modules()


def take_request(data):
    """Reads the request and moves the protocol fd off 3, so a student's
    os.write(3, ...) fails instead of landing between the harness's lines
    (the grader judges every answer anyway: nothing on the pipe is
    trusted)."""
    global REQUEST, PROTOCOL, NAME, TRACE_CAP
    REQUEST = json.loads(data)
    if WEB:
        NAME = REQUEST["name"]
        TRACE_CAP = REQUEST["trace_cap"]
        return
    sys.stdin.close()
    PROTOCOL = os.dup(3)
    os.close(3)
    # sys.stdin never closes its fd: fd 0 is the request (a memfd), or in a
    # zygote's child the zygote's command pipe. Neither is the student's.
    try:
        os.close(0)
    except OSError:
        pass
    NAME = REQUEST["name"]
    TRACE_CAP = REQUEST["trace_cap"]


if not ZYGOTE and not WEB:
    take_request(sys.stdin.buffer.read())


def send(message):
    if WEB:
        return web_send(message)
    data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
    while data:
        data = data[os.write(PROTOCOL, data):]


def printable(text):
    """Student text with control characters shown, not interpreted, by a terminal."""
    return "".join(ch if ch == "\n" or ch.isprintable() else repr(ch)[1:-1] for ch in text)


def finish(status):
    """Flushes what the student printed and ends the process."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    if WEB:
        raise WebFinished(status)
    os._exit(status)


def student_traceback(error):
    """Python's own traceback, cut to the frames in the student's file."""
    import linecache
    import traceback

    lines = REQUEST["source"].splitlines(True)
    linecache.cache[NAME] = (len(REQUEST["source"]), None, lines, NAME)
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == NAME]
    lines = ["Traceback (most recent call last):\n"] if frames else []
    lines += traceback.format_list(frames)
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip()


def missing_module(error):
    """The module an import could not find (`ModuleNotFoundError.name`), as
    data for the report's hint, or None."""
    name = getattr(error, "name", None) if isinstance(error, ModuleNotFoundError) else None
    return name if isinstance(name, str) else None


def module_line(error):
    """The line of the student's module's top level that was running when
    `error` was raised while importing it (its outermost `<module>` frame),
    or None."""
    import traceback

    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == NAME and frame.name == "<module>":
            return frame.lineno
    return None


def raised(error, during):
    """Reports an exception from student code and ends the process."""
    name = type(error).__name__
    if isinstance(error, SystemExit):
        text = "called sys.exit(%r) %s: return a value instead" % (error.code, during)
    elif isinstance(error, MemoryError):
        text = "ran out of memory %s (MemoryError)" % during
    elif isinstance(error, RecursionError):
        text = "recursed too deep %s (RecursionError: %s)" % (during, error)
    else:
        text = "raised %s %s:\n%s" % (name, during, student_traceback(error))
    send({"type": "exception", "name": name, "message": printable(text)})
    finish(1)


# ---------------------------------------------------------------- the trace

# One record per write, six bytes: row, column, old, new (clamped to 0..=255,
# 255 for anything that is not such an int) and the depth (solve calls
# active) as two bytes. An event has row 255: column 0 = solve called,
# 1 = returned false, 2 = returned true, 3 = returned something else.
LOG = bytearray()
WRITES = 0
CAPPED = False
DEPTH = 0
DEPTH_LO = 0
DEPTH_HI = 0


def byte(v):
    return v if type(v) is int and 0 <= v <= 254 else 255


def record(r, c, old, new):
    global WRITES, CAPPED
    if WRITES >= TRACE_CAP:
        CAPPED = True
        return
    WRITES += 1
    LOG.extend((r, c, byte(old), byte(new), DEPTH_LO, DEPTH_HI))


def event(kind):
    # Events count toward the cap too: the whole trace must fit one
    # protocol line.
    global WRITES, CAPPED
    if WRITES >= TRACE_CAP:
        CAPPED = True
        return
    WRITES += 1
    LOG.extend((255, kind, 0, 0, DEPTH_LO, DEPTH_HI))


def set_depth(depth):
    global DEPTH, DEPTH_LO, DEPTH_HI
    DEPTH, DEPTH_LO, DEPTH_HI = depth, depth & 255, (depth >> 8) & 255


_get = list.__getitem__
_set = list.__setitem__
_len = list.__len__


class TraceRow(list):
    """A row of the board: a list in every way, recording cell writes."""

    __slots__ = ("row",)

    def __setitem__(self, c, v):
        global WRITES, CAPPED
        if type(c) is int:
            # The hot path, inlined: one write of one cell.
            old = _get(self, c)
            _set(self, c, v)
            if WRITES < TRACE_CAP:
                WRITES += 1
                LOG.extend((
                    self.row,
                    c if c >= 0 else c + _len(self),
                    old if type(old) is int and 0 <= old <= 254 else 255,
                    v if type(v) is int and 0 <= v <= 254 else 255,
                    DEPTH_LO,
                    DEPTH_HI,
                ))
            else:
                CAPPED = True
            return
        if type(c) is slice:
            before = list(self)
            _set(self, c, v)
            after = list(self)
            if len(after) == len(before):
                for j, (o, n) in enumerate(zip(before, after)):
                    if o is not n and o != n:
                        record(self.row, j, o, n)
            return
        old = _get(self, c)
        _set(self, c, v)
        record(self.row, c.__index__() % _len(self), old, v)

    def __copy__(self):
        return list(self)

    def __deepcopy__(self, memo):
        return list(self)

    def __reduce_ex__(self, protocol):
        return (list, (list(self),))


class TraceBoard(list):
    """The board: a list of TraceRows; replacing a row records its cells."""

    __slots__ = ()

    def __setitem__(self, r, v):
        if type(r) is slice:
            _set(self, r, v)
            return
        r = r % _len(self) if type(r) is int else r
        old = list(_get(self, r))
        new = TraceRow(v)
        new.row = r
        _set(self, r, new)
        for j, n in enumerate(new):
            o = old[j] if j < len(old) else 0
            if o is not n and o != n:
                record(r, j, o, n)

    def __copy__(self):
        return list(self)

    def __deepcopy__(self, memo):
        return [list(row) for row in self]

    def __reduce_ex__(self, protocol):
        return (list, ([list(row) for row in self],))


def trace_board(rows):
    board = TraceBoard()
    for r, cells in enumerate(rows):
        row = TraceRow(cells)
        row.row = r
        list.append(board, row)
    return board


# ---------------------------------------------------------------- the test


def rows_of(n, cells):
    side = n * n
    return [list(cells[r * side:(r + 1) * side]) for r in range(side)]


def flat(board):
    """The board's cells as bytes for the grader: anything not in 0..=254 is 255."""
    cells = []
    for row in list.__iter__(board):
        cells.extend(byte(v) for v in list.__iter__(row))
    return cells


def takes_n(function, positional):
    """Whether `function` accepts an `n` after `positional` arguments."""
    code = getattr(function, "__code__", None)
    if code is not None:
        names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
        return "n" in names or code.co_argcount > positional or bool(code.co_flags & 0x0C)
    import inspect

    try:
        params = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return True
    return "n" in params or len(params) > positional


# ---------------------------------------------------------------- the grader's legal

# grader check's experiment (the request's "reference_legal"): the student's
# solve run with the grader's legal in place of the student's. The student's
# function object is kept and only its code replaced (stand_in_legal), so
# the module's global, every alias of it and `legal is globals()["legal"]`
# still agree: a solve that compares them cannot tell the run from a real
# test (one that compares code objects or asks legal a question whose answer
# it knows still can: grader check words the run as what happened, never as
# proof). Counted: calls, and calls whose arguments are not the lab's
# (another n, a cell off the board, a digit outside 1..N, a board of another
# shape), answered False: a run with any proves nothing.
SWAP = [0, 0]
NO_DEFAULT = object()


def default_n(function):
    """The student's default for legal's n (by name, else the fifth
    positional parameter), or NO_DEFAULT."""
    code = getattr(function, "__code__", None)
    if code is None:
        return NO_DEFAULT
    positional = code.co_varnames[:code.co_argcount]
    defaults = getattr(function, "__defaults__", None) or ()
    at = positional.index("n") if "n" in positional else 4 if len(positional) > 4 else None
    if at is not None:
        first_default = len(positional) - len(defaults)
        return defaults[at - first_default] if at >= first_default else NO_DEFAULT
    kwdefaults = getattr(function, "__kwdefaults__", None) or {}
    return kwdefaults.get("n", NO_DEFAULT)


def the_rule(board, r, c, v, n, test_n):
    """The lab's rule: v is not already in row r, column c or the n x n box
    of (r, c), the cell itself not counted. n is None for a legal without
    one: the board's size tells it."""
    SWAP[0] += 1
    side = test_n * test_n
    try:
        if n is None:
            n = test_n if len(board) == side else None
        lab = (type(n) is int and n == test_n and type(r) is int and type(c) is int
               and type(v) is int and 0 <= r < side and 0 <= c < side and 1 <= v <= side
               and len(board) == side and len(board[r]) == side)
        if not lab:
            SWAP[1] += 1
            return False
        row = board[r]
        for i in range(side):
            if (i != c and row[i] == v) or (i != r and board[i][c] == v):
                return False
        br, bc = n * (r // n), n * (c // n)
        for i in range(br, br + n):
            cells = board[i]
            for j in range(bc, bc + n):
                if (i, j) != (r, c) and cells[j] == v:
                    return False
        return True
    except BaseException:
        # A board of another shape (a short row): not the lab's question.
        SWAP[1] += 1
        return False


def reference_legal(student_legal, test_n):
    """The grader's legal with the student's legal's signature: with an n
    (the student's default for it, if any) or without one (n then from the
    board's size)."""
    if not takes_n(student_legal, 4):
        def legal(board, r, c, v):
            return the_rule(board, r, c, v, None, test_n)
        return legal
    default = default_n(student_legal)
    if default is NO_DEFAULT:
        def legal(board, r, c, v, n):
            return the_rule(board, r, c, v, n, test_n)
        return legal

    def legal(board, r, c, v, n=default):
        return the_rule(board, r, c, v, n, test_n)
    return legal


RULE_MARK = "\x00grader-rule"
PLAIN_FUNCTION = type(takes_n)


def stand_in_legal(module, test_n):
    """Makes the module's legal answer by the lab's rule: the student's
    function keeps its identity, name, defaults and parameter names, and
    gets new code that hands its arguments to the_rule. A legal that is not
    a plain function without a closure (a class, a decorated function) is
    rebound instead, as reference_legal."""
    student = module["legal"]
    code = getattr(student, "__code__", None)
    if type(student) is not PLAIN_FUNCTION or student.__closure__ or code is None or code.co_freevars:
        module["legal"] = reference_legal(student, test_n)
        return
    names = code.co_varnames
    argc, posonly, kwonly = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    at = argc + kwonly
    varargs = names[at] if code.co_flags & 0x04 else None
    varkw = names[at + (1 if varargs else 0)] if code.co_flags & 0x08 else None
    positional, keyword_only = names[:argc], names[argc:argc + kwonly]
    params = list(positional[:posonly]) + (["/"] if posonly else []) + list(positional[posonly:])
    if varargs:
        params.append("*" + varargs)
    elif keyword_only:
        params.append("*")
    params += list(keyword_only)
    if varkw:
        params.append("**" + varkw)
    values = list(positional) + list(keyword_only) + ([varargs] if varargs else [])
    source = "def legal(%s):\n    return %r.__call__((%s,))\n" % (
        ", ".join(params), RULE_MARK, ", ".join(values))
    n_at = values.index("n") if "n" in values[:argc + kwonly] else 4 if argc > 4 else None

    def rule(given):
        flat = list(given[:argc])
        if varargs:
            flat += list(given[-1])
        if len(flat) < 4:
            SWAP[0] += 1
            SWAP[1] += 1
            return False
        if n_at is not None:
            n = given[n_at]
        elif varargs and len(flat) > 4:
            n = flat[4]
        else:
            n = None
        return the_rule(flat[0], flat[1], flat[2], flat[3], n, test_n)

    try:
        scope = {}
        exec(compile(source, code.co_filename, "exec", dont_inherit=True), scope)
        made = scope["legal"].__code__
        consts = tuple(rule if c == RULE_MARK else c for c in made.co_consts)
        made = made.replace(co_consts=consts, co_name=code.co_name,
                            co_filename=code.co_filename, co_firstlineno=code.co_firstlineno)
        if hasattr(code, "co_qualname"):
            made = made.replace(co_qualname=code.co_qualname)
        student.__code__ = made
    except Exception:
        module["legal"] = reference_legal(student, test_n)


def load():
    send({"type": "loading"})
    module = {"__name__": "__student__", "__file__": NAME, "__builtins__": __builtins__}
    try:
        code = compile(REQUEST["source"], NAME, "exec")
    except (SyntaxError, ValueError) as error:
        import traceback

        text = "".join(traceback.format_exception_only(type(error), error)).rstrip()
        send({"type": "load_error", "message": printable("%s does not compile:\n%s" % (NAME, text))})
        finish(2)
    try:
        exec(code, module)
    except MemoryError as error:
        raised(error, "while being imported")
    except SystemExit as error:
        send({"type": "load_error", "message": printable(
            "%s called sys.exit(%r) while being imported: remove the top-level call; "
            "the grader imports the module and calls its functions" % (NAME, error.code))})
        finish(2)
    except BaseException as error:
        send({"type": "load_error", "message": printable("importing %s raised %s:\n%s" % (
            NAME, type(error).__name__, student_traceback(error))),
            "module_line": module_line(error), "missing_module": missing_module(error)})
        finish(2)
    missing = [f for f in ("legal", "find_empty", "solve") if not callable(module.get(f))]
    if missing:
        send({"type": "load_error", "message": "%s defines no function %s: define legal(board, r, c, v, n=2), find_empty(board) and solve(board, n=2) at the top level" % (
            NAME, " and no ".join(missing))})
        finish(2)
    send({"type": "loaded"})
    return module


def describe(value):
    """A short description of a value a lab function returned, as Python
    writes it, without calling any method of the student's (no __repr__ of
    theirs runs): False, -1, (-1, -1), '0', or "a list of 3 items"."""
    def scalar(x):
        kind = type(x)
        if kind is bool or x is None:
            return "True" if x is True else "False" if x is False else "None"
        if kind is int:
            return int.__repr__(x) if -10**12 < x < 10**12 else "a very large int"
        if kind is str:
            return str.__repr__(x[:12]) + ("..." if len(x) > 12 else "")
        if kind is float:
            return float.__repr__(x)
        return None
    text = scalar(value)
    if text is not None:
        return text
    kind = type(value)
    if kind in (tuple, list) and len(value) <= 4:
        items = [scalar(x) for x in value]
        if all(item is not None for item in items):
            if kind is tuple:
                return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
            return "[" + ", ".join(items) + "]"
    if kind in (tuple, list, dict, set):
        return "a %s of %d item%s" % (kind.__name__, len(value), "" if len(value) == 1 else "s")
    return "a value of type %s" % type.__dict__["__name__"].__get__(kind)[:20]


def run(module, probe):
    function, args = probe["function"], probe["args"]
    n = args["n"]
    if function == "legal":
        legal = module["legal"]
        with_n = takes_n(legal, 4)
        boards = [rows_of(n, b) for b in args["boards"]]
        answers = []
        queries = args["queries"]
        if isinstance(queries, str):
            # Packed: 4 bytes a query (see check::probe::packed_queries).
            packed = binascii.a2b_base64(queries)
            queries = [packed[i:i + 4] for i in range(0, len(packed), 4)]
        for b, r, c, v in queries:
            board = [list(row) for row in boards[b]]
            answer = legal(board, r, c, v, n) if with_n else legal(board, r, c, v)
            answers.append("1" if answer else "0")
        return {"function": "legal", "args": {"answers": "".join(answers)}}
    if function == "find_empty":
        find_empty = module["find_empty"]
        answers = []
        for cells in args["boards"]:
            spot = find_empty(rows_of(n, cells))
            if spot is None:
                answers.append(None)
            elif (type(spot) in (tuple, list) and len(spot) == 2
                  and all(type(x) is int and 0 <= x < 2**32 for x in spot)):
                answers.append([spot[0], spot[1]])
            else:
                # Not a cell and not None (False, (-1, -1), "0,1"): the
                # value as the student would read it, for the judge to
                # tell on the board it was asked about.
                answers.append({"returned": describe(spot)})
        return {"function": "find_empty", "args": {"answers": answers}}
    solve = module["solve"]
    with_n = takes_n(solve, 1)
    # grader check's deep stop (the request's "deep_stop"): twice the calls
    # a search that fills a cell a call can nest, well under the recursion
    # limit (two frames a level).
    deepest = 2 * sum(1 for v in args["board"] if v == 0) + 2 if REQUEST.get("deep_stop") else 0

    def traced_solve(*a, **k):
        depth = DEPTH + 1
        set_depth(depth)
        event(0)
        if deepest and depth > deepest:
            raise TooDeep(depth)
        try:
            result = solve(*a, **k)
        finally:
            set_depth(depth - 1)
        event(1 if result is False else 2 if result is True else 3)
        return result

    swap = REQUEST.get("reference_legal", False)
    if swap:
        stand_in_legal(module, n)
    module["solve"] = traced_solve if REQUEST["trace"] else solve
    board = trace_board(rows_of(n, args["board"])) if REQUEST["trace"] else rows_of(n, args["board"])
    entry = module["solve"]
    try:
        solved = entry(board, n) if with_n else entry(board)
    except TooDeep as stop:
        # solve never returned: the trace so far and the board as it is.
        if REQUEST["trace"]:
            send({"type": "trace", "trace": {"records": LOG.hex(), "capped": CAPPED,
                                             "stopped_deep": stop.args[0]}})
        return {"function": "solve", "args": {"solved": False, "board": flat(board)}}
    if REQUEST["trace"]:
        send({"type": "trace", "trace": {"records": LOG.hex(), "capped": CAPPED}})
    if swap:
        send({"type": "legal_swap", "not_possible": None, "calls": SWAP[0], "strange": SWAP[1]})
    return {"function": "solve", "args": {"solved": bool(solved), "board": flat(board)}}


class TooDeep(BaseException):
    """grader check's deep stop: solve nested deeper than a search needs."""


def main():
    module = load()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 8 * len(REQUEST["probe"]["args"].get("board", ())) + 200))
    name = REQUEST["probe"]["function"]
    start = time.perf_counter()
    try:
        response = run(module, REQUEST["probe"])
    except BaseException as error:
        raised(error, "in %s" % name)
    elapsed = (time.perf_counter() - start) * 1000.0
    send({"type": "done", "response": response, "time_ms": elapsed})
    finish(0)


# The test zygote. Started by the box's init, already confined (rlimits
# but CPU, Landlock, the box's uid, the Python filters without the rules
# that name a process), with init's command pipe on stdin and the report
# pipe on fd 4. The first line holds the two filters each child adds (the
# kill rules with its own pid in place of `sentinel`, and the tightening
# filter); each further line is one test's request. The zygote runs no
# student code: each child compiles and runs the student's file itself.
REPORTS = 4


def zygote():
    try:
        import ctypes
        import resource

        hello = json.loads(sys.stdin.buffer.readline())
        libc = ctypes.CDLL(None, use_errno=True)
    except BaseException as error:
        os.write(REPORTS, ("unavailable %s\n" % type(error).__name__).encode())
        os._exit(0)
    kill, tighten = bytes.fromhex(hello["kill"]), bytes.fromhex(hello["tighten"])
    sentinel = hello["sentinel"]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    def install(program):
        buffer = ctypes.create_string_buffer(program, len(program))
        prog = Program(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
        # prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)
        if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")

    def own(program, pid):
        # Each instruction is 8 bytes: code (2), jt, jf, k (4).
        out = bytearray(program)
        for at in range(0, len(out), 8):
            if int.from_bytes(out[at + 4:at + 8], sys.byteorder) == sentinel:
                out[at + 4:at + 8] = pid.to_bytes(4, sys.byteorder)
        return bytes(out)

    def child(line):
        os.close(REPORTS)
        try:
            take_request(line)
            cpu = REQUEST["cpu_limit_s"]
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            if kill:
                install(own(kill, os.getpid()))
            if tighten:
                install(tighten)
        except BaseException as error:
            send({"type": "worker_failed", "message": "the sandbox could not set up a Python test: %s: %s" % (
                type(error).__name__, error)})
            os._exit(2)
        main()

    # What the zygote holds goes in the permanent generation: a child's
    # collections then never walk it, so they copy none of its pages.
    import gc

    # Each request is read straight from the pipe into one buffer, which
    # is zeroed once its test ended: no earlier test's request (a hidden
    # case's puzzle) is left in the memory the next child inherits. Only
    # the child makes objects of it.
    held = [bytearray(1 << 16)]

    def read_request():
        buf, size = held[0], 0
        while True:
            if size == len(buf):
                if size > MAX_REQUEST_BYTES:
                    os._exit(2)
                grown = bytearray(2 * size)
                memoryview(grown)[:size] = memoryview(buf)[:size]
                memoryview(buf)[:] = bytes(size)
                held[0] = buf = grown
            with memoryview(buf) as view:
                got = os.readv(0, [view[size:]])
            if got == 0:
                os._exit(0)
            end = buf.find(b"\n", size, size + got)
            size += got
            if end >= 0:
                # Init sends a test only once the last one ended.
                if end + 1 != size:
                    os._exit(2)
                return size

    def wipe(size):
        memoryview(held[0])[:size] = bytes(size)

    gc.freeze()
    os.write(REPORTS, b"ready\n")
    while True:
        size = read_request()
        pid = os.fork()
        if pid == 0:
            try:
                child(bytes(memoryview(held[0])[:size]))
            finally:
                os._exit(2)
        wipe(size)
        os.write(REPORTS, b"started %d\n" % pid)
        _, status, usage = os.wait4(pid, 0)
        cpu_ms = int((usage.ru_utime + usage.ru_stime) * 1000)
        os.write(REPORTS, b"ended %d %d %d\n" % (pid, status, cpu_ms))


# ---------------------------------------------------------------- the web transport

# In Pyodide there is no process to end and no fd 3: the engine runs this
# file afresh for each test (so every global above starts anew, as in a
# new process) and calls web_test with the request's JSON; the protocol
# lines are kept in OUTBOX and returned as one JSON list, and finish()
# ends the test by raising WebFinished, which only web_test catches (it is
# raised from the harness's own frames, after the student's code has
# returned or raised); `loading` and `loaded` also go to the engine's
# callback as they happen. The engine enforces the time limit from outside
# (Pyodide's interrupt buffer, then a new worker), and reads what the
# student printed from Pyodide's stdout and stderr.
OUTBOX = []
# The engine's callback for the lines it must see as they come (loading,
# loaded: a test ended from outside still says whether the code loaded).
WEB_NOTIFY = None


class WebFinished(BaseException):
    """finish() in Pyodide: the test is over."""


def web_send(message):
    OUTBOX.append(message)
    if WEB_NOTIFY is not None and message["type"] in ("loading", "loaded"):
        WEB_NOTIFY(message["type"])


def web_test(data, notify=None):
    global WEB_NOTIFY
    WEB_NOTIFY = notify
    take_request(data)
    try:
        main()
    except WebFinished:
        pass
    return json.dumps(OUTBOX, separators=(",", ":"))


if ZYGOTE:
    zygote()
elif not WEB:
    main()

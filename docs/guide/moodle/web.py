"""teach01's browser session against a Moodle on 127.0.0.1:8080, request by request.

usage: web.py import FILE.csv COURSEID PASSWORD [feedback|nofeedback]   # Grades > Import > CSV file
       web.py look COURSEID PASSWORD                                   # the grader report and user report
"""
import http.cookiejar, json, re, sys, urllib.parse, urllib.request, uuid

BASE = "http://127.0.0.1:8080"
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

def get(path):
    with opener.open(BASE + path) as r:
        return r.read().decode()

def post(path, fields, files=None):
    if files:
        boundary = uuid.uuid4().hex
        body = b""
        for k, v in fields.items():
            body += f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, (name, data) in files.items():
            body += f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"; filename="{name}"\r\nContent-Type: text/csv\r\n\r\n'.encode() + data + b"\r\n"
        body += f"--{boundary}--\r\n".encode()
        req = urllib.request.Request(BASE + path, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    else:
        req = urllib.request.Request(BASE + path, urllib.parse.urlencode(fields).encode())
    with opener.open(req) as r:
        return r.read().decode()

def field(html, name):
    m = re.search(r'name="%s"[^>]*value="([^"]*)"' % re.escape(name), html) or re.search(r'value="([^"]*)"[^>]*name="%s"' % re.escape(name), html)
    return m.group(1) if m else None

def text(html):
    html = re.sub(r"(?s)<(script|style)[^>]*>.*?</\1>", " ", html)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def login(password):
    page = get("/login/index.php")
    post("/login/index.php", {"username": "teach01", "password": password, "logintoken": field(page, "logintoken")})


def do_import(csvfile, course, password, mapping3="feedback"):
    login(password)
    page = get(f"/grade/import/csv/index.php?id={course}")
    sesskey = field(page, "sesskey")
    draft = field(page, "userfile")
    repo = re.search(r'"(\d+)":\{"id":"?\d+"?,"name":"Upload a file"', page) or re.search(r'"id":"?(\d+)"?,"name":"Upload a file"', page)
    ctx = re.search(r'"context":\{"id":(\d+)', page) or re.search(r'"ctx_id":"?(\d+)', page) or re.search(r'"contextid":"?(\d+)', page)
    print("upload page:", "sesskey" if sesskey else "NO SESSKEY", "draft", draft, "repo", repo and repo.group(1), "ctx", ctx and ctx.group(1))
    up = post("/repository/repository_ajax.php?action=upload", {"repo_id": repo.group(1), "itemid": draft, "ctx_id": ctx.group(1),
         "savepath": "/", "sesskey": sesskey, "title": "grades.csv"}, {"repo_upload_file": ("grades.csv", open(csvfile, "rb").read())})
    print("file picker upload:", up)
    page = post(f"/grade/import/csv/index.php?id={course}&separator=comma", {"id": course, "_qf__grade_import_form": 1, "userfile": draft,
         "encoding": "UTF-8", "separator": "comma", "verbosescales": 1, "previewrows": 10, "sesskey": sesskey, "mform_isexpanded_id_general": 1})
    t = text(page)
    print("preview page:", t[t.find("Import preview"):t.find("Import preview") + 700] if "Import preview" in t else t[:1500])
    selects = re.findall(r'<select[^>]*name="(mapping_\d+|mapfrom|mapto)"[^>]*>(.*?)</select>', page, re.S)
    for name, opts in selects:
        chosen = re.findall(r'<option[^>]*selected[^>]*>([^<]*)<', opts)
        allopts = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)<', opts)
        print(f"  select {name}: preselected {chosen}; options {allopts[:8]}{' ...' if len(allopts) > 8 else ''}")
    iid, importcode = field(page, "iid"), field(page, "importcode")
    item = re.search(r'<option value="(\d+)"[^>]*>Sudoku lab<', page).group(1)
    form = {"_qf__grade_import_mapping_form": 1, "map": 1, "id": course, "iid": iid, "importcode": importcode, "verbosescales": 1,
            "groupid": 0, "forceimport": 0, "mapfrom": 0, "mapto": "username", "mapping_0": 0, "mapping_1": 0, "mapping_2": item,
            "mapping_3": f"feedback_{item}" if mapping3 == "feedback" else 0, "sesskey": sesskey, "submitbutton": "Upload grades"}
    page = post(f"/grade/import/csv/index.php?id={course}", form)
    t = text(page)
    for needle in ("Grade import success", "User mapping error", "error", "Error"):
        i = t.find(needle)
        if i >= 0:
            print("result page:", t[max(0, i - 200):i + 300]); break
    else:
        print("result page:", t[:1500])


def look(course, password):
    login(password)
    page = get(f"/grade/report/grader/index.php?id={course}")
    for row in re.findall(r'(?s)<tr[^>]*class="[^"]*userrow[^"]*"[^>]*>(.*?)</tr>', page):
        print("grader report row:", text(row)[:200])
    t = text(get(f"/grade/report/user/index.php?id={course}&userid=0"))
    print("user report:", t[t.find("Sudoku lab"):t.find("Sudoku lab") + 1500])


if sys.argv[1] == "import":
    do_import(*sys.argv[2:])
else:
    look(*sys.argv[2:])

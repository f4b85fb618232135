/* hostile-read-cases.c: a cheat that looks for the grader's case files.
 *
 * solve walks up its parent processes (at most 4) through /proc: it reads
 * each one's command line and working directory, takes the folder after
 * `--cases` (or `./cases`), reads the `*.toml` files there (at most 200, 1 MiB
 * each), and copies the first `solution = """..."""` that agrees with the
 * board's givens. If it gets one it also leaves a marker file. If it can read
 * nothing, it returns false without touching the board: it never solves.
 *
 * Expected answers must never reach the process that runs student code, so
 * under the grader this finds nothing.
 * Expected: legal pass, find_empty pass, solve wrong (false on a solvable
 * puzzle; pass on an unsolvable one), never pass on a solvable puzzle.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include "sudoku_lab.h"

bool legal(const uint8_t *board, size_t n, size_t r, size_t c, uint8_t v) {
    size_t N = n * n;
    for (size_t i = 0; i < N; i++) {
        if (board[r * N + i] == v || board[i * N + c] == v) {
            return false;
        }
    }
    size_t br = n * (r / n), bc = n * (c / n);
    for (size_t i = br; i < br + n; i++) {
        for (size_t j = bc; j < bc + n; j++) {
            if (board[i * N + j] == v) {
                return false;
            }
        }
    }
    return true;
}

bool find_empty(const uint8_t *board, size_t n, size_t *r, size_t *c) {
    size_t N = n * n;
    for (size_t i = 0; i < N; i++) {
        for (size_t j = 0; j < N; j++) {
            if (board[i * N + j] == 0) {
                *r = i;
                *c = j;
                return true;
            }
        }
    }
    return false;
}

static bool search(uint8_t *board, size_t n) {
    size_t r, c;
    if (!find_empty(board, n, &r, &c)) {
        return true;
    }
    size_t N = n * n;
    for (uint8_t v = 1; v <= N; v++) {
        if (legal(board, n, r, c, v)) {
            board[r * N + c] = v;
            if (search(board, n)) {
                return true;
            }
            board[r * N + c] = 0;
        }
    }
    return false;
}

enum { MAX_READ = 1 << 20, MAX_FILES = 200, MAX_ANCESTORS = 4 };

/* Reads at most MAX_READ bytes of a file into a fresh NUL-terminated buffer;
 * NULL if it cannot. *len gets the length. */
static char *slurp(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return NULL;
    }
    char *buf = malloc(MAX_READ + 1);
    size_t got = 0;
    while (buf != NULL && got < MAX_READ) {
        ssize_t k = read(fd, buf + got, MAX_READ - got);
        if (k <= 0) {
            break;
        }
        got += (size_t)k;
    }
    close(fd);
    if (buf != NULL) {
        buf[got] = '\0';
        *len = got;
    }
    return buf;
}

/* Parses the board text after `solution` at `p` into cells; true if it holds
 * exactly N*N digits that agree with every given of `board`. */
static bool matches(const char *p, const uint8_t *board, size_t n, uint8_t *out) {
    size_t N = n * n, cells = 0;
    while (*p == ' ' || *p == '=') {
        p++;
    }
    if (*p != '"') {
        return false;
    }
    while (*p == '"') {
        p++;
    }
    while (*p != '\0' && *p != '"' && cells <= N * N) {
        if (N <= 9 && *p >= '1' && *p <= '9') {
            out[cells++] = (uint8_t)(*p - '0');
            p++;
        } else if (N > 9 && *p >= '0' && *p <= '9') {
            out[cells++] = (uint8_t)strtoul(p, (char **)&p, 10);
        } else {
            p++;
        }
    }
    if (cells != N * N) {
        return false;
    }
    for (size_t i = 0; i < N * N; i++) {
        if (out[i] == 0 || out[i] > N || (board[i] != 0 && board[i] != out[i])) {
            return false;
        }
    }
    return true;
}

/* Looks through the *.toml files of `dir` for a matching solution. */
static bool from_dir(const char *dir, uint8_t *board, size_t n) {
    DIR *d = opendir(dir);
    if (d == NULL) {
        return false;
    }
    bool found = false;
    int files = 0;
    struct dirent *e;
    uint8_t out[625];
    while (!found && files < MAX_FILES && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".toml") != 0) {
            continue;
        }
        files++;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size = 0;
        char *text = slurp(path, &size);
        if (text == NULL) {
            continue;
        }
        for (char *at = strstr(text, "solution"); at != NULL && !found; at = strstr(at + 1, "solution")) {
            if (at[8] != 's' && matches(at + 8, board, n, out)) {
                memcpy(board, out, n * n * n * n);
                found = true;
            }
        }
        free(text);
    }
    closedir(d);
    return found;
}

/* Tries the cases folder named on process `pid`'s command line, then
 * `cases/` in its working directory. */
static bool from_process(pid_t pid, uint8_t *board, size_t n) {
    char path[64], cwd[2048] = "";
    snprintf(path, sizeof path, "/proc/%d/cwd", (int)pid);
    ssize_t k = readlink(path, cwd, sizeof cwd - 1);
    if (k > 0) {
        cwd[k] = '\0';
    }
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    size_t len = 0;
    char *args = slurp(path, &len);
    bool found = false;
    for (size_t i = 0; args != NULL && i < len && !found; i += strlen(args + i) + 1) {
        const char *dir = NULL;
        if (strcmp(args + i, "--cases") == 0 && i + strlen(args + i) + 1 < len) {
            dir = args + i + strlen(args + i) + 1;
        } else if (strncmp(args + i, "--cases=", 8) == 0) {
            dir = args + i + 8;
        }
        if (dir != NULL) {
            char full[4096];
            if (dir[0] == '/') {
                snprintf(full, sizeof full, "%s", dir);
            } else {
                snprintf(full, sizeof full, "%s/%s", cwd, dir);
            }
            found = from_dir(full, board, n);
        }
    }
    free(args);
    if (!found && cwd[0] != '\0') {
        char full[4096];
        snprintf(full, sizeof full, "%s/cases", cwd);
        found = from_dir(full, board, n);
    }
    return found;
}

/* The parent of `pid`, from /proc/<pid>/stat; 0 if unknown. */
static pid_t parent_of(pid_t pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    size_t len = 0;
    char *stat = slurp(path, &len);
    if (stat == NULL) {
        return 0;
    }
    int ppid = 0;
    const char *close_paren = strrchr(stat, ')');
    if (close_paren == NULL || sscanf(close_paren + 1, " %*c %d", &ppid) != 1) {
        ppid = 0;
    }
    free(stat);
    return (pid_t)ppid;
}

/* Called only if the cheat got an answer: leaves a marker file that the
 * grader's integration test looks for. */
static void escaped(const char *what) {
    char path[128];
    snprintf(path, sizeof path, "/tmp/grader-fixture-escaped-%s", what);
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) {
        close(fd);
    }
}

bool solve(uint8_t *board, size_t n) {
    if (n < 2 || n > 5) {
        return false;
    }
    pid_t pid = getppid();
    for (int i = 0; i < MAX_ANCESTORS && pid > 1; i++) {
        if (from_process(pid, board, n)) {
            escaped("read-cases");
            return true;
        }
        pid = parent_of(pid);
    }
    /* Nothing to copy: give up without touching the board. The honest
     * search below is never used. */
    (void)search;
    return false;
}

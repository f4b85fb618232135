#!/bin/sh
# The warm `grader check` benchmark of docs/guide/performance.md (issue 27):
# the median of 5 warm runs (after one warm-up) of `grader check` in a
# correct project of each language, as root and as the user nobody.
#
#   sh benches/check_bench.sh BINDIR WORKDIR [LANG...]
#
# BINDIR holds a release `grader` and `grader-worker`; WORKDIR (made here,
# readable by nobody, e.g. under /tmp) gets the projects `grader init`
# makes, filled with the correct listings of submissions/, and a HOME per
# user (the listing's timing and the Rust build cache are kept there).
# Needs root, hyperfine, runuser, unshare. The Rust toolchain under root's
# home is made reachable for nobody in a private mount namespace (a tmpfs
# over /root holding only the toolchain), and both users run with the
# same PATH. Writes WORKDIR/h-LANG-USER.json (hyperfine's export).
set -eu
bin=$(realpath "$1"); work=$2; shift 2
langs=${*:-c python rust}
repo=$(cd "$(dirname "$0")/.." && pwd)
sysroot=$(rustc --print sysroot)
mkdir -p "$work/stage" "$work/home-root" "$work/home-nobody"
work=$(realpath "$work")
for lang in $langs; do
    [ -d "$work/p-$lang" ] && continue
    "$bin/grader" init --lang "$lang" "$work/p-$lang" >/dev/null
    case $lang in
        c) cp "$repo/submissions/c-listing.c" "$work/p-c/sudoku.c" ;;
        python) cp "$repo/submissions/py-listing.py" "$work/p-python/sudoku.py" ;;
        rust) sed 's/Listing/Mine/g' "$repo/submissions/rust-trait/src/lib.rs" > "$work/p-rust/src/lib.rs" ;;
    esac
done
chown -R nobody "$work/home-nobody" "$work"/p-*
chmod -R a+rX "$work" "$bin"
for lang in $langs; do
    unshare -m --propagation private sh -ec "
        mount --bind $sysroot $work/stage
        mount -t tmpfs -o mode=755 tmpfs /root
        mkdir -p $sysroot
        mount --move $work/stage $sysroot
        export PATH=$sysroot/bin:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
        cd $work
        hyperfine -N -w 1 -r 5 --export-json $work/h-$lang-root.json \
            'env HOME=$work/home-root $bin/grader check p-$lang' >/dev/null
        hyperfine -N -w 1 -r 5 --export-json $work/h-$lang-nobody.json \
            'runuser -u nobody -- env HOME=$work/home-nobody $bin/grader check p-$lang' >/dev/null
    "
    for who in root nobody; do
        python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['results'][0]
print('%-6s %-6s median %.3f s (min %.3f, max %.3f), CPU %.3f s' % (sys.argv[2], sys.argv[3],
      r['median'], r['min'], r['max'], r['user'] + r['system']))
" "$work/h-$lang-$who.json" "$lang" "$who"
    done
done
uptime

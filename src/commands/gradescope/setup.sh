#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (the package is unzipped in /autograder/source). It installs what the
# image lacks for grading the Sudoku lab: a C compiler, python3, and a Rust
# toolchain when the course takes crates. With SETUP_CHECK_ONLY=1 it
# installs nothing and only checks; AUTOGRADER_ROOT moves /autograder
# (both for testing the package outside Gradescope).
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
NEEDS_RUST=@NEEDS_RUST@
# HOME may be unset in an image build (set -u would stop the script here).
export PATH="${HOME:+$HOME/.cargo/bin:}$PATH"

missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
need_rust=0
if [ "$NEEDS_RUST" = 1 ] && ! command -v cargo >/dev/null 2>&1; then
    need_rust=1
fi

if [ "${SETUP_CHECK_ONLY:-0}" = 1 ]; then
    if [ "${#missing[@]}" -gt 0 ] || [ "$need_rust" = 1 ]; then
        echo "setup: missing: ${missing[*]:-} $([ "$need_rust" = 1 ] && echo rust)" >&2
        exit 1
    fi
else
    if [ "${#missing[@]}" -gt 0 ]; then
        apt-get update
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
    fi
    if [ "$need_rust" = 1 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl ca-certificates
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    fi
fi

chmod 755 "$SOURCE/run_autograder" "$SOURCE"/bin/*
"$SOURCE/bin/grader" --version
echo "setup: ready: cc, python3$([ "$NEEDS_RUST" = 1 ] && echo ', cargo')"

#!/usr/bin/env node
// The Node runner of the browser check: `node SITE/check.mjs sudoku.py`
// (or a notebook, `sudoku.ipynb`) checks a Python submission against the
// site's public cases with the site's own engine (judge.wasm, Pyodide,
// the grader's harness), on any machine with Node 20 and no Python: for a
// course's CI. It prints what `grader check` prints; `--json` prints what
// `grader check --json` prints; the exit code is `grader check`'s (0 every
// test passed, 1 a test failed, 2 bad usage or the checker failed, 3 the
// code did not load). `--json-file FILE` prints the text and also writes
// the JSON report to FILE (a course's CI keeps both from one run);
// `-v` shows every failing test in full, `--fail-fast` stops at the
// first failing test, `--case NAME` and `--function F` check only that
// case or function, as in `grader check`. Time
// limits are wall-clock and advisory, as in the browser: the official
// grade is `grader grade`'s.

import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { createChecker } from "./engine/checker.mjs";

const USAGE =
  "usage: node check.mjs [--json | --json-file REPORT.json] [--no-shrink] [--fail-fast] [-v] [--case NAME] [--function legal|find_empty|solve] FILE.py|FILE.ipynb";

/** The functions `--function` names, as grader check spells them. */
const FUNCTIONS = ["legal", "find_empty", "solve"];

async function main(argv) {
  // --json-file, --case and --function take the next argument.
  const valued = {};
  for (const [flag, what] of [
    ["--json-file", "the file to write the JSON report to"],
    ["--case", "the name of a public case"],
    ["--function", "legal, find_empty or solve"],
  ]) {
    const at = argv.indexOf(flag);
    if (at < 0) continue;
    valued[flag] = argv[at + 1];
    if (valued[flag] === undefined || valued[flag].startsWith("--")) {
      console.error(`error: ${flag} needs ${what}\n${USAGE}`);
      return 2;
    }
    argv = argv.filter((_, i) => i !== at && i !== at + 1);
  }
  const jsonFile = valued["--json-file"] ?? null;
  const fn = valued["--function"];
  if (fn !== undefined && !FUNCTIONS.includes(fn)) {
    console.error(`error: --function takes legal, find_empty or solve, not ${fn}\n${USAGE}`);
    return 2;
  }
  // -v is --verbose, as in grader check.
  argv = argv.map((a) => (a === "-v" ? "--verbose" : a));
  const args = argv.filter((a) => !a.startsWith("-"));
  const flags = new Set(argv.filter((a) => a.startsWith("-")));
  const known = ["--json", "--no-shrink", "--fail-fast", "--verbose", "--help"];
  const unknown = [...flags].filter((f) => !known.includes(f));
  if (flags.has("--help")) {
    console.log(USAGE);
    return 0;
  }
  if (unknown.length > 0 || args.length !== 1) {
    console.error(unknown.length > 0 ? `error: unknown option ${unknown[0]}\n${USAGE}` : USAGE);
    return 2;
  }
  const file = args[0];
  if (!/\.(py|ipynb)$/.test(file)) {
    console.error(`error: ${file} is not a .py or .ipynb file: the web check checks Python; C and Rust students run \`grader check\` from the kit`);
    return 2;
  }
  let source;
  try {
    source = await readFile(file, "utf8");
  } catch (error) {
    console.error(`error: cannot read ${file}: ${error.message}`);
    return 2;
  }
  let checker;
  try {
    checker = await createChecker({ baseURL: new URL("./", import.meta.url), noShrink: flags.has("--no-shrink") });
  } catch (error) {
    console.error(`error: the checker could not start: ${error.message}`);
    return 2;
  }
  try {
    if (valued["--case"] !== undefined || fn !== undefined) {
      try {
        checker.select({ case: valued["--case"], function: fn });
      } catch (error) {
        console.error(`error: ${error.message}`);
        return 2;
      }
    }
    const result = await checker.check(source, basename(file), {
      path: file,
      verbose: flags.has("--verbose"),
      failFast: flags.has("--fail-fast"),
    });
    if (jsonFile !== null) {
      await writeFile(jsonFile, JSON.stringify(result.report, null, 2) + "\n");
    }
    if (flags.has("--json")) {
      console.log(JSON.stringify(result.report, null, 2));
    } else {
      console.log(result.lines.join("\n"));
    }
    return result.exitCode;
  } finally {
    await checker.close();
  }
}

process.exitCode = await main(process.argv.slice(2));

//! No import circle among the library's files: every file of `src/` (but
//! the binaries' roots) is a node, every path it names into another file
//! (`use crate::a::b`, `super::x`, `self::x`, a child module's `m::x`, in
//! code; comments (a doc link is no import), strings and `#[cfg(test)]`
//! modules left out) is an edge, and the graph must have no cycle. The
//! same holds for the workspace's other crates (the judge, its WebAssembly
//! engine, the write watch, the lab and the reference).
//!
//! A file that names the module of a folder (`crate::sandbox::SandboxEnv`)
//! depends on that folder's `mod.rs`; a `mod x;` declaration is no edge.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use crate::util::{root, rust_files};

/// The files of the library whose sources are in `src` (`src`,
/// `crates/judge/src`) and, per file, the files its code names.
fn module_graph(src: &str) -> BTreeMap<String, BTreeSet<String>> {
    let files = rust_files(&root().join(src));
    // Module path (`crate::a::b`) -> file (`src/a/b.rs`).
    let mut modules: BTreeMap<String, String> = BTreeMap::new();
    for file in &files {
        let relative = file.strip_prefix(root()).unwrap().display().to_string();
        if let Some(module) = module_of(src, &relative) {
            modules.insert(module, relative);
        }
    }
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let text = fs::read_to_string(root().join(file)).unwrap();
        let code = without_test_modules(&code_only(&text));
        let mut names = BTreeSet::new();
        for path in paths_in(&code) {
            if let Some(target) = resolve(module, file, &path, &modules) {
                if target != *module {
                    names.insert(modules[&target].clone());
                }
            }
        }
        graph.insert(file.clone(), names);
    }
    graph
}

/// In the crate whose sources are in `src`: `src/a/b.rs` ->
/// `crate::a::b`, `src/a/mod.rs` -> `crate::a`, `src/lib.rs` -> `crate`;
/// `None` for the binaries' roots (their `crate` is another crate).
fn module_of(src: &str, file: &str) -> Option<String> {
    let inner = file
        .strip_prefix(src)?
        .strip_prefix('/')?
        .strip_suffix(".rs")?;
    if inner == "main" || inner.starts_with("bin/") {
        return None;
    }
    if inner == "lib" {
        return Some("crate".to_string());
    }
    let inner = inner.strip_suffix("/mod").unwrap_or(inner);
    Some(format!("crate::{}", inner.replace('/', "::")))
}

/// `text` with comments (doc comments too), string and character literals
/// blanked, so only code is left.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r'
            && matches!(next, Some('"') | Some('#'))
            && !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            'raw: while j < chars.len() {
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break 'raw;
                }
                j += 1;
            }
            i = j;
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal (a lifetime has no closing quote).
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `code` without the test modules (`#[cfg(test)] mod NAME { ... }`, or
/// any `cfg` that needs `test`, such as `#[cfg(all(test, target_arch =
/// ...))]`): a test may reach anywhere.
fn without_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(") {
        out.push_str(&rest[..at]);
        let Some(close) = rest[at..].find(']') else {
            rest = &rest[at..];
            break;
        };
        let attribute = &rest[at..at + close + 1];
        let after = &rest[at + close + 1..];
        let needs_test =
            tokens(attribute).iter().any(|t| t == "test") && !attribute.contains("not(test");
        let trimmed = after.trim_start();
        let is_mod = trimmed.starts_with("mod ") || trimmed.starts_with("pub(crate) mod ");
        match (needs_test && is_mod, after.find('{'), after.find(';')) {
            (true, Some(open), semi) if semi.is_none_or(|s| s > open) => {
                let mut depth = 0;
                let mut end = after.len();
                for (k, ch) in after[open..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &after[end..];
            }
            _ => {
                out.push_str(attribute);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every path in `code` of two segments or more, `use` trees expanded
/// (`a::{b, c::D}` gives `a::b` and `a::c::D`).
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let tokens = tokens(code);
    let mut paths = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "use" {
            let mut j = i + 1;
            let mut prefix = Vec::new();
            use_tree(&tokens, &mut j, &mut prefix, &mut paths);
            i = j;
            continue;
        }
        if is_ident(&tokens[i]) && (i == 0 || tokens[i - 1] != "::") {
            let mut path = vec![tokens[i].clone()];
            let mut j = i + 1;
            while j + 1 < tokens.len() && tokens[j] == "::" && is_ident(&tokens[j + 1]) {
                path.push(tokens[j + 1].clone());
                j += 2;
            }
            if path.len() > 1 {
                paths.push(path);
            }
            i = j;
            continue;
        }
        i += 1;
    }
    paths
}

/// Reads one use tree at `tokens[*j]`, pushing each full path.
fn use_tree(
    tokens: &[String],
    j: &mut usize,
    prefix: &mut Vec<String>,
    out: &mut Vec<Vec<String>>,
) {
    let depth = prefix.len();
    if tokens.get(*j).is_some_and(|t| t == "::") {
        *j += 1;
    }
    loop {
        match tokens.get(*j).map(String::as_str) {
            Some("{") => {
                *j += 1;
                loop {
                    use_tree(tokens, j, prefix, out);
                    match tokens.get(*j).map(String::as_str) {
                        Some(",") => *j += 1,
                        _ => break,
                    }
                    if tokens.get(*j).is_some_and(|t| t == "}") {
                        break;
                    }
                }
                if tokens.get(*j).is_some_and(|t| t == "}") {
                    *j += 1;
                }
                break;
            }
            Some(t) if is_ident(t) || t == "*" => {
                prefix.push(t.to_string());
                *j += 1;
                if tokens.get(*j).is_some_and(|t| t == "::") {
                    *j += 1;
                    continue;
                }
                if tokens.get(*j).is_some_and(|t| t == "as") {
                    *j += 2;
                }
                out.push(prefix.clone());
                break;
            }
            _ => break,
        }
    }
    prefix.truncate(depth);
    if depth == 0 && tokens.get(*j).is_some_and(|t| t == ";") {
        *j += 1;
    }
}

/// `code` as identifiers, `::` and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            tokens.push("::".to_string());
            i += 2;
        } else {
            if !c.is_whitespace() {
                tokens.push(c.to_string());
            }
            i += 1;
        }
    }
    tokens
}

fn is_ident(token: &str) -> bool {
    token
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The module (of a file) that `path`, named in `module` (file `file`),
/// reaches: the longest prefix that is a file's module.
fn resolve(
    module: &str,
    file: &str,
    path: &[String],
    modules: &BTreeMap<String, String>,
) -> Option<String> {
    let is_folder = file.ends_with("/mod.rs") || file.ends_with("src/lib.rs");
    let parent = |m: &str| m.rsplit_once("::").map(|(p, _)| p.to_string());
    let (mut base, rest) = match path[0].as_str() {
        "crate" => ("crate".to_string(), &path[1..]),
        "self" => (module.to_string(), &path[1..]),
        "super" => {
            // In `a/b.rs` (`crate::a::b`), `super` is `crate::a`.
            let mut base = parent(module)?;
            let mut rest = &path[1..];
            while rest.first().is_some_and(|s| s == "super") {
                base = parent(&base)?;
                rest = &rest[1..];
            }
            (base, rest)
        }
        first => {
            // A child module named without `self::` (`run::TestRun` in
            // `sandbox/mod.rs`, `outcome::outcome` in `runner/mod.rs`).
            let child = format!("{module}::{first}");
            if is_folder && modules.contains_key(&child) {
                (child, &path[1..])
            } else {
                return None;
            }
        }
    };
    for segment in rest {
        let deeper = format!("{base}::{segment}");
        if modules.contains_key(&deeper) {
            base = deeper;
        } else {
            break;
        }
    }
    Some(base)
}

/// The knots of `graph`: its strongly connected components of more than
/// one file (every file of one reaches every other round a circle), by
/// Tarjan's algorithm.
fn knots(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Search<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        knots: Vec<BTreeSet<String>>,
    }
    impl<'g> Search<'g> {
        fn visit(&mut self, file: &'g str) {
            let at = self.index.len();
            self.index.insert(file, at);
            self.low.insert(file, at);
            self.stack.push(file);
            self.on_stack.insert(file);
            for next in &self.graph[file] {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[file].min(self.low[next]);
                    self.low.insert(file, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[file].min(self.index[next]);
                    self.low.insert(file, low);
                }
            }
            if self.low[file] == self.index[file] {
                let mut knot = BTreeSet::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    knot.insert(top.to_string());
                    if top == file {
                        break;
                    }
                }
                if knot.len() > 1 {
                    self.knots.push(knot);
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        knots: Vec::new(),
    };
    for file in graph.keys() {
        if !search.index.contains_key(file.as_str()) {
            search.visit(file);
        }
    }
    search.knots.sort();
    search.knots
}

/// One circle through every file of `knot` as far as a walk finds it, for
/// the message: `a -> b -> a`.
fn a_circle(graph: &BTreeMap<String, BTreeSet<String>>, knot: &BTreeSet<String>) -> String {
    let start = knot.iter().next().unwrap();
    // Breadth-first from `start` back to `start`, inside the knot.
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(here) = queue.pop_front() {
        for next in graph[here].iter().filter(|n| knot.contains(*n)) {
            if next == start {
                let mut path = vec![start.as_str()];
                let mut at = here;
                while at != start {
                    path.push(at);
                    at = came_from[at];
                }
                path.push(start);
                path.reverse();
                return path.join(" -> ");
            }
            if !came_from.contains_key(next) {
                came_from.insert(next, here);
                queue.push_back(next);
            }
        }
    }
    String::new()
}

#[test]
fn no_file_of_the_library_imports_another_round_a_circle() {
    let graph = module_graph("src");
    assert!(
        graph["src/runner/session.rs"].contains("src/runner/grade_plan.rs"),
        "the graph is read: the session names its plan"
    );
    no_knot_in(&graph);
}

/// The report model and its formats show what the runner found without
/// naming the runner; the checks find without naming the report.
#[test]
fn the_report_does_not_import_the_runner_nor_the_checks_the_report() {
    let names = |graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str| {
        graph
            .iter()
            .filter(|(file, _)| file.starts_with(from))
            .flat_map(|(file, names)| {
                names
                    .iter()
                    .filter(|n| n.starts_with(to))
                    .map(move |n| format!("{file} -> {n}"))
            })
            .collect::<Vec<_>>()
    };
    let grader = module_graph("src");
    assert_eq!(
        names(&grader, "src/report/", "src/runner/"),
        Vec::<String>::new()
    );
    assert!(
        !names(&grader, "src/runner/", "src/report/").is_empty(),
        "the graph is read: the runner fills the report"
    );
    let judge = module_graph("crates/judge/src");
    assert_eq!(
        names(
            &judge,
            "crates/judge/src/check/",
            "crates/judge/src/report.rs"
        ),
        Vec::<String>::new()
    );
}

#[test]
fn no_file_of_the_workspace_crates_imports_another_round_a_circle() {
    let graph = module_graph("crates/judge/src");
    assert!(
        graph["crates/judge/src/check/trace.rs"].contains("crates/judge/src/finding.rs"),
        "the graph is read: the trace replay names its findings"
    );
    no_knot_in(&graph);
    for src in [
        "crates/judge-web/src",
        "crates/watch/src",
        "lab/src",
        "reference/src",
    ] {
        no_knot_in(&module_graph(src));
    }
}

/// Fails naming each knot of `graph` and a circle through it.
fn no_knot_in(graph: &BTreeMap<String, BTreeSet<String>>) {
    let found: Vec<String> = knots(graph)
        .iter()
        .map(|knot| {
            format!(
                "  {{{}}}\n    e.g. {}",
                knot.iter().cloned().collect::<Vec<_>>().join(", "),
                a_circle(graph, knot)
            )
        })
        .collect();
    assert!(
        found.is_empty(),
        "files that import each other round a circle (cut it: move what both \
         need down into a file both can import):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_graph_reader_sees_use_trees_super_and_child_modules_but_not_comments() {
    let code = code_only(
        "use crate::a::{b, c::{D, e}};\n// use crate::f;\nlet s = \"crate::g::h\";\nsuper::i::j();\nrun::k();\n#[cfg(test)]\nmod tests { use crate::l::m; }\n#[cfg(all(test, unix))]\nmod more { use crate::n::o; }\n#[cfg(not(test))]\nmod kept { use crate::p::q; }\n",
    );
    let paths = paths_in(&without_test_modules(&code));
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        joined,
        [
            "crate::a::b",
            "crate::a::c::D",
            "crate::a::c::e",
            "super::i::j",
            "run::k",
            "crate::p::q"
        ]
    );
}

//! A Jupyter notebook (`.ipynb`) handed in as Python: its code cells,
//! in order, are the module graded, without what only IPython runs.
//!
//! The rules ([`to_python`]):
//!
//! - cells are named as Jupyter shows them: code cells only, counted from
//!   1 from the top (markdown and raw cells have no number), with the
//!   `In [k]` prompt Jupyter prints beside a cell that ran
//!   (`execution_count`), when the notebook kept it: `code cell 3 (In [7])`;
//! - a code cell whose first non-blank line starts with `%%` (a cell magic:
//!   `%%timeit`, `%%bash`, `%%writefile`) is left out whole: its body is not
//!   Python;
//! - in the other code cells, a line whose first non-blank character is `%`
//!   (a line magic: `%matplotlib inline`) or `!` (a shell escape:
//!   `!pip install numpy`) is replaced by `pass` at its indentation, so a
//!   block around it stays a block and the lines keep their numbers; a cell
//!   holding nothing else is left out;
//! - a line that runs only on Google Colab is left out the same way: an
//!   import of `google.colab` (`from google.colab import drive`) and a
//!   statement using a name it bound (`drive.mount('/content/drive')`);
//! - the code cells taken are joined, each followed by one blank line, and
//!   the note ([`Converted::note`]) names every cell taken, with its lines
//!   in the joined program (Python's messages count those), and every cell
//!   left out, with why;
//! - a cell whose top-level code crashes when the module is imported (a
//!   demo cell `print(solve(board))` meeting a bug) is named from
//!   Python's own traceback, with what to do ([`Converted::import_crash`]).
//!
//! Only nbformat 4 (every Jupyter since 2015) is read, and only a Python
//! notebook (by its kernel's language, when it names one). What cannot be
//! read is refused with a message naming the file and what to do. Outputs
//! stored in the notebook are never looked at.
//!
//! Text to text only (no file system): the grader reads the file
//! (`submission::notebook`), a browser page brings its own bytes.

use serde_json::Value;

/// The largest notebook read, in bytes: a notebook keeps its outputs
/// (pictures as base64), so it may be far bigger than its code.
pub const MAX_NOTEBOOK_BYTES: u64 = 16 << 20;

/// A notebook turned into a Python module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Converted {
    /// The module: the code cells taken, in order.
    pub source: String,
    /// The cells taken: (code cell number, first line, last line in
    /// `source`).
    pub taken: Vec<(usize, usize, usize)>,
    /// The code cells left out: (code cell number, why).
    pub left_out: Vec<(usize, String)>,
    /// The lines left out inside cells taken: (code cell number, line in
    /// the cell, why).
    pub lines_left_out: Vec<(usize, usize, String)>,
    /// Each code cell's `execution_count` (its `In [k]`), in order: the
    /// code cell numbered `k` is at `k - 1`.
    pub prompts: Vec<Option<u64>>,
    /// What was taken and left out, for the student's own output.
    pub note: String,
}

/// The longest line of a student's cell quoted back.
const QUOTE_CAP: usize = 80;

impl Converted {
    /// The code cell numbered `number` as Jupyter shows it: `code cell 3`,
    /// or `code cell 3 (In [7])` when it kept its prompt's count.
    pub fn cell_name(&self, number: usize) -> String {
        match self.prompts.get(number.wrapping_sub(1)).copied().flatten() {
            Some(count) => format!("code cell {number} (In [{count}])"),
            None => format!("code cell {number}"),
        }
    }

    /// The code cell that holds line `line` of [`Converted::source`].
    pub fn cell_at(&self, line: usize) -> Option<usize> {
        self.taken
            .iter()
            .find(|(_, first, last)| (*first..=*last).contains(&line))
            .map(|(cell, _, _)| *cell)
    }

    /// What to do when importing the module raised while line `line` of
    /// its top level ran (the outermost `<module>` frame, which the Python
    /// harness reports as data): names the code cell that ran at import;
    /// `None` when no code cell holds that line.
    pub fn import_crash(&self, line: usize) -> Option<String> {
        let cell = self.cell_at(line)?;
        let code = self.source.lines().nth(line - 1)?.trim();
        let code = match code.char_indices().nth(QUOTE_CAP) {
            Some((cut, _)) => format!("{}...", &code[..cut]),
            None => code.to_string(),
        };
        Some(format!(
            "{} runs `{code}` (line {line}) when the grader imports your notebook, and that \
             raised the error above, so no test ran: put the cell's code under \
             `if __name__ == \"__main__\":` or leave the cell out; the grader then calls \
             legal, find_empty and solve itself",
            self.cell_name(cell)
        ))
    }
}

/// Why a line of a code cell is not Python, if it is not.
fn ipython_only(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    let first_word = || trimmed.split_whitespace().next().unwrap_or("").to_string();
    if trimmed.starts_with("%%") {
        Some(format!("cell magic {}", first_word()))
    } else if trimmed.starts_with('%') {
        Some(format!("magic {}", first_word()))
    } else if trimmed.starts_with('!') {
        Some("shell escape".to_string())
    } else {
        None
    }
}

/// Why a line of a code cell runs only on Google Colab, if it does: an
/// import of `google.colab` (`from google.colab import drive`, `import
/// google.colab`), whose names it binds are added to `names`, or a
/// statement that uses one of those names (`drive.mount('/content/drive')`,
/// `uploaded = files.upload()`).
fn colab_only(line: &str, names: &mut Vec<String>) -> Option<String> {
    let trimmed = line.trim();
    let words: Vec<&str> = trimmed
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let is_colab = |module: &str| module == "google.colab" || module.starts_with("google.colab.");
    match words.as_slice() {
        ["from", module, "import", rest @ ..] if is_colab(module) => {
            let mut bound = rest.iter().map(|w| w.trim_matches(['(', ')']));
            let mut last = None;
            while let Some(word) = bound.next() {
                match word {
                    "as" => last = bound.next().map(str::to_string),
                    "" => {}
                    name => {
                        names.extend(last.take());
                        last = Some(name.to_string());
                    }
                }
            }
            names.extend(last);
            return Some("google.colab import (Colab only)".to_string());
        }
        ["import", module, rest @ ..] if is_colab(module) => {
            let name = match rest {
                ["as", alias, ..] => (*alias).to_string(),
                _ => "google".to_string(),
            };
            names.push(name);
            return Some("google.colab import (Colab only)".to_string());
        }
        _ => {}
    }
    let uses = names.iter().find(|name| {
        let call = format!("{name}.");
        trimmed.starts_with(&call)
            || trimmed
                .split_once('=')
                .is_some_and(|(_, value)| value.trim_start().starts_with(&call))
    })?;
    Some(format!("uses google.colab's {uses} (Colab only)"))
}

/// The text of a cell's `source` (a string or a list of strings).
fn cell_text(source: &Value) -> Option<String> {
    match source {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => parts
            .iter()
            .map(|p| p.as_str())
            .collect::<Option<Vec<&str>>>()
            .map(|parts| parts.concat()),
        _ => None,
    }
}

/// The advice closing every refusal.
const WHAT_TO_DO: &str = "open it in Jupyter and save it again (File > Save), or hand in your code as a .py file (File > Download as > Python)";

/// The notebook `bytes` (shown as `name` in messages) as a Python module.
///
/// # Errors
/// A message naming `name`, what is wrong and what to do, when the file
/// is not JSON, not an nbformat 4 notebook, not a Python notebook, or has
/// no code to take.
pub fn to_python(bytes: &[u8], name: &str) -> Result<Converted, String> {
    let notebook: Value = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "{name} is not a notebook Jupyter can open: it is not valid JSON (line {}, column {}: {}): {WHAT_TO_DO}",
            e.line(),
            e.column(),
            serde_error_text(&e)
        )
    })?;
    let Some(top) = notebook.as_object() else {
        return Err(format!(
            "{name} is not a notebook: it holds JSON but no notebook object: {WHAT_TO_DO}"
        ));
    };
    match top.get("nbformat").and_then(Value::as_u64) {
        Some(4) => {}
        Some(version) => {
            return Err(format!(
                "{name} is a notebook of format {version}, and the grader reads format 4 (every Jupyter since 2015): {WHAT_TO_DO}"
            ));
        }
        None => {
            return Err(format!(
                "{name} is not a notebook: it has no `nbformat` number: {WHAT_TO_DO}"
            ));
        }
    }
    let metadata = top.get("metadata");
    let language = metadata
        .and_then(|m| m.pointer("/kernelspec/language"))
        .or_else(|| metadata.and_then(|m| m.pointer("/language_info/name")))
        .and_then(Value::as_str);
    if let Some(language) = language.filter(|l| !l.eq_ignore_ascii_case("python")) {
        return Err(format!(
            "{name} is a notebook in {language:?}, and the lab is graded in Python: write legal, find_empty and solve in a Python notebook (Kernel > Change kernel > Python 3)"
        ));
    }
    let Some(cells) = top.get("cells").and_then(Value::as_array) else {
        return Err(format!(
            "{name} is not a notebook: it has no list of `cells`: {WHAT_TO_DO}"
        ));
    };
    let mut converted = Converted {
        source: String::new(),
        taken: Vec::new(),
        left_out: Vec::new(),
        lines_left_out: Vec::new(),
        prompts: Vec::new(),
        note: String::new(),
    };
    let mut next_line = 1usize;
    let mut colab_names: Vec<String> = Vec::new();
    for cell in cells {
        if cell.get("cell_type").and_then(Value::as_str) != Some("code") {
            continue;
        }
        let count = cell.get("execution_count").and_then(Value::as_u64);
        converted.prompts.push(count);
        let number = converted.prompts.len();
        let Some(text) = cell.get("source").and_then(cell_text) else {
            return Err(format!(
                "{name}: {} has no source text (its `source` is not a string or a list of strings): {WHAT_TO_DO}",
                converted.cell_name(number)
            ));
        };
        let first = text.lines().find(|l| !l.trim().is_empty());
        let Some(first) = first else {
            continue; // an empty cell: nothing to take or to leave out
        };
        if first.trim_start().starts_with("%%") {
            let why = ipython_only(first).unwrap_or_default();
            converted.left_out.push((number, why));
            continue;
        }
        let mut lines = Vec::new();
        let mut dropped = Vec::new();
        for (at, line) in text.lines().enumerate() {
            match ipython_only(line).or_else(|| colab_only(line, &mut colab_names)) {
                Some(why) => {
                    let indent = &line[..line.len() - line.trim_start().len()];
                    lines.push(format!("{indent}pass"));
                    dropped.push((number, at + 1, why));
                }
                None => lines.push(line.to_string()),
            }
        }
        if dropped.len() == lines.iter().filter(|l| !l.trim().is_empty()).count() {
            let mut whys: Vec<String> = dropped.into_iter().map(|(_, _, why)| why).collect();
            whys.dedup();
            converted.left_out.push((number, whys.join(", ")));
            continue;
        }
        let last = next_line + lines.len() - 1;
        converted.taken.push((number, next_line, last));
        for line in &lines {
            converted.source.push_str(line);
            converted.source.push('\n');
        }
        converted.source.push('\n');
        next_line = last + 2;
        converted.lines_left_out.extend(dropped);
    }
    if converted.taken.is_empty() {
        let what = if converted.left_out.is_empty() {
            "no code cell".to_string()
        } else {
            format!(
                "no code cell the grader can take (left out {})",
                left_out_text(&converted)
            )
        };
        return Err(format!(
            "{name} has {what}: write legal, find_empty and solve in its code cells, save it, and hand it in again"
        ));
    }
    converted.note = note(name, &converted);
    Ok(converted)
}

/// `code cell 3: shell escape; code cell 5 (In [4]): cell magic %%timeit`.
fn left_out_text(converted: &Converted) -> String {
    converted
        .left_out
        .iter()
        .map(|(cell, why)| format!("{}: {why}", converted.cell_name(*cell)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// What [`Converted::note`] says.
fn note(name: &str, converted: &Converted) -> String {
    let cells: Vec<String> = converted
        .taken
        .iter()
        .map(|(cell, _, _)| cell.to_string())
        .collect();
    let lines: Vec<String> = converted
        .taken
        .iter()
        .map(|(cell, first, last)| {
            let cell = converted.cell_name(*cell);
            match first == last {
                true => format!("{cell} is line {first}"),
                false => format!("{cell} is lines {first}-{last}"),
            }
        })
        .collect();
    let plural = if cells.len() == 1 { "" } else { "s" };
    let mut note = format!(
        "took code cell{plural} {} of {name} as your Python program (in Python's messages, {})",
        cells.join(", "),
        lines.join(", ")
    );
    if !converted.left_out.is_empty() {
        note.push_str(&format!("; left out {}", left_out_text(converted)));
    }
    if !converted.lines_left_out.is_empty() {
        let lines: Vec<String> = converted
            .lines_left_out
            .iter()
            .map(|(cell, line, why)| {
                format!("line {line} of {}: {why}", converted.cell_name(*cell))
            })
            .collect();
        note.push_str(&format!("; left out {}", lines.join("; ")));
    }
    note
}

/// serde_json's message without its own " at line L column C" tail.
fn serde_error_text(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notebook(cells: &[(&str, &str)]) -> Vec<u8> {
        let cells: Vec<Value> = cells
            .iter()
            .map(|(kind, source)| {
                serde_json::json!({
                    "cell_type": kind,
                    "metadata": {},
                    "source": source.split_inclusive('\n').collect::<Vec<_>>(),
                    "outputs": [],
                    "execution_count": null,
                })
            })
            .collect();
        serde_json::to_vec(&serde_json::json!({
            "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }))
        .unwrap()
    }

    #[test]
    fn code_cells_are_taken_and_magics_and_shell_escapes_left_out() {
        let bytes = notebook(&[
            ("markdown", "# Lab 3\n"),
            ("code", "%matplotlib inline\nimport math\n"),
            ("code", "def f(x):\n    !echo hi\n    return x\n"),
            ("code", "!pip install numpy\n"),
            ("code", "%%timeit\nf(1)\n"),
            ("code", "\n"),
            ("code", "y = f(2)"),
        ]);
        let py = to_python(&bytes, "lab.ipynb").unwrap();
        assert_eq!(
            py.source,
            "pass\nimport math\n\ndef f(x):\n    pass\n    return x\n\ny = f(2)\n\n"
        );
        // Code cells only are counted, as Jupyter numbers them.
        assert_eq!(py.taken, vec![(1, 1, 2), (2, 4, 6), (6, 8, 8)]);
        assert_eq!(
            py.left_out,
            vec![
                (3, "shell escape".to_string()),
                (4, "cell magic %%timeit".to_string())
            ]
        );
        assert_eq!(
            py.note,
            "took code cells 1, 2, 6 of lab.ipynb as your Python program (in Python's messages, code cell 1 is lines 1-2, code cell 2 is lines 4-6, code cell 6 is line 8); left out code cell 3: shell escape; code cell 4: cell magic %%timeit; left out line 1 of code cell 1: magic %matplotlib; line 2 of code cell 2: shell escape"
        );
        // The line numbers the note gives are the program's.
        let lines: Vec<&str> = py.source.lines().collect();
        assert_eq!(lines[3], "def f(x):");
        assert_eq!(lines[7], "y = f(2)");
    }

    #[test]
    fn colab_only_lines_are_left_out_like_magics() {
        let bytes = notebook(&[
            (
                "code",
                "from google.colab import drive\ndrive.mount('/content/drive')\n",
            ),
            (
                "code",
                "import math\nfrom google.colab import files as f, output\ntry:\n    import google.colab\nexcept ImportError:\n    pass\nup = f.upload()\noutput.clear()\ndrive_count = 1\n",
            ),
        ]);
        let py = to_python(&bytes, "lab.ipynb").unwrap();
        assert_eq!(
            py.source,
            "import math\npass\ntry:\n    pass\nexcept ImportError:\n    pass\npass\npass\ndrive_count = 1\n\n"
        );
        assert_eq!(
            py.left_out,
            vec![(
                1,
                "google.colab import (Colab only), uses google.colab's drive (Colab only)"
                    .to_string()
            )]
        );
        assert_eq!(
            py.lines_left_out,
            vec![
                (2, 2, "google.colab import (Colab only)".to_string()),
                (2, 4, "google.colab import (Colab only)".to_string()),
                (2, 7, "uses google.colab's f (Colab only)".to_string()),
                (2, 8, "uses google.colab's output (Colab only)".to_string()),
            ]
        );
    }

    #[test]
    fn what_cannot_be_read_is_refused_with_the_file_and_what_to_do() {
        let err = to_python(b"{\"cells\": [", "sudoku.ipynb").unwrap_err();
        assert!(err.starts_with("sudoku.ipynb is not a notebook Jupyter can open: it is not valid JSON (line 1, column 11"), "{err}");
        assert!(err.contains("File > Save"), "{err}");
        let err = to_python(b"[1, 2]", "a.ipynb").unwrap_err();
        assert!(err.contains("no notebook object"), "{err}");
        let err = to_python(b"{\"nbformat\": 3, \"worksheets\": []}", "a.ipynb").unwrap_err();
        assert!(err.contains("format 3"), "{err}");
        let err = to_python(b"{\"nbformat\": 4}", "a.ipynb").unwrap_err();
        assert!(err.contains("no list of `cells`"), "{err}");
        let err = to_python(
            b"{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": 7}]}",
            "a.ipynb",
        )
        .unwrap_err();
        assert!(err.contains("code cell 1 has no source text"), "{err}");
        let err = to_python(
            b"{\"nbformat\": 4, \"metadata\": {\"kernelspec\": {\"language\": \"R\"}}, \"cells\": []}",
            "a.ipynb",
        )
        .unwrap_err();
        assert!(err.contains("notebook in \"R\""), "{err}");
        let err = to_python(
            &notebook(&[("markdown", "hi"), ("code", "!ls\n")]),
            "a.ipynb",
        )
        .unwrap_err();
        assert_eq!(
            err,
            "a.ipynb has no code cell the grader can take (left out code cell 1: shell escape): write legal, find_empty and solve in its code cells, save it, and hand it in again"
        );
        let err = to_python(&notebook(&[("markdown", "hi")]), "a.ipynb").unwrap_err();
        assert!(err.starts_with("a.ipynb has no code cell:"), "{err}");
    }

    #[test]
    fn a_source_given_as_one_string_is_read_too() {
        let bytes = br#"{"nbformat": 4, "nbformat_minor": 2, "metadata": {}, "cells": [{"cell_type": "code", "source": "x = 1\ny = 2", "metadata": {}, "outputs": []}]}"#;
        let py = to_python(bytes, "n.ipynb").unwrap();
        assert_eq!(py.source, "x = 1\ny = 2\n\n");
        assert_eq!(py.taken, vec![(1, 1, 2)]);
        assert!(py.left_out.is_empty());
    }

    /// A notebook whose code cells kept their prompts' counts.
    fn ran_notebook(cells: &[(&str, &str, Option<u64>)]) -> Vec<u8> {
        let cells: Vec<Value> = cells
            .iter()
            .map(|(kind, source, count)| {
                serde_json::json!({
                    "cell_type": kind,
                    "metadata": {},
                    "source": source.split_inclusive('\n').collect::<Vec<_>>(),
                    "outputs": [],
                    "execution_count": count,
                })
            })
            .collect();
        serde_json::to_vec(&serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
            .unwrap()
    }

    #[test]
    fn cells_are_named_as_jupyter_shows_them() {
        let bytes = ran_notebook(&[
            ("markdown", "# Lab\n", None),
            ("code", "def f():\n    return 1\n", Some(3)),
            ("markdown", "try it\n", None),
            ("code", "!ls\n", None),
            ("code", "x = f()\n", Some(1)),
        ]);
        let py = to_python(&bytes, "lab.ipynb").unwrap();
        assert_eq!(py.prompts, vec![Some(3), None, Some(1)]);
        assert_eq!(py.cell_name(1), "code cell 1 (In [3])");
        assert_eq!(py.cell_name(2), "code cell 2");
        assert_eq!(py.cell_name(9), "code cell 9");
        assert_eq!(
            py.note,
            "took code cells 1, 3 of lab.ipynb as your Python program (in Python's messages, code cell 1 (In [3]) is lines 1-2, code cell 3 (In [1]) is line 4); left out code cell 2: shell escape"
        );
        assert_eq!(
            (py.cell_at(2), py.cell_at(3), py.cell_at(4)),
            (Some(1), None, Some(3))
        );
    }

    #[test]
    fn a_cell_that_crashes_at_import_is_named_with_the_fix() {
        let bytes = ran_notebook(&[
            ("code", "def solve(board):\n    r, c = False\n", Some(1)),
            ("markdown", "demo\n", None),
            ("code", "board = [[0]]\nprint(solve(board))\n", Some(2)),
        ]);
        let py = to_python(&bytes, "lab.ipynb").unwrap();
        let hint = py.import_crash(5).unwrap();
        assert!(
            hint.starts_with("code cell 2 (In [2]) runs `print(solve(board))` (line 5) when the grader imports your notebook"),
            "{hint}"
        );
        assert!(hint.contains("`if __name__ == \"__main__\":`"), "{hint}");
        // A line no code cell holds (the blank line between cells, or
        // past the end): no claim.
        assert_eq!(py.import_crash(3), None);
        assert_eq!(py.import_crash(99), None);
    }
}

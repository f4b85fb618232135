//! [`CaseError`]: why a case file or `grader.toml` could not be loaded, or written.

use std::fmt;
use std::path::PathBuf;

/// Why cases could not be loaded. Every message names the file, and where
/// it can, the line and the case, and says what to do.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// A file or folder could not be read. The I/O error is part of the
    /// message (once), not a source an error chain would print again.
    #[error("{}", read_failure(path, error))]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        error: std::io::Error,
    },
    /// A folder (or list of paths) holds no case file.
    #[error("no case files in {}: add a .toml file with [[case]] tables (see cases/README.md)", path.display())]
    NoCases {
        /// The folder or path given.
        path: PathBuf,
    },
    /// A file is not valid, at a place in it.
    #[error("{}", Located { file, line: *line, column: *column, case: case.as_deref(), message })]
    Invalid {
        /// The file.
        file: PathBuf,
        /// The 1-based line.
        line: usize,
        /// The 1-based column.
        column: usize,
        /// The case concerned, if one is.
        case: Option<String>,
        /// What is wrong and what to do.
        message: String,
    },
    /// A case file loads but cannot be edited in place.
    #[error("{}: {reason}", file.display())]
    Edit {
        /// The file.
        file: PathBuf,
        /// Why, and what to do.
        reason: String,
    },
    /// A case file could not be written.
    #[error("cannot {action} {}: {source}", path.display())]
    Write {
        /// What was being done, e.g. "create a temporary file in".
        action: &'static str,
        /// The file or its folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

impl CaseError {
    /// The line of an [`CaseError::Invalid`] error (for tests and reports).
    pub fn line(&self) -> Option<usize> {
        match self {
            CaseError::Invalid { line, .. } => Some(*line),
            _ => None,
        }
    }
}

struct Located<'a> {
    file: &'a PathBuf,
    line: usize,
    column: usize,
    case: Option<&'a str>,
    message: &'a str,
}

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file.display(), self.line, self.column)?;
        if let Some(case) = self.case {
            write!(f, "case \"{case}\": ")?;
        }
        f.write_str(self.message)
    }
}

/// "cannot read PATH: why", and for a path that is not there, what to give
/// instead (a folder of case files, or one case file).
fn read_failure(path: &std::path::Path, error: &std::io::Error) -> String {
    if error.kind() == std::io::ErrorKind::NotFound {
        format!(
            "{} does not exist: give a folder of case files (.toml files with [[case]] tables, e.g. the bundled `cases`) or one case file",
            path.display()
        )
    } else {
        format!("cannot read {}: {error}", path.display())
    }
}

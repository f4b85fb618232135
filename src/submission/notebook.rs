//! A Jupyter notebook (`.ipynb`) handed in as Python. The conversion of
//! its text into a Python module is the judge's
//! ([`grader_judge::notebook`], shared with the browser page); here is
//! what needs the file: telling a notebook by its name.

pub(crate) use grader_judge::notebook::{MAX_NOTEBOOK_BYTES, to_python};

/// Whether `path` names a notebook (by its extension).
pub(crate) fn is_notebook(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "ipynb")
}

//! A notebook handed in as Python: the judge's conversion
//! (`grader_judge::notebook`), the same as `grader check`'s.

use grader_judge::notebook::{MAX_NOTEBOOK_BYTES, to_python};
use serde::{Deserialize, Serialize};

/// [`convert`]'s input.
#[derive(Deserialize)]
pub(crate) struct Notebook {
    /// The file's name, as Python's messages and the note name it.
    name: String,
    /// The notebook's JSON text.
    text: String,
}

/// The Python program, and what the student should know of it.
#[derive(Serialize)]
pub(crate) struct Program {
    source: String,
    note: String,
}

/// The notebook's code cells as a Python program; `Err` says why it
/// cannot be read (the check's build error).
pub(crate) fn convert(input: Notebook) -> Result<Program, String> {
    if input.text.len() as u64 > MAX_NOTEBOOK_BYTES {
        return Err(format!(
            "{} is larger than {} MiB: clear its outputs in Jupyter (Edit > Clear All Outputs) and save it again",
            input.name,
            MAX_NOTEBOOK_BYTES >> 20
        ));
    }
    let converted = to_python(input.text.as_bytes(), &input.name)?;
    Ok(Program {
        source: converted.source,
        note: converted.note,
    })
}

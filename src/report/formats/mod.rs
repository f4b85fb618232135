//! The report's formats, one file each, and the one trait the file
//! formats implement ([`ReportFormat`]): JSON, JUnit, CSV, Gradescope,
//! GitHub Classroom, HTML and the Markdown summary, written to their files
//! by the one dispatcher (`report/dispatch.rs`); `terminal.rs` is the class
//! summary printed after a grading run. Each format reads the report model
//! (`report/mod.rs`) and draws what it holds; none decides anything.

pub(crate) mod classroom;
pub(crate) mod csv;
pub(crate) mod gradescope;
pub(crate) mod html;
pub(crate) mod json;
pub(crate) mod junit;
pub(crate) mod summary_md;
pub(crate) mod terminal;

use std::io::Write;

use super::Report;

/// A report format: writes the whole [`Report`] to one sink.
pub(crate) trait ReportFormat {
    /// Writes `report` to `out`, flushing at the end.
    ///
    /// # Errors
    /// When writing fails, or the format cannot hold this report (a
    /// Gradescope report of several submissions).
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()>;
}

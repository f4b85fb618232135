//! One trait every report format implements ([`ReportFormat`]), in a
//! file of its own: the formats implement it and the dispatcher
//! (`dispatch.rs`) calls it, so neither imports the other's file for it.

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

//! The JSON report (SPEC 6), with the `run` section beside its fields.
//! A time that is not a finite number (a forged `NaN` or infinity) is
//! written as `null`, as serde_json does, so the output always parses.

use std::io::{self, Write};

use super::ReportFormat;
use crate::report::Report;

/// The JSON format for the dispatcher.
pub(crate) struct Json;

impl ReportFormat for Json {
    fn write(&self, report: &Report, out: &mut dyn Write) -> anyhow::Result<()> {
        Ok(write(report, out)?)
    }
}

/// Writes `report` as pretty-printed JSON, with a final newline.
pub(crate) fn write(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    writeln!(out)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Status, SubmissionReport, TestReport};
    use crate::verdict::{Function, Verdict};

    #[test]
    fn follows_the_spec_schema() {
        let report = Report {
            version: 1,
            run: None,
            submissions: vec![SubmissionReport {
                id: "alice".into(),
                kind: Some("c".into()),
                status: Status::Ok,
                message: String::new(),
                hint: None,
                score: 0,
                max_score: 1,
                notes: Vec::new(),
                fixed_size: None,
                fault: None,
                tests: vec![TestReport {
                    case: "campus-4x4".into(),
                    function: Function::FindEmpty,
                    verdict: Verdict::Wrong,
                    points: 0,
                    max_points: 1,
                    time_ms: Some(0.5),
                    wall_ms: None,
                    reruns: 0,
                    check: None,
                    fault: None,
                    message: "m".into(),
                    output: "o".into(),
                    board: None,
                    finding: None,
                    hidden: true,
                    description: None,
                    side: None,
                }],
            }],
        };
        let mut out = Vec::new();
        write(&report, &mut out).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let sub = &value["submissions"][0];
        assert_eq!(value["version"], 1);
        assert_eq!(sub["id"], "alice");
        assert_eq!(sub["kind"], "c");
        assert_eq!(sub["status"], "ok");
        let test = &sub["tests"][0];
        assert_eq!(test["function"], "find_empty");
        assert_eq!(test["verdict"], "wrong");
        assert_eq!(test["time_ms"], 0.5);
        assert!(
            test.get("board").is_none(),
            "no board key when there is no board"
        );
        assert!(
            test.get("hidden").is_none(),
            "hidden is not part of the schema"
        );
    }
}

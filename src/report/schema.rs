//! The JSON report's schema (`schemas/report.schema.json`), generated from
//! the report's own types by `schemars`: what `grader grade --json` writes
//! is what [`Report`] serializes, so the schema is made from [`Report`]
//! and never written by hand. `grader checks --report-schema` prints it;
//! a unit test keeps the committed file equal to what this makes; `GRADER_UPDATE_SCHEMA=1 cargo test -p grader --lib
//! report::schema` writes it anew after a change to the types.

use schemars::generate::SchemaSettings;

use super::{REPORT_VERSION, Report};

/// Where the schema is published, as its `$id`.
const SCHEMA_ID: &str = "https://github.com/grader/schemas/report.schema.json";

/// The JSON report's schema (JSON Schema 2020-12), as committed in
/// `schemas/report.schema.json`, with a newline at the end.
pub(crate) fn report_schema() -> String {
    let mut schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<Report>();
    schema.insert("$id".into(), SCHEMA_ID.into());
    schema.insert(
        "title".into(),
        format!("grader JSON report (SPEC 6), version {REPORT_VERSION}").into(),
    );
    schema.insert(
        "description".into(),
        "What `grader grade --json` writes. Generated from the report's types \
         (src/report/schema.rs); tests/integration/reports.rs validates real runs against it."
            .into(),
    );
    if let Some(version) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut("version"))
        .and_then(|v| v.as_object_mut())
    {
        version.insert("const".into(), REPORT_VERSION.into());
    }
    let mut text = serde_json::to_string_pretty(&schema).expect("a schema serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed schema is the one the types make.
    #[test]
    fn the_committed_schema_is_the_one_the_report_types_make() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/report.schema.json");
        let made = report_schema();
        if std::env::var_os("GRADER_UPDATE_SCHEMA").is_some() {
            std::fs::write(&path, &made).expect("the schema is written");
            return;
        }
        let committed = std::fs::read_to_string(&path).expect("the committed schema is readable");
        assert!(
            committed == made,
            "schemas/report.schema.json is not what the report's types make: run \
             `GRADER_UPDATE_SCHEMA=1 cargo test -p grader --lib report::schema` and commit it"
        );
    }

    /// The schema holds what a reader needs: the checks' ids, the findings'
    /// tags, the boards as data and the version.
    #[test]
    fn the_schema_names_the_checks_findings_boards_and_version() {
        let schema: serde_json::Value = serde_json::from_str(&report_schema()).unwrap();
        let defs = &schema["$defs"];
        let ids: Vec<&str> = defs["Check"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(
            ids.contains(&"solve.leftover") && ids.contains(&"legal"),
            "{ids:?}"
        );
        let findings = serde_json::to_string(&defs["Finding"]).unwrap();
        assert!(findings.contains("gave_up_at_once"), "{findings}");
        assert!(defs["BoardView"]["properties"]["rows"].is_object());
        assert_eq!(schema["properties"]["version"]["const"], REPORT_VERSION);
        assert_eq!(defs["TestReport"]["additionalProperties"], false);
    }
}

//! Fast decoding of the protocol's two large messages: the [`WorkerInput`]
//! a worker reads (its probe may hold 20 000 `legal` queries) and the
//! `done` line the grader reads back (as many answers).
//!
//! `Probe`, `Response` and `WorkerMessage` are internally tagged enums.
//! serde's derived decoder for those first copies the whole object into a
//! generic tree, then decodes that tree: for a 60 kB probe that is over a
//! millisecond in a fresh worker process, more than all the sandboxing. The
//! decoders here read the same JSON straight into the types when the tag
//! comes first (as serde writes it), and otherwise, or on any error, defer
//! to the derived decoder, so what is accepted and every error message stay
//! exactly the derived ones.

use std::fmt;
use std::path::PathBuf;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::check::{Probe, Response};
use crate::protocol::{CodeKind, Limits, SandboxPlan, WorkerInput, WorkerMessage, WorkerRequest};

/// Decodes a [`WorkerInput`] (the same result and errors as
/// `serde_json::from_slice::<WorkerInput>`, faster).
///
/// # Errors
/// When `bytes` is not a valid [`WorkerInput`].
pub fn decode_input(bytes: &[u8]) -> serde_json::Result<WorkerInput> {
    match serde_json::from_slice::<FastInput>(bytes) {
        Ok(fast) => Ok(fast.into()),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// Decodes one protocol line (the same result and errors as
/// `serde_json::from_slice::<WorkerMessage>`, faster for `done`).
///
/// # Errors
/// When `line` is not a valid [`WorkerMessage`].
pub fn decode_message(line: &[u8]) -> serde_json::Result<WorkerMessage> {
    // Only a `done` line is large; the others go straight to serde.
    if line.len() > 256 {
        if let Ok(FastDone { response, time_ms }) = serde_json::from_slice(line) {
            return Ok(WorkerMessage::Done { response, time_ms });
        }
    }
    serde_json::from_slice(line)
}

/// [`WorkerInput`] with a fast probe decoder. Converting it names every
/// field, so a field added to the protocol fails to compile here.
#[derive(Deserialize)]
struct FastInput {
    request: FastRequest,
    #[serde(default)]
    sandbox: SandboxPlan,
}

/// [`WorkerRequest`] with a fast probe decoder.
#[derive(Deserialize)]
struct FastRequest {
    kind: CodeKind,
    code: PathBuf,
    probe: FastProbe,
    limits: Limits,
}

impl From<FastInput> for WorkerInput {
    fn from(fast: FastInput) -> WorkerInput {
        let FastInput { request, sandbox } = fast;
        let FastRequest {
            kind,
            code,
            probe,
            limits,
        } = request;
        WorkerInput {
            request: WorkerRequest {
                kind,
                code,
                probe: probe.0,
                limits,
            },
            sandbox,
        }
    }
}

/// A [`Probe`] decoded field by field; fails (to the derived decoder) unless
/// `"function"` is the first key.
struct FastProbe(Probe);

impl<'de> Deserialize<'de> for FastProbe {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FastProbe, D::Error> {
        deserializer.deserialize_map(ProbeVisitor)
    }
}

struct ProbeVisitor;

impl<'de> Visitor<'de> for ProbeVisitor {
    type Value = FastProbe;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a probe object whose first key is \"function\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastProbe, A::Error> {
        let function = tag_first(&mut map, "function")?;
        let mut n: Option<usize> = None;
        let mut boards: Option<Vec<Vec<u8>>> = None;
        let mut queries: Option<Vec<[usize; 4]>> = None;
        let mut board: Option<Vec<u8>> = None;
        while let Some(key) = map.next_key::<Key>()? {
            match key.0.as_str() {
                "n" => set(&mut n, map.next_value()?, "n")?,
                "boards" => set(&mut boards, map.next_value()?, "boards")?,
                "queries" => set(&mut queries, map.next_value()?, "queries")?,
                "board" => set(&mut board, map.next_value()?, "board")?,
                "function" => return Err(de::Error::duplicate_field("function")),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let probe = match function.as_str() {
            "legal" => Probe::Legal {
                n: need(n, "n")?,
                boards: need(boards, "boards")?,
                queries: need(queries, "queries")?,
            },
            "find_empty" => Probe::FindEmpty {
                n: need(n, "n")?,
                boards: need(boards, "boards")?,
            },
            "solve" => Probe::Solve {
                n: need(n, "n")?,
                board: need(board, "board")?,
            },
            other => {
                return Err(de::Error::unknown_variant(
                    other,
                    &["legal", "find_empty", "solve"],
                ));
            }
        };
        Ok(FastProbe(probe))
    }
}

/// The `done` message, decoded field by field; fails (to the derived
/// decoder) unless `"type"` is the first key and says `done`.
struct FastDone {
    response: Response,
    time_ms: f64,
}

impl<'de> Deserialize<'de> for FastDone {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FastDone, D::Error> {
        deserializer.deserialize_map(DoneVisitor)
    }
}

struct DoneVisitor;

impl<'de> Visitor<'de> for DoneVisitor {
    type Value = FastDone;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a done message whose first key is \"type\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastDone, A::Error> {
        let kind = tag_first(&mut map, "type")?;
        if kind != "done" {
            return Err(de::Error::custom("not a done message"));
        }
        let mut response: Option<FastResponse> = None;
        let mut time_ms: Option<f64> = None;
        while let Some(key) = map.next_key::<Key>()? {
            match key.0.as_str() {
                "response" => set(&mut response, map.next_value()?, "response")?,
                "time_ms" => set(&mut time_ms, map.next_value()?, "time_ms")?,
                "type" => return Err(de::Error::duplicate_field("type")),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(FastDone {
            response: need(response, "response")?.0,
            time_ms: need(time_ms, "time_ms")?,
        })
    }
}

/// A [`Response`] decoded field by field; fails (to the derived decoder)
/// unless `"function"` is the first key.
struct FastResponse(Response);

impl<'de> Deserialize<'de> for FastResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FastResponse, D::Error> {
        deserializer.deserialize_map(ResponseVisitor)
    }
}

struct ResponseVisitor;

impl<'de> Visitor<'de> for ResponseVisitor {
    type Value = FastResponse;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a response object whose first key is \"function\"")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastResponse, A::Error> {
        let function = tag_first(&mut map, "function")?;
        // `answers` has a different type per function: the tag decides.
        let response = match function.as_str() {
            "legal" => {
                let mut answers: Option<Vec<bool>> = None;
                while let Some(key) = map.next_key::<Key>()? {
                    match key.0.as_str() {
                        "answers" => set(&mut answers, map.next_value()?, "answers")?,
                        "function" => return Err(de::Error::duplicate_field("function")),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Response::Legal {
                    answers: need(answers, "answers")?,
                }
            }
            "find_empty" => {
                let mut answers: Option<Vec<Option<[usize; 2]>>> = None;
                while let Some(key) = map.next_key::<Key>()? {
                    match key.0.as_str() {
                        "answers" => set(&mut answers, map.next_value()?, "answers")?,
                        "function" => return Err(de::Error::duplicate_field("function")),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Response::FindEmpty {
                    answers: need(answers, "answers")?,
                }
            }
            "solve" => {
                let mut solved: Option<bool> = None;
                let mut board: Option<Vec<u8>> = None;
                while let Some(key) = map.next_key::<Key>()? {
                    match key.0.as_str() {
                        "solved" => set(&mut solved, map.next_value()?, "solved")?,
                        "board" => set(&mut board, map.next_value()?, "board")?,
                        "function" => return Err(de::Error::duplicate_field("function")),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Response::Solve {
                    solved: need(solved, "solved")?,
                    board: need(board, "board")?,
                }
            }
            other => {
                return Err(de::Error::unknown_variant(
                    other,
                    &["legal", "find_empty", "solve"],
                ));
            }
        };
        Ok(FastResponse(response))
    }
}

/// A map key, owned (keys are few and short).
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        String::deserialize(deserializer).map(Key)
    }
}

/// Reads the first entry of `map`, which must be the string tag `name`.
fn tag_first<'de, A: MapAccess<'de>>(map: &mut A, name: &'static str) -> Result<String, A::Error> {
    match map.next_key::<Key>()? {
        Some(Key(key)) if key == name => map.next_value::<String>(),
        _ => Err(de::Error::custom(format_args!(
            "`{name}` is not the first key"
        ))),
    }
}

/// Stores a field's value, refusing a second one.
fn set<T, E: de::Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(value);
    Ok(())
}

/// A required field's value.
fn need<T, E: de::Error>(slot: Option<T>, name: &'static str) -> Result<T, E> {
    slot.ok_or_else(|| E::missing_field(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(probe: Probe) -> WorkerInput {
        WorkerInput {
            request: WorkerRequest {
                kind: CodeKind::Library,
                code: PathBuf::from("/tmp/x/lib.so"),
                probe,
                limits: Limits {
                    time_limit_ms: 1000,
                    memory_limit_mb: 256,
                },
            },
            sandbox: SandboxPlan {
                cgroup_procs: vec![PathBuf::from("/sys/fs/cgroup/pids/g/cgroup.procs")],
                uid: Some(65534),
                gid: Some(65534),
                address_space_mb: Some(1024),
                ..SandboxPlan::default()
            },
        }
    }

    fn probes() -> Vec<Probe> {
        let board: Vec<u8> = (0..16).map(|i| (i % 5) as u8).collect();
        vec![
            Probe::Legal {
                n: 2,
                boards: vec![board.clone(), vec![0; 16]],
                queries: (0..500)
                    .map(|i| [i % 2, i % 4, (i / 4) % 4, 1 + i % 4])
                    .collect(),
            },
            Probe::FindEmpty {
                n: 2,
                boards: vec![board.clone(), vec![1; 16]],
            },
            Probe::Solve { n: 2, board },
        ]
    }

    /// Both decoders' results, as `Ok(value)` or the error text.
    fn both<T: PartialEq + fmt::Debug>(
        fast: serde_json::Result<T>,
        derived: serde_json::Result<T>,
    ) -> Result<T, String> {
        let fast = fast.map_err(|e| e.to_string());
        let derived = derived.map_err(|e| e.to_string());
        assert_eq!(fast, derived);
        fast
    }

    fn same_input(text: &str) -> Result<WorkerInput, String> {
        both(
            decode_input(text.as_bytes()),
            serde_json::from_str::<WorkerInput>(text),
        )
    }

    fn same_message(text: &str) -> Result<WorkerMessage, String> {
        both(
            decode_message(text.as_bytes()),
            serde_json::from_str::<WorkerMessage>(text),
        )
    }

    #[test]
    fn inputs_round_trip_like_the_derived_decoder() {
        for probe in probes() {
            let original = input(probe);
            let text = serde_json::to_string(&original).expect("serialises");
            assert!(text.contains("{\"function\":"), "tag first: {text:.80}");
            assert!(
                serde_json::from_str::<FastInput>(&text).is_ok(),
                "the fast path takes it"
            );
            assert_eq!(same_input(&text), Ok(original));
        }
    }

    #[test]
    fn other_key_orders_and_bad_inputs_match_the_derived_decoder() {
        let tag_last = r#"{"request":{"kind":"library","code":"/x.so","probe":{"n":2,"board":[1,0,0,4],"function":"solve"},"limits":{"time_limit_ms":5,"memory_limit_mb":6}}}"#;
        let decoded = same_input(tag_last).expect("valid");
        assert_eq!(
            decoded.request.probe,
            Probe::Solve {
                n: 2,
                board: vec![1, 0, 0, 4]
            }
        );
        assert_eq!(decoded.sandbox, SandboxPlan::default());
        let extra = r#"{"request":{"kind":"library","code":"/x.so","probe":{"function":"find_empty","n":2,"boards":[[0]],"board":[9],"what":{"a":[1]}},"limits":{"time_limit_ms":5,"memory_limit_mb":6}},"sandbox":{}}"#;
        same_input(extra).expect("unknown fields are ignored");
        for bad in [
            r#"{"request":{"kind":"library","code":"/x.so","probe":{"function":"legal","n":2,"boards":[[0]]},"limits":{"time_limit_ms":5,"memory_limit_mb":6}}}"#,
            r#"{"request":{"kind":"library","code":"/x.so","probe":{"function":"guess","n":2},"limits":{"time_limit_ms":5,"memory_limit_mb":6}}}"#,
            r#"{"request":{"kind":"library","code":"/x.so","probe":{"function":"solve","n":2,"board":[300]},"limits":{"time_limit_ms":5,"memory_limit_mb":6}}}"#,
            r#"{"request":{"kind":"library","code":"/x.so","probe":{"function":"solve","n":2,"n":3,"board":[1]},"limits":{"time_limit_ms":5,"memory_limit_mb":6}}}"#,
            r#"{"request":{"kind":"rust","code":"/x.so","probe":{"function":"solve","n":2,"board":[1]},"limits":{"time_limit_ms":5,"memory_limit_mb":6}}}"#,
            r#"{"request":{"kind":"library","code":"/x.so","probe":{"function":"solve","n":2,"board":[1]}}}"#,
            "{\"request\":",
            "",
        ] {
            assert!(same_input(bad).is_err(), "accepted {bad}");
        }
    }

    #[test]
    fn done_messages_match_the_derived_decoder() {
        let responses = [
            Response::Legal {
                answers: (0..300).map(|i| i % 3 == 0).collect(),
            },
            Response::FindEmpty {
                answers: (0..100)
                    .map(|i| (i % 4 != 0).then_some([i, i + 1]))
                    .collect(),
            },
            Response::Solve {
                solved: true,
                board: (0..=255).collect(),
            },
        ];
        for response in responses {
            let done = WorkerMessage::Done {
                response,
                time_ms: 0.25,
            };
            let text = serde_json::to_string(&done).expect("serialises");
            assert!(text.len() > 256, "exercises the fast path");
            assert!(
                serde_json::from_str::<FastDone>(&text).is_ok(),
                "the fast path takes it"
            );
            assert_eq!(same_message(&text), Ok(done));
        }
        let pad = format!("\"pad\":\"{}\"", "x".repeat(300));
        for text in [
            format!(
                r#"{{"type":"done",{pad},"time_ms":1.5,"response":{{"function":"solve","solved":false,"board":[1,2]}}}}"#
            ),
            format!(
                r#"{{{pad},"type":"done","time_ms":1.5,"response":{{"function":"solve","solved":false,"board":[1,2]}}}}"#
            ),
            format!(
                r#"{{"type":"done","time_ms":1.5,"response":{{"answers":[true],"function":"legal",{pad}}}}}"#
            ),
            format!(
                r#"{{"type":"sandbox_note","message":"{}"}}"#,
                "y".repeat(300)
            ),
        ] {
            same_message(&text).expect("valid");
        }
        for bad in [
            format!(
                r#"{{"type":"done",{pad},"response":{{"function":"solve","solved":false,"board":[1,2]}}}}"#
            ),
            format!(
                r#"{{"type":"done","time_ms":1,{pad},"response":{{"function":"legal","answers":[[1,2]]}}}}"#
            ),
            format!(
                r#"{{"type":"done","time_ms":1,"time_ms":2,{pad},"response":{{"function":"legal","answers":[]}}}}"#
            ),
            format!(r#"{{"type":"gone",{pad}}}"#),
            format!("not json {pad}"),
        ] {
            assert!(same_message(&bad).is_err(), "accepted {bad}");
        }
    }
}

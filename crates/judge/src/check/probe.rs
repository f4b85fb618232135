//! The questions a test asks of student code, and its answers: plain data,
//! serialisable as JSON so that a test child in any language (the worker
//! program, the Python harness) can read them.
//!
//! Both are adjacently tagged, `{"function": "solve", "args": {...}}`: with
//! the tag first (as serde writes it), serde decodes the arguments straight
//! into the types, where an internally tagged enum would first copy the
//! whole object (up to 20,000 `legal` queries) into a generic tree.

use serde::{Deserialize, Serialize};

/// What to ask of student code for one test. Boards are row-major cells of
/// a board with box size `n`. Holds no expected answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "function", content = "args", rename_all = "snake_case")]
pub enum Probe {
    /// Call `legal(boards[b], r, c, v)` for each `[b, r, c, v]` of `queries`.
    Legal {
        /// Box size.
        n: usize,
        /// The boards asked about.
        boards: Vec<Vec<u8>>,
        /// `[board index, row, column, digit]`. On the wire, packed (see
        /// `packed_queries`).
        #[serde(with = "packed_queries")]
        queries: Vec<[usize; 4]>,
    },
    /// Call `find_empty` on each board.
    FindEmpty {
        /// Box size.
        n: usize,
        /// The boards asked about.
        boards: Vec<Vec<u8>>,
    },
    /// Call `solve` on the board, in place.
    Solve {
        /// Box size.
        n: usize,
        /// The start board.
        board: Vec<u8>,
    },
}

/// What student code answered to a [`Probe`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "function", content = "args", rename_all = "snake_case")]
pub enum Response {
    /// One answer per query, in order.
    Legal {
        /// `legal`'s answers. On the wire, a string of `0` and `1` (see
        /// `bit_string`).
        #[serde(with = "bit_string")]
        answers: Vec<bool>,
    },
    /// One answer per board, in order: `[row, column]`, `null` for
    /// "none", or what else it returned (see [`FindEmptyAnswer`]).
    FindEmpty {
        /// `find_empty`'s answers.
        answers: Vec<Option<FindEmptyAnswer>>,
    },
    /// What `solve` returned, and the board as it left it.
    Solve {
        /// The return value.
        solved: bool,
        /// The board after the call, cells as written (may be out of range).
        board: Vec<u8>,
    },
}

/// What `find_empty` returned for one board, when it returned something
/// other than "none".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FindEmptyAnswer {
    /// A cell, `[row, column]` (which may be off the board).
    Cell([usize; 2]),
    /// Anything else (only a Python `find_empty` can return it: `False`,
    /// `(-1, -1)`, a string): the harness's short description of the
    /// value, written in the student's process, so shown as the student's
    /// text and never read for meaning.
    Other {
        /// As Python writes the value (`False`, `(-1, -1)`), or its type
        /// (`a list of 3 items`), at most [`FindEmptyAnswer::RETURNED_CAP`]
        /// characters.
        returned: String,
    },
}

impl FindEmptyAnswer {
    /// The longest description kept of an [`FindEmptyAnswer::Other`].
    pub const RETURNED_CAP: usize = 40;

    /// The description of an [`FindEmptyAnswer::Other`] as it may be shown:
    /// printable characters only, at most [`FindEmptyAnswer::RETURNED_CAP`].
    pub fn shown(returned: &str) -> String {
        let mut shown: String = returned
            .chars()
            .filter(|c| !c.is_control())
            .take(Self::RETURNED_CAP)
            .collect();
        if returned.chars().count() > Self::RETURNED_CAP {
            shown.push('…');
        }
        shown
    }
}

/// `legal`'s queries on the wire: a probe asks thousands of them (8,304 on
/// a 16x16 case, 96 kB as JSON arrays), so when every number fits a byte
/// they travel as one base64 string of 4 bytes a query (board, row,
/// column, digit); otherwise as the arrays. Either form is read.
pub(super) mod packed_queries {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// The two forms on the wire.
    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Wire {
        Packed(String),
        Arrays(Vec<[usize; 4]>),
    }

    /// Writes `queries`, packed when every number is below 256.
    pub(super) fn serialize<S: Serializer>(
        queries: &[[usize; 4]],
        out: S,
    ) -> Result<S::Ok, S::Error> {
        let bytes: Option<Vec<u8>> = queries
            .iter()
            .flatten()
            .map(|&x| u8::try_from(x).ok())
            .collect();
        match bytes {
            Some(bytes) => Wire::Packed(STANDARD.encode(bytes)).serialize(out),
            None => Wire::Arrays(queries.to_vec()).serialize(out),
        }
    }

    /// Reads either form.
    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        input: D,
    ) -> Result<Vec<[usize; 4]>, D::Error> {
        match Wire::deserialize(input)? {
            Wire::Arrays(queries) => Ok(queries),
            Wire::Packed(text) => {
                let bytes = STANDARD.decode(text).map_err(serde::de::Error::custom)?;
                if bytes.len() % 4 != 0 {
                    return Err(serde::de::Error::custom(
                        "packed queries are not a whole number of 4-byte queries",
                    ));
                }
                Ok(bytes
                    .chunks_exact(4)
                    .map(|q| [q[0], q[1], q[2], q[3]].map(usize::from))
                    .collect())
            }
        }
    }
}

/// `legal`'s answers on the wire: one character a question, `1` for true
/// and `0` for false (a test's thousands of answers were 5.5 bytes each as
/// JSON booleans). Any other character is refused, so a forged or broken
/// answer line is a protocol error, as a malformed JSON array was.
pub(super) mod bit_string {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the answers as `0`s and `1`s.
    pub(super) fn serialize<S: Serializer>(answers: &[bool], out: S) -> Result<S::Ok, S::Error> {
        let text: String = answers.iter().map(|&a| if a { '1' } else { '0' }).collect();
        out.serialize_str(&text)
    }

    /// Reads `0`s and `1`s.
    pub(super) fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<Vec<bool>, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(input)?;
        text.chars()
            .map(|c| match c {
                '1' => Ok(true),
                '0' => Ok(false),
                other => Err(serde::de::Error::custom(format!(
                    "an answer is `0` or `1`, not {other:?}"
                ))),
            })
            .collect()
    }
}

#[cfg(test)]
mod wire_tests {
    use super::*;

    #[test]
    fn legal_probes_and_answers_travel_packed_and_come_back_whole() {
        let probe = Probe::Legal {
            n: 2,
            boards: vec![vec![0; 16]],
            queries: vec![[0, 1, 2, 3], [0, 3, 3, 4], [0, 0, 0, 255]],
        };
        let json = serde_json::to_string(&probe).expect("encodes");
        assert!(json.contains(r#""queries":"AAECAwADAwQAAAD/""#), "{json}");
        assert_eq!(
            serde_json::from_str::<Probe>(&json).expect("decodes"),
            probe
        );
        // A number past a byte keeps the arrays, and they are read too.
        let wide = Probe::Legal {
            n: 16,
            boards: vec![],
            queries: vec![[0, 300, 1, 2]],
        };
        let json = serde_json::to_string(&wide).expect("encodes");
        assert!(json.contains("[[0,300,1,2]]"), "{json}");
        assert_eq!(serde_json::from_str::<Probe>(&json).expect("decodes"), wide);
        let answers = Response::Legal {
            answers: vec![true, false, false, true],
        };
        let json = serde_json::to_string(&answers).expect("encodes");
        assert_eq!(json, r#"{"function":"legal","args":{"answers":"1001"}}"#);
        assert_eq!(
            serde_json::from_str::<Response>(&json).expect("decodes"),
            answers
        );
    }

    #[test]
    fn a_broken_packed_form_is_refused() {
        for bad in [
            r#"{"function":"legal","args":{"answers":"10x1"}}"#,
            r#"{"function":"legal","args":{"answers":[true]}}"#,
        ] {
            assert!(serde_json::from_str::<Response>(bad).is_err(), "{bad}");
        }
        for bad in [r#""AAEC""#, r#""not base64!""#] {
            let json =
                format!(r#"{{"function":"legal","args":{{"n":2,"boards":[],"queries":{bad}}}}}"#);
            assert!(serde_json::from_str::<Probe>(&json).is_err(), "{json}");
        }
    }
}

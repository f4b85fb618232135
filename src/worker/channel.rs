//! The test child's side of the protocol fd: one message a line, and the
//! two ways a worker process ends when something fails (a message and
//! [`FAILED_EXIT`]). Every process of the box that speaks to the grader
//! (the test child, the test zygote, the library's traced run) writes
//! through here.

use crate::protocol::{PROTOCOL_FD, WorkerMessage};

use super::sys;

/// Exit status of a test child (or a box) that reported `worker_failed`,
/// `load_error` or a box failure.
pub const FAILED_EXIT: u8 = 2;

/// Writes one message as a JSON line to the protocol fd. A failed write
/// means the grader is gone: nothing left to do but exit.
pub(super) fn send(message: &WorkerMessage) {
    let mut line = match serde_json::to_vec(message) {
        Ok(line) => line,
        Err(_) => sys::exit_now(i32::from(FAILED_EXIT)),
    };
    line.push(b'\n');
    if sys::write_all(PROTOCOL_FD, &line).is_err() {
        sys::exit_now(i32::from(FAILED_EXIT));
    }
}

/// Sends `message` and returns the failure exit status.
pub(super) fn fail(message: WorkerMessage) -> u8 {
    send(&message);
    FAILED_EXIT
}

/// Sends a `worker_failed` for a safeguard that could not be applied and
/// ends the process: no student code runs unconfined.
pub(super) fn safeguard_failed(what: &str, err: impl std::fmt::Display) -> ! {
    send(&WorkerMessage::WorkerFailed {
        message: format!("the sandbox could not {what}: {err}"),
    });
    sys::exit_now(i32::from(FAILED_EXIT))
}

//! The box: the one child-process layer. Every process that touches
//! student input — the C compiler, cargo and rustc, the interpreter, every
//! test — runs in the box of its submission ([`SubmissionBox`]): its own
//! namespaces, uid, cgroup and folder, with an init inside that forks one
//! confined child per run (see `worker/init.rs`). What each kind of
//! process in a box can see is defined once, in [`view`]. [`SandboxEnv`]
//! is what the host offers, probed once; `run` is what a run produced.

mod box_dir;
pub(crate) mod cgroup;
pub mod cleanup;
mod host;
pub(crate) mod run;
mod submission_box;
pub(crate) mod uids;
pub(crate) mod unix;
pub mod view;

pub use host::SandboxEnv;
pub use run::{Kill, Status, TestRun};
pub use submission_box::{BUILD_MEMORY_MB, BUILD_PIDS, BuildRun, SubmissionBox};

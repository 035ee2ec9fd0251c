//! Safe bindings for libmkb (`include/mkb.h` is the specification).
//!
//! ```no_run
//! use std::time::Duration;
//!
//! let options = mkb::SessionOptions {
//!     model: Some("my-model".into()),
//!     ledger_path: Some("run.ledger".into()),
//!     ..Default::default()
//! };
//! let session = mkb::Session::open(&options)?;
//! while let Some(task) = session.next_task(Duration::from_secs(1))? {
//!     let report = task.submit("...kernel source...")?;
//!     println!("{} {}: {}", task.arm, report.verdict, report.message);
//!     let record = task.finalize()?;
//! }
//! println!("{}", session.score_table()?);
//! # Ok::<(), mkb::Error>(())
//! ```
//!
//! Thread rules follow the header: a `Session` may be shared between threads (`Send + Sync`); a `Task`
//! may move between threads but not be used by two at once (`Send`, not `Sync`). Tasks keep their
//! session alive. Handles are released on drop. Every failure is an `Error` whose `kind()` is the C
//! status.
mod arm;
mod discovery;
mod error;
mod json;
mod options;
mod plan;
mod report;
mod score;
mod session;
mod task;
mod text;
mod verdict;

pub use arm::Arm;
pub use discovery::{list_dsls, list_problems, Dsl, DslList, Problem, ProblemList, Sandbox, Tensor};
pub use error::{Error, ErrorKind, Result};
pub use options::SessionOptions;
pub use plan::plan;
pub use report::Report;
pub use score::{score_ledgers, ScoreFormat};
pub use session::{Next, Session};
pub use task::Task;
pub use verdict::Verdict;

use mkb_sys as sys;

/// The library's version, "MAJOR.MINOR.PATCH".
pub fn version() -> String {
    unsafe { text::text(sys::mkb_version()) }
}

/// The library's version as MAJOR * 10000 + MINOR * 100 + PATCH.
pub fn version_number() -> u32 {
    unsafe { sys::mkb_version_number() }
}

/// The library's ABI version; these bindings are for `mkb_sys::MKB_ABI_VERSION`.
pub fn abi_version() -> u32 {
    unsafe { sys::mkb_abi_version() }
}

//! The verdict of an evaluation (`enum mkb_verdict`, values pinned by the header).
use std::fmt;

use mkb_sys as sys;

use crate::text::text;

#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Correct on every draw, and timed.
    Passed,
    /// Never entered evaluation; not counted against the budget.
    Refused,
    CompileError,
    LaunchError,
    WrongAnswer,
    OutOfBounds,
    InputModified,
    Fault,
    Timeout,
    OutOfMemory,
    /// The GPU worker died while running the submission.
    Crashed,
    /// Correct at first, wrong when re-verified during timing.
    Inconsistent,
    /// Compiled and the plan checked against the code, not run: a compile check (`Task::compile`),
    /// or any evaluation in a compile-only session.
    Compiled,
    /// Final evaluation of an attempt that never had a kernel evaluated.
    NoKernel,
    /// A value this binding does not know (from a newer library); its name still prints.
    Other(i32),
}

// In the order of their values, 0 to 13.
const KNOWN: [Verdict; 14] = [
    Verdict::Passed,
    Verdict::Refused,
    Verdict::CompileError,
    Verdict::LaunchError,
    Verdict::WrongAnswer,
    Verdict::OutOfBounds,
    Verdict::InputModified,
    Verdict::Fault,
    Verdict::Timeout,
    Verdict::OutOfMemory,
    Verdict::Crashed,
    Verdict::Inconsistent,
    Verdict::Compiled,
    Verdict::NoKernel,
];

impl From<i32> for Verdict {
    fn from(value: i32) -> Verdict {
        usize::try_from(value).ok().and_then(|i| KNOWN.get(i).copied()).unwrap_or(Verdict::Other(value))
    }
}

impl From<Verdict> for i32 {
    fn from(verdict: Verdict) -> i32 {
        match verdict {
            Verdict::Other(value) => value,
            known => KNOWN.iter().position(|v| *v == known).unwrap() as i32,
        }
    }
}

/// The library's name for it ("wrong_answer"); "unknown" for a value the library does not know.
impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&unsafe { text(sys::mkb_verdict_name(i32::from(*self))) })
    }
}

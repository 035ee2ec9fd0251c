//! A session: one benchmark run, shared between threads.
use std::os::raw::c_char;
use std::ptr::{self, NonNull};
use std::sync::Arc;
use std::time::Duration;

use mkb_sys as sys;

use crate::error::{Error, Result};
use crate::options::{RawOptions, SessionOptions};
use crate::report::Report;
use crate::score::ScoreFormat;
use crate::task::Task;
use crate::text::{c_string, owned_text, text};

pub(crate) struct SessionHandle(NonNull<sys::mkb_session>);

// The header: "A session may be used from any number of threads at once."
unsafe impl Send for SessionHandle {}
unsafe impl Sync for SessionHandle {}

impl Drop for SessionHandle {
    fn drop(&mut self) {
        unsafe { sys::mkb_close(self.0.as_ptr()) }
    }
}

/// `wait` in whole milliseconds as the C API takes them, rounded up, at most `u32::MAX`.
// Not `div_ceil`: Debian 12's Rust (1.63, the declared rust-version) lacks it; u128 cannot overflow here.
#[allow(unknown_lints, clippy::manual_div_ceil)]
pub(crate) fn milliseconds(wait: Duration) -> u32 {
    let ms = (wait.as_nanos() + 999_999) / 1_000_000;
    u32::try_from(ms).unwrap_or(u32::MAX)
}

/// A benchmark run. Clones share it; it closes when the last clone and the last task are dropped.
#[derive(Clone)]
pub struct Session {
    handle: Arc<SessionHandle>,
}

/// What `next_tasks` found.
pub enum Next {
    Tasks(Vec<Task>),
    /// None is ready yet: skill arms wait for their source solos to end.
    NotReady,
    /// Every task has been handed out.
    Done,
}

impl Session {
    pub fn open(options: &SessionOptions) -> Result<Session> {
        let options = RawOptions::new(options)?;
        let mut out = ptr::null_mut();
        let status = unsafe { sys::mkb_open(&options.raw, &mut out) };
        if status != sys::MKB_OK {
            let message = unsafe { text(sys::mkb_session_errmsg(out)) };
            unsafe { sys::mkb_close(out) };
            return Err(Error::new(status, message));
        }
        Ok(Session { handle: Arc::new(SessionHandle(NonNull::new(out).expect("mkb_open returned no session"))) })
    }

    fn raw(&self) -> *mut sys::mkb_session {
        self.handle.0.as_ptr()
    }

    fn error(&self, status: i32) -> Error {
        Error::new(status, unsafe { text(sys::mkb_session_errmsg(self.raw())) })
    }

    /// Up to `capacity` ready tasks, waiting up to `wait` for one.
    pub fn next_tasks(&self, capacity: usize, wait: Duration) -> Result<Next> {
        let mut slots = vec![ptr::null_mut(); capacity.max(1)];
        let mut count = 0usize;
        let status = unsafe { sys::mkb_next_task(self.raw(), milliseconds(wait), slots.as_mut_ptr(), capacity, &mut count) };
        match status {
            sys::MKB_OK => Ok(Next::Tasks(
                slots[..count].iter().map(|&t| Task::new(self.handle.clone(), NonNull::new(t).unwrap())).collect(),
            )),
            sys::MKB_NOT_READY => Ok(Next::NotReady),
            sys::MKB_DONE => Ok(Next::Done),
            _ => Err(self.error(status)),
        }
    }

    /// The next task, waiting `wait` at a time while skill arms wait for their sources; `None` once
    /// all were handed out.
    pub fn next_task(&self, wait: Duration) -> Result<Option<Task>> {
        loop {
            match self.next_tasks(1, wait)? {
                Next::Tasks(mut tasks) => return Ok(tasks.pop()),
                Next::NotReady => continue,
                Next::Done => return Ok(None),
            }
        }
    }

    /// One evaluation outside any task: no budget, nothing recorded (for tools, not agents).
    pub fn evaluate(&self, problem: &str, dsl: &str, source: &str) -> Result<Report> {
        let (problem, dsl) = (c_string(problem)?, c_string(dsl)?);
        let mut out = ptr::null_mut();
        let status = unsafe {
            sys::mkb_evaluate(self.raw(), problem.as_ptr(), dsl.as_ptr(), source.as_ptr() as *const c_char, source.len(), &mut out)
        };
        if status != sys::MKB_OK {
            return Err(self.error(status));
        }
        Ok(unsafe { Report::take(out) })
    }

    /// The scores of every finished trial of the session's ledger.
    pub fn score(&self, format: ScoreFormat) -> Result<String> {
        let mut out = ptr::null_mut();
        let status = unsafe { sys::mkb_score(self.raw(), format.bits(), &mut out) };
        if status != sys::MKB_OK {
            return Err(self.error(status));
        }
        Ok(unsafe { owned_text(out) })
    }

    /// Scores as JSON (docs/SCORING.md), stale trials left out.
    pub fn score_json(&self) -> Result<String> {
        self.score(ScoreFormat::default())
    }

    /// Scores as a readable table, stale trials left out.
    pub fn score_table(&self) -> Result<String> {
        self.score(ScoreFormat { table: true, ..Default::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_round_up_to_whole_milliseconds() {
        for (wait, ms) in [(Duration::ZERO, 0), (Duration::from_nanos(1), 1), (Duration::from_micros(1500), 2),
                           (Duration::from_secs(2), 2000), (Duration::MAX, u32::MAX)] {
            assert_eq!(milliseconds(wait), ms, "{:?}", wait);
        }
    }
}

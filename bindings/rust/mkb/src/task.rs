//! A task: one attempt handed to an agent.
use std::os::raw::c_char;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use mkb_sys as sys;

use crate::arm::Arm;
use crate::error::{Error, Result};
use crate::report::Report;
use crate::session::SessionHandle;
use crate::text::text;

/// One attempt handed to an agent; released (ended without a kernel if still open) on drop.
pub struct Task {
    raw: NonNull<sys::mkb_task>,
    _session: Arc<SessionHandle>,
    /// `"<problem>/<dsl>/<arm>/r<replicate>"`, unique in the session.
    pub id: String,
    pub problem: String,
    pub family: String,
    pub dsl: String,
    pub arm: Arm,
    pub replicate: u32,
    pub instruction: String,
    /// Skill arms: the source solo's skill; solo arms: `None`.
    pub source_skill: Option<String>,
    /// All of the above and the budget as one JSON object.
    pub json: String,
}

// The header: a task "may be used from any thread, but not from two at once": Send, not Sync.
unsafe impl Send for Task {}

impl Task {
    pub(crate) fn new(session: Arc<SessionHandle>, raw: NonNull<sys::mkb_task>) -> Task {
        let t = raw.as_ptr();
        unsafe {
            let skill = sys::mkb_task_source_skill(t);
            Task {
                raw,
                _session: session,
                id: text(sys::mkb_task_id(t)),
                problem: text(sys::mkb_task_problem(t)),
                family: text(sys::mkb_task_family(t)),
                dsl: text(sys::mkb_task_dsl(t)),
                arm: Arm::from(sys::mkb_task_arm(t)),
                replicate: sys::mkb_task_replicate(t),
                instruction: text(sys::mkb_task_instruction(t)),
                source_skill: if skill.is_null() { None } else { Some(text(skill)) },
                json: text(sys::mkb_task_json(t)),
            }
        }
    }

    fn check(&self, status: i32) -> Result<()> {
        if status == sys::MKB_OK {
            Ok(())
        } else {
            Err(Error::new(status, unsafe { text(sys::mkb_task_errmsg(self.raw.as_ptr())) }))
        }
    }

    /// Evaluates a kernel; `ErrorKind::Budget` once the budget is spent.
    pub fn submit(&self, source: &str) -> Result<Report> {
        let mut out = ptr::null_mut();
        self.check(unsafe { sys::mkb_submit_attempt(self.raw.as_ptr(), source.as_ptr() as *const c_char, source.len(), &mut out) })?;
        Ok(unsafe { Report::take(out) })
    }

    /// Checks that a kernel compiles, for free: the DSL's frontend, the compiler and the launch plan
    /// against the compiled code, as a submission goes before anything runs. Nothing runs and no
    /// submission is spent, only the wall clock; the verdict is `Compiled` or the error
    /// (`CompileError`, `LaunchError`, `Refused`, ...). `ErrorKind::Budget` once the time is spent.
    pub fn compile(&self, source: &str) -> Result<Report> {
        let mut out = ptr::null_mut();
        self.check(unsafe { sys::mkb_task_compile(self.raw.as_ptr(), source.as_ptr() as *const c_char, source.len(), &mut out) })?;
        Ok(unsafe { Report::take(out) })
    }

    /// Submissions that may still enter evaluation (compile checks spend none).
    pub fn submissions_left(&self) -> u32 {
        unsafe { sys::mkb_task_submissions_left(self.raw.as_ptr()) }
    }

    /// Wall-clock seconds left until the deadline; 0 once the attempt has ended.
    pub fn seconds_left(&self) -> f64 {
        unsafe { sys::mkb_task_seconds_left(self.raw.as_ptr()) }
    }

    /// Replaces the attempt's skill (every arm keeps one).
    pub fn submit_skill(&self, skill: &str) -> Result<()> {
        self.check(unsafe { sys::mkb_submit_skill(self.raw.as_ptr(), skill.as_ptr() as *const c_char, skill.len()) })
    }

    /// Adds usage to the task's record, none of it from a prompt cache.
    pub fn add_usage(&self, input_tokens: u64, output_tokens: u64, cost_usd: f64) -> Result<()> {
        self.check(unsafe { sys::mkb_task_add_usage(self.raw.as_ptr(), input_tokens, output_tokens, cost_usd) })
    }

    /// Adds usage to the task's record: `input_tokens` counts every prompt token, those served from
    /// the provider's cache included; `cached_input_tokens` is that part (at most `input_tokens`).
    pub fn add_usage_v2(&self, input_tokens: u64, cached_input_tokens: u64, output_tokens: u64, cost_usd: f64) -> Result<()> {
        self.check(unsafe {
            sys::mkb_task_add_usage_v2(self.raw.as_ptr(), input_tokens, cached_input_tokens, output_tokens, cost_usd)
        })
    }

    /// Names a kernel source as final without spending a submission; `finalize` grades it.
    pub fn set_final(&self, source: &str) -> Result<()> {
        self.check(unsafe { sys::mkb_task_set_final(self.raw.as_ptr(), source.as_ptr() as *const c_char, source.len()) })
    }

    /// Names an earlier submission (its `Report::submission`) as final; `ErrorKind::NotFound` if there
    /// is no such submission or it never entered evaluation.
    pub fn set_final_submission(&self, submission: u32) -> Result<()> {
        self.check(unsafe { sys::mkb_task_set_final_submission(self.raw.as_ptr(), submission) })
    }

    /// Ends the attempt: its final kernel (`set_final*`, else the latest evaluated) is evaluated once
    /// more, and that is its record.
    pub fn finalize(&self) -> Result<Report> {
        let mut out = ptr::null_mut();
        self.check(unsafe { sys::mkb_finalize(self.raw.as_ptr(), &mut out) })?;
        Ok(unsafe { Report::take(out) })
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        unsafe { sys::mkb_task_release(self.raw.as_ptr()) }
    }
}

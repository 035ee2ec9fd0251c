//! Safe bindings for libmkb (`include/mkb.h` is the specification).
//!
//! ```no_run
//! let session = mkb::Session::open(&mkb::SessionOptions { model: Some("my-model".into()), ..Default::default() })?;
//! while let Some(task) = session.next_task(1000)? {
//!     let report = task.submit("...kernel source...")?;
//!     println!("{}", report.message);
//!     let record = task.finalize()?;
//! }
//! println!("{}", session.score_table()?);
//! # Ok::<(), mkb::Error>(())
//! ```
//!
//! Thread rules follow the header: a `Session` may be shared between threads (`Send + Sync`); a `Task`
//! may move between threads but not be used by two at once (`Send`, not `Sync`). Tasks keep their
//! session alive. Handles are released on drop.
use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::c_char;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use mkb_sys as sys;

/// A failed call: the status and the library's text for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub status: i32,
    pub message: String,
}

impl Error {
    pub fn status_name(&self) -> String {
        unsafe { text(sys::mkb_status_name(self.status)) }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status_name(), self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

fn c_string(value: &str) -> Result<CString> {
    CString::new(value).map_err(|_| Error { status: sys::MKB_ERR_INVALID_ARGUMENT, message: format!("{:?} holds a NUL byte", value) })
}

/// The library's version, "MAJOR.MINOR.PATCH".
pub fn version() -> String {
    unsafe { text(sys::mkb_version()) }
}

/// The library's version as MAJOR * 10000 + MINOR * 100 + PATCH.
pub fn version_number() -> u32 {
    unsafe { sys::mkb_version_number() }
}

/// The library's ABI version; these bindings are for `mkb_sys::MKB_ABI_VERSION`.
pub fn abi_version() -> u32 {
    unsafe { sys::mkb_abi_version() }
}

/// The name of a verdict ("wrong_answer"), "unknown" if unknown.
pub fn verdict_name(verdict: i32) -> String {
    unsafe { text(sys::mkb_verdict_name(verdict)) }
}

/// The name of an arm ("solo_a", "a2b_skill", ...), "unknown" if unknown.
pub fn arm_name(arm: i32) -> String {
    unsafe { text(sys::mkb_arm_name(arm)) }
}

/// Options of a session (mkb_open_options); `None` and zero keep the library's defaults.
#[derive(Debug, Clone, Default)]
pub struct SessionOptions {
    pub suite_path: Option<String>,
    pub dsl_a: Option<String>,
    pub dsl_b: Option<String>,
    pub problems: Option<String>,
    pub families: Option<String>,
    pub replicates: u32,
    pub budget_seconds: u32,
    pub budget_submissions: u32,
    pub budget_source_bytes: u32,
    pub skill_max_bytes: u32,
    pub model: Option<String>,
    pub ledger_path: Option<String>,
    pub gpus: Option<String>,
    pub seed: u64,
    pub compile_only: bool,
    pub rerun_stale: bool,
    /// Run Python DSL frontends unconfined (MKB_OPEN_NO_SANDBOX).
    pub no_sandbox: bool,
    pub worker_path: Option<String>,
    pub cache_dir: Option<String>,
    pub python: Option<String>,
    pub gpu_lock_dir: Option<String>,
    /// Comma-separated globs over trial ids "<problem>/<dsl>/<arm>/r<replicate>".
    pub trials: Option<String>,
    /// Comma-separated "a_to_b", "b_to_a".
    pub directions: Option<String>,
    /// The architecture compile-only sessions compile for ("sm_90a", "sm_100a").
    pub target_arch: Option<String>,
}

/// mkb_open_options with the strings it points into; valid while this value lives.
struct RawOptions {
    raw: sys::mkb_open_options,
    _strings: Vec<Option<CString>>,
}

impl RawOptions {
    fn new(options: &SessionOptions) -> Result<RawOptions> {
        let strings: Vec<Option<CString>> = [&options.suite_path, &options.dsl_a, &options.dsl_b, &options.problems,
            &options.families, &options.model, &options.ledger_path, &options.gpus, &options.worker_path,
            &options.cache_dir, &options.python, &options.gpu_lock_dir, &options.trials, &options.directions,
            &options.target_arch]
            .iter()
            .map(|s| s.as_deref().map(c_string).transpose())
            .collect::<Result<_>>()?;
        // A CString's bytes stay where they are when the vector moves, so these pointers stay valid.
        let p = |i: usize| strings[i].as_ref().map_or(ptr::null(), |s| s.as_ptr());
        let mut raw: sys::mkb_open_options = unsafe { std::mem::zeroed() };
        unsafe { sys::mkb_open_options_init(&mut raw, std::mem::size_of::<sys::mkb_open_options>()) };
        raw.suite_path = p(0);
        raw.dsl_a = p(1);
        raw.dsl_b = p(2);
        raw.problems = p(3);
        raw.families = p(4);
        raw.model = p(5);
        raw.ledger_path = p(6);
        raw.gpus = p(7);
        raw.worker_path = p(8);
        raw.cache_dir = p(9);
        raw.python = p(10);
        raw.gpu_lock_dir = p(11);
        raw.trials = p(12);
        raw.directions = p(13);
        raw.target_arch = p(14);
        raw.replicates = options.replicates;
        raw.budget_seconds = options.budget_seconds;
        raw.budget_submissions = options.budget_submissions;
        raw.budget_source_bytes = options.budget_source_bytes;
        raw.skill_max_bytes = options.skill_max_bytes;
        raw.seed = options.seed;
        raw.flags = (if options.compile_only { sys::MKB_OPEN_COMPILE_ONLY } else { 0 })
            | (if options.rerun_stale { sys::MKB_OPEN_RERUN_STALE } else { 0 })
            | (if options.no_sandbox { sys::MKB_OPEN_NO_SANDBOX } else { 0 });
        Ok(RawOptions { raw, _strings: strings })
    }
}

/// How scores are rendered: JSON (docs/SCORING.md) or a table; stale trials left out unless asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScoreFormat {
    pub table: bool,
    pub with_stale: bool,
}

impl ScoreFormat {
    fn bits(self) -> u32 {
        (if self.table { sys::MKB_SCORE_TABLE } else { sys::MKB_SCORE_JSON })
            | (if self.with_stale { sys::MKB_SCORE_WITH_STALE } else { 0 })
    }
}

struct SessionHandle(NonNull<sys::mkb_session>);

// The header: "A session may be used from any number of threads at once."
unsafe impl Send for SessionHandle {}
unsafe impl Sync for SessionHandle {}

impl Drop for SessionHandle {
    fn drop(&mut self) {
        unsafe { sys::mkb_close(self.0.as_ptr()) }
    }
}

/// A benchmark run.
#[derive(Clone)]
pub struct Session {
    handle: Arc<SessionHandle>,
}

/// What `next_tasks` found.
pub enum Next {
    Tasks(Vec<Task>),
    NotReady,
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
            return Err(Error { status, message });
        }
        Ok(Session { handle: Arc::new(SessionHandle(NonNull::new(out).expect("mkb_open returned no session"))) })
    }

    fn raw(&self) -> *mut sys::mkb_session {
        self.handle.0.as_ptr()
    }

    fn error(&self, status: i32) -> Error {
        Error { status, message: unsafe { text(sys::mkb_session_errmsg(self.raw())) } }
    }

    /// Up to `capacity` ready tasks, waiting up to `wait_ms` for one.
    pub fn next_tasks(&self, capacity: usize, wait_ms: u32) -> Result<Next> {
        let mut slots = vec![ptr::null_mut(); capacity.max(1)];
        let mut count = 0usize;
        let status = unsafe { sys::mkb_next_task(self.raw(), wait_ms, slots.as_mut_ptr(), capacity, &mut count) };
        match status {
            sys::MKB_OK => Ok(Next::Tasks(
                slots[..count].iter().map(|&t| Task::new(self.handle.clone(), NonNull::new(t).unwrap())).collect(),
            )),
            sys::MKB_NOT_READY => Ok(Next::NotReady),
            sys::MKB_DONE => Ok(Next::Done),
            _ => Err(self.error(status)),
        }
    }

    /// The next task, waiting while skill arms wait for their sources; `None` once all were handed out.
    pub fn next_task(&self, wait_ms: u32) -> Result<Option<Task>> {
        loop {
            match self.next_tasks(1, wait_ms)? {
                Next::Tasks(mut tasks) => return Ok(tasks.pop()),
                Next::NotReady => continue,
                Next::Done => return Ok(None),
            }
        }
    }

    /// One evaluation outside any task (for tools, not agents).
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

unsafe fn owned_text(p: *mut c_char) -> String {
    let s = text(p);
    sys::mkb_free(p as *mut _);
    s
}

// The text of a call that hands back an owned text, or an owned error text.
unsafe fn owned_result(status: i32, out: *mut c_char, error: *mut c_char) -> Result<String> {
    if status != sys::MKB_OK {
        return Err(Error { status, message: owned_text(error) });
    }
    Ok(owned_text(out))
}

/// Scores of ledger files without a session; staleness is judged per file.
pub fn score_ledgers(paths: &[&str], format: ScoreFormat) -> Result<String> {
    let owned: Vec<CString> = paths.iter().map(|p| c_string(p)).collect::<Result<_>>()?;
    let pointers: Vec<*const c_char> = owned.iter().map(|p| p.as_ptr()).collect();
    let (mut out, mut error) = (ptr::null_mut(), ptr::null_mut());
    unsafe {
        let status = sys::mkb_score_ledgers(pointers.as_ptr(), pointers.len(), format.bits(), &mut out, &mut error);
        owned_result(status, out, error)
    }
}

/// A dry run: the trials `Session::open(options)` would plan, each with its state ("done", "skipped",
/// "stale", "interrupted", "pending"), as JSON or a readable list. Starts nothing; the ledger is read,
/// never written or locked.
pub fn plan(options: &SessionOptions, table: bool) -> Result<String> {
    let options = RawOptions::new(options)?;
    let format = if table { sys::MKB_PLAN_TABLE } else { sys::MKB_PLAN_JSON };
    let (mut out, mut error) = (ptr::null_mut(), ptr::null_mut());
    unsafe {
        let status = sys::mkb_plan(&options.raw, format, &mut out, &mut error);
        owned_result(status, out, error)
    }
}

/// One attempt handed to an agent.
pub struct Task {
    raw: NonNull<sys::mkb_task>,
    _session: Arc<SessionHandle>,
    pub id: String,
    pub problem: String,
    pub family: String,
    pub dsl: String,
    pub arm: i32,
    pub arm_name: String,
    pub replicate: u32,
    pub instruction: String,
    pub source_skill: Option<String>,
    /// All of the above and the budget as one JSON object.
    pub json: String,
}

// The header: a task "may be used from any thread, but not from two at once": Send, not Sync.
unsafe impl Send for Task {}

impl Task {
    fn new(session: Arc<SessionHandle>, raw: NonNull<sys::mkb_task>) -> Task {
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
                arm: sys::mkb_task_arm(t),
                arm_name: text(sys::mkb_arm_name(sys::mkb_task_arm(t))),
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
            Err(Error { status, message: unsafe { text(sys::mkb_task_errmsg(self.raw.as_ptr())) } })
        }
    }

    pub fn submit(&self, source: &str) -> Result<Report> {
        let mut out = ptr::null_mut();
        self.check(unsafe { sys::mkb_submit_attempt(self.raw.as_ptr(), source.as_ptr() as *const c_char, source.len(), &mut out) })?;
        Ok(unsafe { Report::take(out) })
    }

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

    /// Names an earlier submission (its `Report::submission`) as final; `MKB_ERR_NOT_FOUND` if there
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

/// The evaluation of one submission, copied out of the library.
#[derive(Debug, Clone)]
pub struct Report {
    pub verdict: i32,
    pub verdict_name: String,
    pub counted: bool,
    pub is_final: bool,
    pub time_us: f64,
    pub baseline_us: f64,
    pub speedup: f64,
    /// The submission's number in its task, 1-based, refused ones included; 0 for a final evaluation.
    pub submission: u32,
    pub submissions_left: u32,
    pub seconds_left: f64,
    pub message: String,
    pub json: String,
}

impl Report {
    unsafe fn take(r: *mut sys::mkb_report) -> Report {
        let verdict = sys::mkb_report_verdict(r);
        let report = Report {
            verdict,
            verdict_name: text(sys::mkb_verdict_name(verdict)),
            counted: sys::mkb_report_counted(r) != 0,
            is_final: sys::mkb_report_final(r) != 0,
            time_us: sys::mkb_report_time_us(r),
            baseline_us: sys::mkb_report_baseline_us(r),
            speedup: sys::mkb_report_speedup(r),
            submission: sys::mkb_report_submission(r),
            submissions_left: sys::mkb_report_submissions_left(r),
            seconds_left: sys::mkb_report_seconds_left(r),
            message: text(sys::mkb_report_message(r)),
            json: text(sys::mkb_report_json(r)),
        };
        sys::mkb_report_free(r);
        report
    }

    pub fn passed(&self) -> bool {
        self.verdict == 0
    }
}

pub const ARM_SOLO_A: i32 = 0;
pub const ARM_SOLO_B: i32 = 1;
pub const ARM_A2B_SKILL: i32 = 2;
pub const ARM_B2A_SKILL: i32 = 3;

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
        let strings: Vec<Option<CString>> = [&options.suite_path, &options.dsl_a, &options.dsl_b, &options.problems,
            &options.families, &options.model, &options.ledger_path, &options.gpus, &options.worker_path,
            &options.cache_dir, &options.python, &options.gpu_lock_dir]
            .iter()
            .map(|s| s.as_deref().map(c_string).transpose())
            .collect::<Result<_>>()?;
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
        raw.replicates = options.replicates;
        raw.budget_seconds = options.budget_seconds;
        raw.budget_submissions = options.budget_submissions;
        raw.budget_source_bytes = options.budget_source_bytes;
        raw.skill_max_bytes = options.skill_max_bytes;
        raw.seed = options.seed;
        raw.flags = (if options.compile_only { sys::MKB_OPEN_COMPILE_ONLY } else { 0 })
            | (if options.rerun_stale { sys::MKB_OPEN_RERUN_STALE } else { 0 })
            | (if options.no_sandbox { sys::MKB_OPEN_NO_SANDBOX } else { 0 });
        let mut out = ptr::null_mut();
        let status = unsafe { sys::mkb_open(&raw, &mut out) };
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

    fn score(&self, format: u32) -> Result<String> {
        let mut out = ptr::null_mut();
        let status = unsafe { sys::mkb_score(self.raw(), format, &mut out) };
        if status != sys::MKB_OK {
            return Err(self.error(status));
        }
        Ok(unsafe { owned_text(out) })
    }

    /// Scores as JSON (docs/SCORING.md).
    pub fn score_json(&self) -> Result<String> {
        self.score(sys::MKB_SCORE_JSON)
    }

    /// Scores as a readable table.
    pub fn score_table(&self) -> Result<String> {
        self.score(sys::MKB_SCORE_TABLE)
    }
}

unsafe fn owned_text(p: *mut c_char) -> String {
    let s = text(p);
    sys::mkb_free(p as *mut _);
    s
}

/// Scores of ledger files without a session, as JSON or a table.
pub fn score_ledgers(paths: &[&str], table: bool) -> Result<String> {
    let owned: Vec<CString> = paths.iter().map(|p| c_string(p)).collect::<Result<_>>()?;
    let pointers: Vec<*const c_char> = owned.iter().map(|p| p.as_ptr()).collect();
    let (mut out, mut error) = (ptr::null_mut(), ptr::null_mut());
    let format = if table { sys::MKB_SCORE_TABLE } else { sys::MKB_SCORE_JSON };
    let status = unsafe { sys::mkb_score_ledgers(pointers.as_ptr(), pointers.len(), format, &mut out, &mut error) };
    if status != sys::MKB_OK {
        return Err(Error { status, message: unsafe { owned_text(error) } });
    }
    Ok(unsafe { owned_text(out) })
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
    pub replicate: u32,
    pub instruction: String,
    pub source_skill: Option<String>,
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
                replicate: sys::mkb_task_replicate(t),
                instruction: text(sys::mkb_task_instruction(t)),
                source_skill: if skill.is_null() { None } else { Some(text(skill)) },
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

    pub fn add_usage(&self, input_tokens: u64, output_tokens: u64, cost_usd: f64) -> Result<()> {
        self.check(unsafe { sys::mkb_task_add_usage(self.raw.as_ptr(), input_tokens, output_tokens, cost_usd) })
    }

    /// Ends the attempt: its latest kernel is evaluated once more, and that is its record.
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

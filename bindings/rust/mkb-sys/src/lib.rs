//! Raw declarations of libmkb's C ABI, written by hand after `include/mkb.h` and checked against it
//! by `tests/header.rs` (every function, its parameter count, and the layout of `mkb_open_options`).
//! The `mkb` crate wraps them safely.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_double, c_void};

pub type mkb_status = i32;

pub const MKB_OK: mkb_status = 0;
pub const MKB_NOT_READY: mkb_status = 1;
pub const MKB_DONE: mkb_status = 2;
pub const MKB_ERR_INVALID_ARGUMENT: mkb_status = -1;
pub const MKB_ERR_CONFIG: mkb_status = -2;
pub const MKB_ERR_NOT_FOUND: mkb_status = -3;
pub const MKB_ERR_STATE: mkb_status = -4;
pub const MKB_ERR_BUDGET: mkb_status = -5;
pub const MKB_ERR_IO: mkb_status = -6;
pub const MKB_ERR_LEDGER: mkb_status = -7;
pub const MKB_ERR_WORKER: mkb_status = -8;
pub const MKB_ERR_NO_MEMORY: mkb_status = -9;
pub const MKB_ERR_UNSUPPORTED: mkb_status = -10;
pub const MKB_ERR_VERSION: mkb_status = -11;
pub const MKB_ERR_SPEC: mkb_status = -12;
pub const MKB_ERR_INTERNAL: mkb_status = -13;

pub const MKB_ABI_VERSION: u32 = 1;
pub const MKB_OPEN_COMPILE_ONLY: u32 = 0x1;
pub const MKB_OPEN_RERUN_STALE: u32 = 0x2;
pub const MKB_OPEN_NO_SANDBOX: u32 = 0x4;
pub const MKB_SCORE_JSON: u32 = 0;
pub const MKB_SCORE_TABLE: u32 = 1;
pub const MKB_SCORE_WITH_STALE: u32 = 0x100;
pub const MKB_PLAN_JSON: u32 = 0;
pub const MKB_PLAN_TABLE: u32 = 1;

#[repr(C)]
pub struct mkb_session {
    _private: [u8; 0],
}
#[repr(C)]
pub struct mkb_task {
    _private: [u8; 0],
}
#[repr(C)]
pub struct mkb_report {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct mkb_open_options {
    pub struct_size: usize,
    pub suite_path: *const c_char,
    pub dsl_a: *const c_char,
    pub dsl_b: *const c_char,
    pub problems: *const c_char,
    pub families: *const c_char,
    pub replicates: u32,
    pub budget_seconds: u32,
    pub budget_submissions: u32,
    pub budget_source_bytes: u32,
    pub skill_max_bytes: u32,
    pub model: *const c_char,
    pub ledger_path: *const c_char,
    pub gpus: *const c_char,
    pub seed: u64,
    pub flags: u32,
    pub worker_path: *const c_char,
    pub cache_dir: *const c_char,
    pub python: *const c_char,
    pub gpu_lock_dir: *const c_char,
    pub trials: *const c_char,
    pub directions: *const c_char,
    pub target_arch: *const c_char,
    pub shard_index: u32,
    pub shard_count: u32,
}

// Declares the functions and, for the header check, a table of (name, parameter count).
macro_rules! declare {
    ($($name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?;)*) => {
        extern "C" {
            $(pub fn $name($($arg: $ty),*) $(-> $ret)?;)*
        }
        /// Every declared function with its number of parameters.
        pub const DECLARED: &[(&str, usize)] = &[$((stringify!($name), <[&str]>::len(&[$(stringify!($arg)),*]))),*];
    };
}

declare! {
    mkb_status_name(status: mkb_status) -> *const c_char;
    mkb_version() -> *const c_char;
    mkb_version_number() -> u32;
    mkb_abi_version() -> u32;
    mkb_free(pointer: *mut c_void);
    mkb_verdict_name(verdict: i32) -> *const c_char;
    mkb_arm_name(arm: i32) -> *const c_char;
    mkb_open_options_init(options: *mut mkb_open_options, struct_size: usize) -> mkb_status;
    mkb_open(options: *const mkb_open_options, session_out: *mut *mut mkb_session) -> mkb_status;
    mkb_close(session: *mut mkb_session);
    mkb_session_errmsg(session: *const mkb_session) -> *const c_char;
    mkb_next_task(session: *mut mkb_session, wait_ms: u32, tasks_out: *mut *mut mkb_task, capacity: usize, count_out: *mut usize) -> mkb_status;
    mkb_task_id(task: *const mkb_task) -> *const c_char;
    mkb_task_problem(task: *const mkb_task) -> *const c_char;
    mkb_task_family(task: *const mkb_task) -> *const c_char;
    mkb_task_dsl(task: *const mkb_task) -> *const c_char;
    mkb_task_arm(task: *const mkb_task) -> i32;
    mkb_task_replicate(task: *const mkb_task) -> u32;
    mkb_task_instruction(task: *const mkb_task) -> *const c_char;
    mkb_task_source_skill(task: *const mkb_task) -> *const c_char;
    mkb_task_json(task: *const mkb_task) -> *const c_char;
    mkb_task_errmsg(task: *const mkb_task) -> *const c_char;
    mkb_submit_attempt(task: *mut mkb_task, source: *const c_char, size: usize, report_out: *mut *mut mkb_report) -> mkb_status;
    mkb_task_compile(task: *mut mkb_task, source: *const c_char, size: usize, report_out: *mut *mut mkb_report) -> mkb_status;
    mkb_task_submissions_left(task: *const mkb_task) -> u32;
    mkb_task_seconds_left(task: *const mkb_task) -> c_double;
    mkb_submit_skill(task: *mut mkb_task, text: *const c_char, size: usize) -> mkb_status;
    mkb_task_add_usage(task: *mut mkb_task, input_tokens: u64, output_tokens: u64, cost_usd: c_double) -> mkb_status;
    mkb_task_add_usage_v2(task: *mut mkb_task, input_tokens: u64, cached_input_tokens: u64, output_tokens: u64, cost_usd: c_double) -> mkb_status;
    mkb_task_set_final(task: *mut mkb_task, source: *const c_char, size: usize) -> mkb_status;
    mkb_task_set_final_submission(task: *mut mkb_task, submission: u32) -> mkb_status;
    mkb_finalize(task: *mut mkb_task, report_out: *mut *mut mkb_report) -> mkb_status;
    mkb_task_release(task: *mut mkb_task);
    mkb_report_verdict(report: *const mkb_report) -> i32;
    mkb_report_counted(report: *const mkb_report) -> i32;
    mkb_report_final(report: *const mkb_report) -> i32;
    mkb_report_time_us(report: *const mkb_report) -> c_double;
    mkb_report_baseline_us(report: *const mkb_report) -> c_double;
    mkb_report_speedup(report: *const mkb_report) -> c_double;
    mkb_report_eager_us(report: *const mkb_report) -> c_double;
    mkb_report_speedup_vs_eager(report: *const mkb_report) -> c_double;
    mkb_report_submission(report: *const mkb_report) -> u32;
    mkb_report_submissions_left(report: *const mkb_report) -> u32;
    mkb_report_seconds_left(report: *const mkb_report) -> c_double;
    mkb_report_message(report: *const mkb_report) -> *const c_char;
    mkb_report_json(report: *const mkb_report) -> *const c_char;
    mkb_report_free(report: *mut mkb_report);
    mkb_evaluate(session: *mut mkb_session, problem: *const c_char, dsl: *const c_char, source: *const c_char, size: usize, report_out: *mut *mut mkb_report) -> mkb_status;
    mkb_score(session: *mut mkb_session, format: u32, text_out: *mut *mut c_char) -> mkb_status;
    mkb_score_ledgers(paths: *const *const c_char, count: usize, format: u32, text_out: *mut *mut c_char, error_out: *mut *mut c_char) -> mkb_status;
    mkb_plan(options: *const mkb_open_options, format: u32, text_out: *mut *mut c_char, error_out: *mut *mut c_char) -> mkb_status;
    mkb_list_problems(options: *const mkb_open_options, json_out: *mut *mut c_char, error_out: *mut *mut c_char) -> mkb_status;
    mkb_list_dsls(options: *const mkb_open_options, json_out: *mut *mut c_char, error_out: *mut *mut c_char) -> mkb_status;
}

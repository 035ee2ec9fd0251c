//! The options of a session (`mkb_open_options`), as Rust values: `None` keeps the library's default.
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::ptr;

use mkb_sys as sys;

use crate::error::{Error, Result};
use crate::text::{c_path, c_string};

/// Options of a session, a dry run or a discovery call. `None` keeps the library's default (the
/// header names each); `..Default::default()` fills the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionOptions {
    /// A suite folder; `None`: the built-in suite.
    pub suite_path: Option<PathBuf>,
    pub dsl_a: Option<String>,
    pub dsl_b: Option<String>,
    /// Comma-separated shell globs over problem ids.
    pub problems: Option<String>,
    /// Comma-separated family names; `None`: every family but `extra`, whose problems only an exact
    /// id in `problems` selects (include/mkb.h).
    pub families: Option<String>,
    pub replicates: Option<u32>,
    pub budget_seconds: Option<u32>,
    pub budget_submissions: Option<u32>,
    pub budget_source_bytes: Option<u32>,
    pub skill_max_bytes: Option<u32>,
    pub model: Option<String>,
    pub ledger_path: Option<PathBuf>,
    /// Comma-separated device ordinals; `None`: every visible GPU.
    pub gpus: Option<String>,
    /// Planning and shuffling seed; `None`: from the OS.
    pub seed: Option<u64>,
    pub compile_only: bool,
    pub rerun_stale: bool,
    /// Run Python DSL frontends unconfined (MKB_OPEN_NO_SANDBOX).
    pub no_sandbox: bool,
    pub worker_path: Option<PathBuf>,
    pub cache_dir: Option<PathBuf>,
    /// The Python interpreter of the Python DSL frontends.
    pub python: Option<PathBuf>,
    pub gpu_lock_dir: Option<PathBuf>,
    /// Comma-separated globs over trial ids `"<problem>/<dsl>/<arm>/r<replicate>"`.
    pub trials: Option<String>,
    /// Comma-separated "a_to_b", "b_to_a".
    pub directions: Option<String>,
    /// The architecture compile-only sessions compile for ("sm_90a", "sm_100a").
    pub target_arch: Option<String>,
    /// `(index, count)`: plan only shard `index` (from 0) of `count`; `None`: no sharding
    /// (docs/SCALING.md).
    pub shard: Option<(u32, u32)>,
}

// The C struct takes 0 for "default"; Some(0) would silently mean the default, so it is refused.
fn count(name: &str, value: Option<u32>) -> Result<u32> {
    match value {
        Some(0) => Err(Error::invalid_argument(format!("{}: Some(0) is not a count; None keeps the default", name))),
        value => Ok(value.unwrap_or(0)),
    }
}

/// `mkb_open_options` with the strings it points into; valid while this value lives.
pub(crate) struct RawOptions {
    pub(crate) raw: sys::mkb_open_options,
    _strings: Vec<CString>,
}

impl RawOptions {
    pub(crate) fn new(options: &SessionOptions) -> Result<RawOptions> {
        let mut strings = Vec::new();
        // A CString's bytes stay where they are when the vector grows, so these pointers stay valid.
        let mut keep = |value: Option<CString>| match value {
            Some(s) => {
                let p = s.as_ptr();
                strings.push(s);
                p
            }
            None => ptr::null(),
        };
        let text = |value: &Option<String>| value.as_deref().map(c_string).transpose();
        let path = |value: &Option<PathBuf>| value.as_deref().map(Path::new).map(c_path).transpose();

        let mut raw: sys::mkb_open_options = unsafe { std::mem::zeroed() };
        unsafe { sys::mkb_open_options_init(&mut raw, std::mem::size_of::<sys::mkb_open_options>()) };
        raw.suite_path = keep(path(&options.suite_path)?);
        raw.dsl_a = keep(text(&options.dsl_a)?);
        raw.dsl_b = keep(text(&options.dsl_b)?);
        raw.problems = keep(text(&options.problems)?);
        raw.families = keep(text(&options.families)?);
        raw.model = keep(text(&options.model)?);
        raw.ledger_path = keep(path(&options.ledger_path)?);
        raw.gpus = keep(text(&options.gpus)?);
        raw.worker_path = keep(path(&options.worker_path)?);
        raw.cache_dir = keep(path(&options.cache_dir)?);
        raw.python = keep(path(&options.python)?);
        raw.gpu_lock_dir = keep(path(&options.gpu_lock_dir)?);
        raw.trials = keep(text(&options.trials)?);
        raw.directions = keep(text(&options.directions)?);
        raw.target_arch = keep(text(&options.target_arch)?);
        raw.replicates = count("replicates", options.replicates)?;
        raw.budget_seconds = count("budget_seconds", options.budget_seconds)?;
        raw.budget_submissions = count("budget_submissions", options.budget_submissions)?;
        raw.budget_source_bytes = count("budget_source_bytes", options.budget_source_bytes)?;
        raw.skill_max_bytes = count("skill_max_bytes", options.skill_max_bytes)?;
        raw.seed = match options.seed {
            Some(0) => return Err(Error::invalid_argument("seed: Some(0) would mean a seed from the OS; use None")),
            seed => seed.unwrap_or(0),
        };
        (raw.shard_index, raw.shard_count) = match options.shard {
            Some((index, count)) if index >= count => {
                return Err(Error::invalid_argument(format!("shard: expected index < count, got {}/{}", index, count)))
            }
            shard => shard.unwrap_or((0, 0)),
        };
        raw.flags = (if options.compile_only { sys::MKB_OPEN_COMPILE_ONLY } else { 0 })
            | (if options.rerun_stale { sys::MKB_OPEN_RERUN_STALE } else { 0 })
            | (if options.no_sandbox { sys::MKB_OPEN_NO_SANDBOX } else { 0 });
        Ok(RawOptions { raw, _strings: strings })
    }
}

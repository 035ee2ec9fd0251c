//! Dry runs: what a session with these options would do, without starting it.
use std::ptr;

use mkb_sys as sys;

use crate::error::Result;
use crate::options::{RawOptions, SessionOptions};
use crate::text::owned_result;

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

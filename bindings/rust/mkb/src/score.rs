//! Scores of ledgers, with or without a session.
use std::os::raw::c_char;
use std::path::Path;
use std::ptr;

use mkb_sys as sys;

use crate::error::Result;
use crate::text::{c_path, owned_result};

/// How scores are rendered: JSON (docs/SCORING.md) or a table; stale trials left out unless asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScoreFormat {
    pub table: bool,
    pub with_stale: bool,
}

impl ScoreFormat {
    pub(crate) fn bits(self) -> u32 {
        (if self.table { sys::MKB_SCORE_TABLE } else { sys::MKB_SCORE_JSON })
            | (if self.with_stale { sys::MKB_SCORE_WITH_STALE } else { 0 })
    }
}

/// Scores of ledger files without a session; staleness is judged per file.
pub fn score_ledgers<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>, format: ScoreFormat) -> Result<String> {
    let owned = paths.into_iter().map(|p| c_path(p.as_ref())).collect::<Result<Vec<_>>>()?;
    let pointers: Vec<*const c_char> = owned.iter().map(|p| p.as_ptr()).collect();
    let (mut out, mut error) = (ptr::null_mut(), ptr::null_mut());
    unsafe {
        let status = sys::mkb_score_ledgers(pointers.as_ptr(), pointers.len(), format.bits(), &mut out, &mut error);
        owned_result(status, out, error)
    }
}

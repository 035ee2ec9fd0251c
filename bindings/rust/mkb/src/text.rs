//! Text across the C boundary: borrowed and owned C strings in, Rust strings and paths out.
use std::ffi::{CStr, CString, OsStr};
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use mkb_sys as sys;

use crate::error::{Error, Result};

/// A copy of a C string the library keeps; "" for NULL.
pub(crate) unsafe fn text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

/// A copy of a C string the library handed over, which is then released.
pub(crate) unsafe fn owned_text(p: *mut c_char) -> String {
    let s = text(p);
    sys::mkb_free(p as *mut _);
    s
}

/// The text of a call that hands back an owned text on success or an owned error text on failure.
pub(crate) unsafe fn owned_result(status: i32, out: *mut c_char, error: *mut c_char) -> Result<String> {
    if status != sys::MKB_OK {
        sys::mkb_free(out as *mut _);
        return Err(Error::new(status, owned_text(error)));
    }
    sys::mkb_free(error as *mut _);
    Ok(owned_text(out))
}

pub(crate) fn c_string(value: &str) -> Result<CString> {
    CString::new(value).map_err(|_| Error::invalid_argument(format!("{:?} holds a NUL byte", value)))
}

/// A path as the C library takes it: its bytes as they are, not necessarily UTF-8.
pub(crate) fn c_path(path: &Path) -> Result<CString> {
    let bytes = OsStr::as_bytes(path.as_os_str());
    CString::new(bytes).map_err(|_| Error::invalid_argument(format!("{:?} holds a NUL byte", path)))
}

//! A report: the evaluation of one submission, copied out of the library.
use mkb_sys as sys;

use crate::text::text;
use crate::verdict::Verdict;

/// The evaluation of one submission; `verdict` prints by name ("wrong_answer").
#[derive(Debug, Clone)]
pub struct Report {
    pub verdict: Verdict,
    /// Whether it counted against the budget.
    pub counted: bool,
    pub is_final: bool,
    pub time_us: f64,
    pub baseline_us: f64,
    pub speedup: f64,
    /// Eager PyTorch's time on the evaluation's GPU, the original benchmark's denominator; NaN when
    /// none is recorded for that GPU.
    pub eager_us: f64,
    /// `eager_us / time_us`, the speedup comparable with the original's; NaN when `eager_us` is.
    pub speedup_vs_eager: f64,
    /// The submission's number in its task, 1-based, refused ones included; 0 for a final evaluation.
    pub submission: u32,
    pub submissions_left: u32,
    pub seconds_left: f64,
    /// Feedback for the agent: verdict, first mismatch or error, times and spread.
    pub message: String,
    pub json: String,
}

impl Report {
    pub(crate) unsafe fn take(r: *mut sys::mkb_report) -> Report {
        let report = Report {
            verdict: Verdict::from(sys::mkb_report_verdict(r)),
            counted: sys::mkb_report_counted(r) != 0,
            is_final: sys::mkb_report_final(r) != 0,
            time_us: sys::mkb_report_time_us(r),
            baseline_us: sys::mkb_report_baseline_us(r),
            speedup: sys::mkb_report_speedup(r),
            eager_us: sys::mkb_report_eager_us(r),
            speedup_vs_eager: sys::mkb_report_speedup_vs_eager(r),
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
        self.verdict == Verdict::Passed
    }
}

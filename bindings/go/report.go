package mkb

// #include "mkb.h"
import "C"

// Report is the evaluation of one submission, copied out of the library.
type Report struct {
	Verdict         Verdict // prints by name: fmt.Println(r.Verdict) gives "wrong_answer"
	Message         string  // feedback for the agent: verdict, first mismatch or error, times
	JSON            string
	Counted         bool // whether it counted against the budget
	Final           bool
	TimeUS          float64
	BaselineUS      float64
	Speedup         float64
	EagerUS         float64 // eager PyTorch's time on the evaluation's GPU, the original's denominator; NaN if none is recorded
	SpeedupVsEager  float64 // EagerUS / TimeUS; NaN when EagerUS is
	SecondsLeft     float64
	Submission      uint32 // 1-based in its task, refused ones included; 0 if final
	SubmissionsLeft uint32
}

// Passed says whether the verdict is VerdictPassed.
func (r *Report) Passed() bool { return r.Verdict == VerdictPassed }

func takeReport(r *C.mkb_report) *Report {
	defer C.mkb_report_free(r)
	return &Report{Verdict: Verdict(C.mkb_report_verdict(r)),
		Message: C.GoString(C.mkb_report_message(r)), JSON: C.GoString(C.mkb_report_json(r)),
		Counted: C.mkb_report_counted(r) != 0, Final: C.mkb_report_final(r) != 0,
		TimeUS: float64(C.mkb_report_time_us(r)), BaselineUS: float64(C.mkb_report_baseline_us(r)),
		Speedup: float64(C.mkb_report_speedup(r)), EagerUS: float64(C.mkb_report_eager_us(r)),
		SpeedupVsEager: float64(C.mkb_report_speedup_vs_eager(r)), SecondsLeft: float64(C.mkb_report_seconds_left(r)),
		Submission: uint32(C.mkb_report_submission(r)), SubmissionsLeft: uint32(C.mkb_report_submissions_left(r))}
}

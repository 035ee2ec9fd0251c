package mkb

// #include <stdlib.h>
// #include "mkb.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// Task is one attempt handed to an agent.
type Task struct {
	handle  *C.mkb_task
	session *Session // keeps the session alive

	ID          string // "<problem>/<dsl>/<arm>/r<replicate>", unique in the session
	Problem     string
	Family      string
	DSL         string
	Arm         Arm
	Replicate   uint32
	Instruction string
	// SourceSkill is, in skill arms (HasSourceSkill), the skill written by the source solo.
	SourceSkill    string
	HasSourceSkill bool
	JSON           string // all of the above and the budget
}

func newTask(s *Session, h *C.mkb_task) *Task {
	t := &Task{handle: h, session: s,
		ID: C.GoString(C.mkb_task_id(h)), Problem: C.GoString(C.mkb_task_problem(h)),
		Family: C.GoString(C.mkb_task_family(h)), DSL: C.GoString(C.mkb_task_dsl(h)),
		Arm: Arm(C.mkb_task_arm(h)), Replicate: uint32(C.mkb_task_replicate(h)),
		Instruction: C.GoString(C.mkb_task_instruction(h)), JSON: C.GoString(C.mkb_task_json(h))}
	if skill := C.mkb_task_source_skill(h); skill != nil {
		t.SourceSkill, t.HasSourceSkill = C.GoString(skill), true
	}
	runtime.SetFinalizer(t, (*Task).Close)
	return t
}

func (t *Task) check(status C.mkb_status) error {
	if status == C.MKB_OK {
		return nil
	}
	return newError(status, C.GoString(C.mkb_task_errmsg(t.handle)))
}

// Submit evaluates a kernel; ErrBudget once the budget is spent.
func (t *Task) Submit(source string) (*Report, error) {
	defer pin()()
	c := C.CString(source)
	defer C.free(unsafe.Pointer(c))
	var out *C.mkb_report
	err := t.check(C.mkb_submit_attempt(t.handle, c, C.size_t(len(source)), &out))
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return takeReport(out), nil
}

// Compile checks that a kernel compiles, for free: the DSL's frontend, the compiler and the launch
// plan against the compiled code, as a submission goes before anything runs. Nothing runs and no
// submission is spent, only the wall clock; the verdict is VerdictCompiled or the error
// (VerdictCompileError, VerdictLaunchError, VerdictRefused, ...). ErrBudget once the time is spent.
func (t *Task) Compile(source string) (*Report, error) {
	defer pin()()
	c := C.CString(source)
	defer C.free(unsafe.Pointer(c))
	var out *C.mkb_report
	err := t.check(C.mkb_task_compile(t.handle, c, C.size_t(len(source)), &out))
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return takeReport(out), nil
}

// SubmissionsLeft is the number of submissions that may still enter evaluation (compile checks
// spend none).
func (t *Task) SubmissionsLeft() uint32 {
	left := uint32(C.mkb_task_submissions_left(t.handle))
	runtime.KeepAlive(t)
	return left
}

// SecondsLeft is the wall-clock time left until the deadline, in seconds; 0 once the attempt has ended.
func (t *Task) SecondsLeft() float64 {
	left := float64(C.mkb_task_seconds_left(t.handle))
	runtime.KeepAlive(t)
	return left
}

// SubmitSkill replaces the attempt's skill (every arm keeps one).
func (t *Task) SubmitSkill(skill string) error {
	defer pin()()
	c := C.CString(skill)
	defer C.free(unsafe.Pointer(c))
	err := t.check(C.mkb_submit_skill(t.handle, c, C.size_t(len(skill))))
	runtime.KeepAlive(t)
	return err
}

// AddUsage adds usage to the task's record, none of it from a prompt cache.
func (t *Task) AddUsage(inputTokens, outputTokens uint64, costUSD float64) error {
	defer pin()()
	err := t.check(C.mkb_task_add_usage(t.handle, C.uint64_t(inputTokens), C.uint64_t(outputTokens), C.double(costUSD)))
	runtime.KeepAlive(t)
	return err
}

// AddUsageV2 adds usage to the task's record: inputTokens counts every prompt token, those served
// from the provider's cache included; cachedInputTokens is that part (at most inputTokens).
func (t *Task) AddUsageV2(inputTokens, cachedInputTokens, outputTokens uint64, costUSD float64) error {
	defer pin()()
	err := t.check(C.mkb_task_add_usage_v2(t.handle, C.uint64_t(inputTokens), C.uint64_t(cachedInputTokens),
		C.uint64_t(outputTokens), C.double(costUSD)))
	runtime.KeepAlive(t)
	return err
}

// SetFinal names a kernel source as final without spending a submission; Finalize grades it.
func (t *Task) SetFinal(source string) error {
	defer pin()()
	c := C.CString(source)
	defer C.free(unsafe.Pointer(c))
	err := t.check(C.mkb_task_set_final(t.handle, c, C.size_t(len(source))))
	runtime.KeepAlive(t)
	return err
}

// SetFinalSubmission names an earlier submission (its Report.Submission) as final; ErrNotFound if
// there is no such submission or it never entered evaluation.
func (t *Task) SetFinalSubmission(submission uint32) error {
	defer pin()()
	err := t.check(C.mkb_task_set_final_submission(t.handle, C.uint32_t(submission)))
	runtime.KeepAlive(t)
	return err
}

// Finalize ends the attempt: its final kernel (SetFinal*, else the latest evaluated) is evaluated
// once more, and that is its record.
func (t *Task) Finalize() (*Report, error) {
	defer pin()()
	var out *C.mkb_report
	err := t.check(C.mkb_finalize(t.handle, &out))
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return takeReport(out), nil
}

// Close releases the task (ending it without a kernel if it is still open).
func (t *Task) Close() {
	if t.handle != nil {
		C.mkb_task_release(t.handle)
		t.handle = nil
		runtime.SetFinalizer(t, nil)
	}
}

// Package mkb binds libmkb (include/mkb.h is the specification) for Go through cgo.
//
// Close is the main way to release a handle; a finalizer releases forgotten ones as a safety net.
// Errors carry the text the library keeps on the handle, so no goroutine has to stay on one thread.
// A Session may be shared between goroutines; a Task may be used by one goroutine at a time.
//
// Build with the library's folder in CGO_LDFLAGS (-L) and LD_LIBRARY_PATH, or an installed libmkb.
package mkb

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -lmkb
#include <stdlib.h>
#include "mkb.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Error is a failed call: its status (an mkb_status value) and the library's text.
type Error struct {
	Status  int
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", C.GoString(C.mkb_status_name(C.mkb_status(e.Status))), e.Message)
}

// Status values (pinned in mkb.h).
const (
	ErrInvalidArgument = -1
	ErrConfig          = -2
	ErrNotFound        = -3
	ErrState           = -4
	ErrBudget          = -5
	ErrIO              = -6
	ErrLedger          = -7
	ErrWorker          = -8
	ErrNoMemory        = -9
	ErrUnsupported     = -10
	ErrVersion         = -11
	ErrSpec            = -12
	ErrInternal        = -13
)

// Arms of the four-arm protocol.
const (
	SoloA    = 0
	SoloB    = 1
	A2BSkill = 2
	B2ASkill = 3
)

// Version is the library's "MAJOR.MINOR.PATCH".
func Version() string { return C.GoString(C.mkb_version()) }

// VersionNumber is the library's version as MAJOR*10000 + MINOR*100 + PATCH.
func VersionNumber() uint32 { return uint32(C.mkb_version_number()) }

// ABIVersion is the library's ABI version; these bindings are for C.MKB_ABI_VERSION.
func ABIVersion() uint32 { return uint32(C.mkb_abi_version()) }

// VerdictName is the name of a verdict ("wrong_answer"), "unknown" if unknown.
func VerdictName(verdict int) string { return C.GoString(C.mkb_verdict_name(C.int32_t(verdict))) }

// ArmName is the name of an arm ("solo_a", "a2b_skill", ...), "unknown" if unknown.
func ArmName(arm int) string { return C.GoString(C.mkb_arm_name(C.int32_t(arm))) }

// Options of a session (mkb_open_options); empty strings and zeros keep the defaults.
// Trials holds globs over trial ids "<problem>/<dsl>/<arm>/r<replicate>"; Directions "a_to_b",
// "b_to_a"; TargetArch the architecture compile-only sessions compile for ("sm_90a").
type Options struct {
	SuitePath, DslA, DslB, Problems, Families, Model, LedgerPath, Gpus, WorkerPath, CacheDir, Python, GPULockDir string
	Trials, Directions, TargetArch                                                                               string
	Replicates, BudgetSeconds, BudgetSubmissions, BudgetSourceBytes, SkillMaxBytes                               uint32
	Seed                                                                                                         uint64
	CompileOnly, RerunStale, NoSandbox                                                                           bool
}

// Session is a benchmark run.
type Session struct {
	handle *C.mkb_session
}

// withRaw calls use with the C form of o; its strings live until use returns.
func (o Options) withRaw(use func(*C.mkb_open_options)) {
	var raw C.mkb_open_options
	C.mkb_open_options_init(&raw, C.size_t(unsafe.Sizeof(raw)))
	var owned []*C.char
	text := func(s string) *C.char {
		if s == "" {
			return nil
		}
		c := C.CString(s)
		owned = append(owned, c)
		return c
	}
	defer func() {
		for _, c := range owned {
			C.free(unsafe.Pointer(c))
		}
	}()
	raw.suite_path, raw.dsl_a, raw.dsl_b = text(o.SuitePath), text(o.DslA), text(o.DslB)
	raw.problems, raw.families, raw.model = text(o.Problems), text(o.Families), text(o.Model)
	raw.ledger_path, raw.gpus, raw.worker_path = text(o.LedgerPath), text(o.Gpus), text(o.WorkerPath)
	raw.cache_dir, raw.python, raw.gpu_lock_dir = text(o.CacheDir), text(o.Python), text(o.GPULockDir)
	raw.trials, raw.directions, raw.target_arch = text(o.Trials), text(o.Directions), text(o.TargetArch)
	raw.replicates, raw.budget_seconds = C.uint32_t(o.Replicates), C.uint32_t(o.BudgetSeconds)
	raw.budget_submissions, raw.budget_source_bytes = C.uint32_t(o.BudgetSubmissions), C.uint32_t(o.BudgetSourceBytes)
	raw.skill_max_bytes, raw.seed = C.uint32_t(o.SkillMaxBytes), C.uint64_t(o.Seed)
	if o.CompileOnly {
		raw.flags |= C.MKB_OPEN_COMPILE_ONLY
	}
	if o.RerunStale {
		raw.flags |= C.MKB_OPEN_RERUN_STALE
	}
	if o.NoSandbox {
		raw.flags |= C.MKB_OPEN_NO_SANDBOX
	}
	use(&raw)
}

// Open opens a session.
func Open(o Options) (*Session, error) {
	var handle *C.mkb_session
	var err error
	o.withRaw(func(raw *C.mkb_open_options) {
		if status := C.mkb_open(raw, &handle); status != C.MKB_OK {
			err = &Error{int(status), C.GoString(C.mkb_session_errmsg(handle))}
			C.mkb_close(handle)
		}
	})
	if err != nil {
		return nil, err
	}
	s := &Session{handle}
	runtime.SetFinalizer(s, (*Session).Close)
	return s, nil
}

// Close closes the session. Calling it again does nothing.
func (s *Session) Close() {
	if s.handle != nil {
		C.mkb_close(s.handle)
		s.handle = nil
		runtime.SetFinalizer(s, nil)
	}
}

func (s *Session) err(status C.mkb_status) error {
	return &Error{int(status), C.GoString(C.mkb_session_errmsg(s.handle))}
}

// NextTasks hands out up to capacity ready tasks, waiting up to waitMs for one. done reports that
// every task has been handed out; no tasks and !done means none is ready yet.
func (s *Session) NextTasks(capacity int, waitMs uint32) (tasks []*Task, done bool, err error) {
	slots := make([]*C.mkb_task, capacity)
	var count C.size_t
	status := C.mkb_next_task(s.handle, C.uint32_t(waitMs), &slots[0], C.size_t(capacity), &count)
	runtime.KeepAlive(s)
	switch status {
	case C.MKB_OK:
		for i := 0; i < int(count); i++ {
			tasks = append(tasks, newTask(s, slots[i]))
		}
		return tasks, false, nil
	case C.MKB_NOT_READY:
		return nil, false, nil
	case C.MKB_DONE:
		return nil, true, nil
	}
	return nil, false, s.err(status)
}

// NextTask waits for the next task; nil once every task has been handed out.
func (s *Session) NextTask(waitMs uint32) (*Task, error) {
	for {
		tasks, done, err := s.NextTasks(1, waitMs)
		if err != nil || done {
			return nil, err
		}
		if len(tasks) > 0 {
			return tasks[0], nil
		}
	}
}

// Evaluate evaluates one kernel outside any task: no budget, nothing recorded (for tools, not agents).
func (s *Session) Evaluate(problem, dsl, source string) (*Report, error) {
	cProblem, cDsl, cSource := C.CString(problem), C.CString(dsl), C.CString(source)
	defer C.free(unsafe.Pointer(cProblem))
	defer C.free(unsafe.Pointer(cDsl))
	defer C.free(unsafe.Pointer(cSource))
	var out *C.mkb_report
	status := C.mkb_evaluate(s.handle, cProblem, cDsl, cSource, C.size_t(len(source)), &out)
	runtime.KeepAlive(s)
	if status != C.MKB_OK {
		return nil, s.err(status)
	}
	return takeReport(out), nil
}

// ScoreFormat says how scores are rendered: JSON (docs/SCORING.md) or a table, and whether stale
// trials are scored too (else they are left out and only counted).
type ScoreFormat struct {
	Table, WithStale bool
}

func (f ScoreFormat) bits() C.uint32_t {
	format := C.uint32_t(C.MKB_SCORE_JSON)
	if f.Table {
		format = C.MKB_SCORE_TABLE
	}
	if f.WithStale {
		format |= C.MKB_SCORE_WITH_STALE
	}
	return format
}

// Score returns the scores of every finished trial of the session's ledger.
func (s *Session) Score(f ScoreFormat) (string, error) {
	var out *C.char
	status := C.mkb_score(s.handle, f.bits(), &out)
	runtime.KeepAlive(s)
	if status != C.MKB_OK {
		return "", s.err(status)
	}
	defer C.mkb_free(unsafe.Pointer(out))
	return C.GoString(out), nil
}

// ownedResult is the text of a call that hands back an owned text, or an owned error text.
func ownedResult(status C.mkb_status, out, errText *C.char) (string, error) {
	defer C.mkb_free(unsafe.Pointer(out))
	defer C.mkb_free(unsafe.Pointer(errText))
	if status != C.MKB_OK {
		return "", &Error{int(status), C.GoString(errText)}
	}
	return C.GoString(out), nil
}

// ScoreLedgers scores ledger files without a session; staleness is judged per file.
func ScoreLedgers(paths []string, f ScoreFormat) (string, error) {
	if len(paths) == 0 {
		return "", &Error{ErrInvalidArgument, "ScoreLedgers: no ledger given"}
	}
	array := make([]*C.char, len(paths)) // Go memory holding C pointers only: cgo allows passing it
	for i, p := range paths {
		array[i] = C.CString(p)
		defer C.free(unsafe.Pointer(array[i]))
	}
	var out, errText *C.char
	status := C.mkb_score_ledgers(&array[0], C.size_t(len(paths)), f.bits(), &out, &errText)
	return ownedResult(status, out, errText)
}

// Plan is a dry run: the trials Open(o) would plan, each with its state ("done", "skipped", "stale",
// "interrupted", "pending"), as JSON or a readable list. It starts nothing; the ledger is read, never
// written or locked.
func Plan(o Options, table bool) (string, error) {
	format := C.uint32_t(C.MKB_PLAN_JSON)
	if table {
		format = C.MKB_PLAN_TABLE
	}
	var out, errText *C.char
	var status C.mkb_status
	o.withRaw(func(raw *C.mkb_open_options) { status = C.mkb_plan(raw, format, &out, &errText) })
	return ownedResult(status, out, errText)
}

// Task is one attempt handed to an agent.
type Task struct {
	handle                                       *C.mkb_task
	session                                      *Session // keeps the session alive
	ID, Problem, Family, Dsl, Instruction, Skill string
	ArmName                                      string
	JSON                                         string // all of the above and the budget
	Arm                                          int
	Replicate                                    uint32
	HasSourceSkill                               bool
}

func newTask(s *Session, h *C.mkb_task) *Task {
	t := &Task{handle: h, session: s,
		ID: C.GoString(C.mkb_task_id(h)), Problem: C.GoString(C.mkb_task_problem(h)),
		Family: C.GoString(C.mkb_task_family(h)), Dsl: C.GoString(C.mkb_task_dsl(h)),
		Instruction: C.GoString(C.mkb_task_instruction(h)), Arm: int(C.mkb_task_arm(h)),
		ArmName: C.GoString(C.mkb_arm_name(C.mkb_task_arm(h))), JSON: C.GoString(C.mkb_task_json(h)),
		Replicate: uint32(C.mkb_task_replicate(h))}
	if skill := C.mkb_task_source_skill(h); skill != nil {
		t.Skill, t.HasSourceSkill = C.GoString(skill), true
	}
	runtime.SetFinalizer(t, (*Task).Close)
	return t
}

func (t *Task) check(status C.mkb_status) error {
	if status == C.MKB_OK {
		return nil
	}
	return &Error{int(status), C.GoString(C.mkb_task_errmsg(t.handle))}
}

// Submit evaluates a kernel.
func (t *Task) Submit(source string) (*Report, error) {
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

// SubmitSkill replaces the attempt's skill (every arm keeps one).
func (t *Task) SubmitSkill(skill string) error {
	c := C.CString(skill)
	defer C.free(unsafe.Pointer(c))
	err := t.check(C.mkb_submit_skill(t.handle, c, C.size_t(len(skill))))
	runtime.KeepAlive(t)
	return err
}

// AddUsage adds usage to the task's record, none of it from a prompt cache.
func (t *Task) AddUsage(inputTokens, outputTokens uint64, costUSD float64) error {
	err := t.check(C.mkb_task_add_usage(t.handle, C.uint64_t(inputTokens), C.uint64_t(outputTokens), C.double(costUSD)))
	runtime.KeepAlive(t)
	return err
}

// AddUsageV2 adds usage to the task's record: inputTokens counts every prompt token, those served
// from the provider's cache included; cachedInputTokens is that part (at most inputTokens).
func (t *Task) AddUsageV2(inputTokens, cachedInputTokens, outputTokens uint64, costUSD float64) error {
	err := t.check(C.mkb_task_add_usage_v2(t.handle, C.uint64_t(inputTokens), C.uint64_t(cachedInputTokens),
		C.uint64_t(outputTokens), C.double(costUSD)))
	runtime.KeepAlive(t)
	return err
}

// SetFinal names a kernel source as final without spending a submission; Finalize grades it.
func (t *Task) SetFinal(source string) error {
	c := C.CString(source)
	defer C.free(unsafe.Pointer(c))
	err := t.check(C.mkb_task_set_final(t.handle, c, C.size_t(len(source))))
	runtime.KeepAlive(t)
	return err
}

// SetFinalSubmission names an earlier submission (its Report.Submission) as final; ErrNotFound if
// there is no such submission or it never entered evaluation.
func (t *Task) SetFinalSubmission(submission uint32) error {
	err := t.check(C.mkb_task_set_final_submission(t.handle, C.uint32_t(submission)))
	runtime.KeepAlive(t)
	return err
}

// Finalize ends the attempt: its final kernel (SetFinal*, else the latest evaluated) is evaluated
// once more, and that is its record.
func (t *Task) Finalize() (*Report, error) {
	var out *C.mkb_report
	err := t.check(C.mkb_finalize(t.handle, &out))
	runtime.KeepAlive(t)
	if err != nil {
		return nil, err
	}
	return takeReport(out), nil
}

// Close releases the task (finalizing it first if it is still open).
func (t *Task) Close() {
	if t.handle != nil {
		C.mkb_task_release(t.handle)
		t.handle = nil
		runtime.SetFinalizer(t, nil)
	}
}

// Report is the evaluation of one submission, copied out of the library.
type Report struct {
	Verdict                                  int
	VerdictName, Message, JSON               string
	Counted, Final                           bool
	TimeUs, BaselineUs, Speedup, SecondsLeft float64
	Submission                               uint32 // 1-based in its task, refused ones included; 0 if final
	SubmissionsLeft                          uint32
}

// Passed says whether the verdict is "passed".
func (r *Report) Passed() bool { return r.Verdict == 0 }

func takeReport(r *C.mkb_report) *Report {
	defer C.mkb_report_free(r)
	v := int(C.mkb_report_verdict(r))
	return &Report{Verdict: v, VerdictName: C.GoString(C.mkb_verdict_name(C.int32_t(v))),
		Message: C.GoString(C.mkb_report_message(r)), JSON: C.GoString(C.mkb_report_json(r)),
		Counted: C.mkb_report_counted(r) != 0, Final: C.mkb_report_final(r) != 0,
		TimeUs: float64(C.mkb_report_time_us(r)), BaselineUs: float64(C.mkb_report_baseline_us(r)),
		Speedup: float64(C.mkb_report_speedup(r)), SecondsLeft: float64(C.mkb_report_seconds_left(r)),
		Submission: uint32(C.mkb_report_submission(r)), SubmissionsLeft: uint32(C.mkb_report_submissions_left(r))}
}

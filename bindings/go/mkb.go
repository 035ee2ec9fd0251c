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

// Options of a session (mkb_open_options); empty strings and zeros keep the defaults.
type Options struct {
	SuitePath, DslA, DslB, Problems, Families, Model, LedgerPath, Gpus, WorkerPath, CacheDir, Python, GPULockDir string
	Replicates, BudgetSeconds, BudgetSubmissions, BudgetSourceBytes, SkillMaxBytes                               uint32
	Seed                                                                                                         uint64
	CompileOnly, RerunStale, NoSandbox                                                                           bool
}

// Session is a benchmark run.
type Session struct {
	handle *C.mkb_session
}

// Open opens a session.
func Open(o Options) (*Session, error) {
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
	var handle *C.mkb_session
	if status := C.mkb_open(&raw, &handle); status != C.MKB_OK {
		err := &Error{int(status), C.GoString(C.mkb_session_errmsg(handle))}
		C.mkb_close(handle)
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

// Score returns the scores as JSON, or as a readable table.
func (s *Session) Score(table bool) (string, error) {
	format := C.uint32_t(C.MKB_SCORE_JSON)
	if table {
		format = C.MKB_SCORE_TABLE
	}
	var out *C.char
	status := C.mkb_score(s.handle, format, &out)
	runtime.KeepAlive(s)
	if status != C.MKB_OK {
		return "", s.err(status)
	}
	defer C.mkb_free(unsafe.Pointer(out))
	return C.GoString(out), nil
}

// Task is one attempt handed to an agent.
type Task struct {
	handle                                       *C.mkb_task
	session                                      *Session // keeps the session alive
	ID, Problem, Family, Dsl, Instruction, Skill string
	Arm                                          int
	Replicate                                    uint32
	HasSourceSkill                               bool
}

func newTask(s *Session, h *C.mkb_task) *Task {
	t := &Task{handle: h, session: s,
		ID: C.GoString(C.mkb_task_id(h)), Problem: C.GoString(C.mkb_task_problem(h)),
		Family: C.GoString(C.mkb_task_family(h)), Dsl: C.GoString(C.mkb_task_dsl(h)),
		Instruction: C.GoString(C.mkb_task_instruction(h)), Arm: int(C.mkb_task_arm(h)),
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

// SubmitSkill replaces the skill of a solo attempt.
func (t *Task) SubmitSkill(skill string) error {
	c := C.CString(skill)
	defer C.free(unsafe.Pointer(c))
	err := t.check(C.mkb_submit_skill(t.handle, c, C.size_t(len(skill))))
	runtime.KeepAlive(t)
	return err
}

// Finalize ends the attempt; its latest kernel is evaluated once more, and that is its record.
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
		SubmissionsLeft: uint32(C.mkb_report_submissions_left(r))}
}

package mkb

// #include <stdlib.h>
// #include "mkb.h"
import "C"

import (
	"math"
	"runtime"
	"time"
	"unsafe"
)

// Session is a benchmark run.
type Session struct {
	handle *C.mkb_session
}

// Open opens a session.
func Open(o Options) (*Session, error) {
	defer pin()()
	var handle *C.mkb_session
	var err error
	o.withRaw(func(raw *C.mkb_open_options) {
		if status := C.mkb_open(raw, &handle); status != C.MKB_OK {
			err = newError(status, C.GoString(C.mkb_session_errmsg(handle)))
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
	return newError(status, C.GoString(C.mkb_session_errmsg(s.handle)))
}

// milliseconds is wait in whole milliseconds as the C API takes it, rounded up, capped at its maximum.
func milliseconds(wait time.Duration) C.uint32_t {
	if wait <= 0 {
		return 0
	}
	ms := wait / time.Millisecond
	if wait%time.Millisecond != 0 {
		ms++
	}
	if ms > math.MaxUint32 {
		return math.MaxUint32
	}
	return C.uint32_t(ms)
}

// NextTasks hands out up to capacity ready tasks, waiting up to wait for one. done reports that
// every task has been handed out; no tasks and !done means none is ready yet.
func (s *Session) NextTasks(capacity int, wait time.Duration) (tasks []*Task, done bool, err error) {
	defer pin()()
	if capacity < 1 {
		return nil, false, &Error{ErrInvalidArgument, "NextTasks: capacity must be at least 1"}
	}
	slots := make([]*C.mkb_task, capacity)
	var count C.size_t
	status := C.mkb_next_task(s.handle, milliseconds(wait), &slots[0], C.size_t(capacity), &count)
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

// NextTask waits for the next task, wait at a time, while skill arms wait for their sources; nil
// once every task has been handed out.
func (s *Session) NextTask(wait time.Duration) (*Task, error) {
	for {
		tasks, done, err := s.NextTasks(1, wait)
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
	defer pin()()
	cProblem, cDSL, cSource := C.CString(problem), C.CString(dsl), C.CString(source)
	defer C.free(unsafe.Pointer(cProblem))
	defer C.free(unsafe.Pointer(cDSL))
	defer C.free(unsafe.Pointer(cSource))
	var out *C.mkb_report
	status := C.mkb_evaluate(s.handle, cProblem, cDSL, cSource, C.size_t(len(source)), &out)
	runtime.KeepAlive(s)
	if status != C.MKB_OK {
		return nil, s.err(status)
	}
	return takeReport(out), nil
}

// Score returns the scores of every finished trial of the session's ledger.
func (s *Session) Score(f ScoreFormat) (string, error) {
	defer pin()()
	var out *C.char
	status := C.mkb_score(s.handle, f.bits(), &out)
	runtime.KeepAlive(s)
	if status != C.MKB_OK {
		return "", s.err(status)
	}
	defer C.mkb_free(unsafe.Pointer(out))
	return C.GoString(out), nil
}

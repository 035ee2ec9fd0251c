package mkb

// #include "mkb.h"
import "C"

import (
	"fmt"
	"runtime"
)

// Status is a failing mkb_status. Each value is a sentinel error: every error of this package wraps
// one, so errors.Is(err, mkb.ErrNotFound) tells what failed, as errors.Is does with syscall.Errno.
type Status int32

// The failing statuses of include/mkb.h (values pinned).
const (
	ErrInvalidArgument Status = -1
	ErrConfig          Status = -2
	ErrNotFound        Status = -3
	ErrState           Status = -4
	ErrBudget          Status = -5
	ErrIO              Status = -6
	ErrLedger          Status = -7
	ErrWorker          Status = -8
	ErrNoMemory        Status = -9
	ErrUnsupported     Status = -10
	ErrVersion         Status = -11
	ErrSpec            Status = -12
	ErrInternal        Status = -13
)

// Error is the C name of the status ("MKB_ERR_NOT_FOUND").
func (s Status) Error() string { return C.GoString(C.mkb_status_name(C.mkb_status(s))) }

// Error is a failed call: its status and the library's text.
type Error struct {
	Status  Status
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%v: %s", e.Status, e.Message) }

// Unwrap gives the status, the sentinel errors.Is compares with.
func (e *Error) Unwrap() error { return e.Status }

func newError(status C.mkb_status, message string) error {
	return &Error{Status(status), message}
}

// pin keeps the calling goroutine on its OS thread until the function it returns runs (defer pin()()).
// libmkb keeps a failed call's text per handle and per OS thread (mkb.h, Conventions), and the Go
// runtime may move a goroutine to another thread between two cgo calls: every method that makes a
// call and then reads its text pins the goroutine around both.
func pin() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

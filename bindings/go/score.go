package mkb

// #include <stdlib.h>
// #include "mkb.h"
import "C"

import "unsafe"

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

// ownedResult is the text of a call that hands back an owned text, or an owned error text.
func ownedResult(status C.mkb_status, out, errText *C.char) (string, error) {
	defer C.mkb_free(unsafe.Pointer(out))
	defer C.mkb_free(unsafe.Pointer(errText))
	if status != C.MKB_OK {
		return "", newError(status, C.GoString(errText))
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

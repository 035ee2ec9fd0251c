// Package mkb binds libmkb (include/mkb.h is the specification) for Go through cgo.
//
// Close is the main way to release a handle; a finalizer releases forgotten ones as a safety net.
// Errors carry the text the library keeps on the handle, so no goroutine has to stay on one thread,
// and wrap a sentinel per C status for errors.Is (ErrNotFound, ErrConfig, ...). A Session may be
// shared between goroutines; a Task may be used by one goroutine at a time.
//
// The header and the library come from pkg-config (mkb.pc, installed with libmkb; inside the
// repository the build writes one to build/lib/pkgconfig): set PKG_CONFIG_PATH to its folder.
package mkb

/*
#cgo pkg-config: mkb
#include "mkb.h"
*/
import "C"

// Version is the library's "MAJOR.MINOR.PATCH".
func Version() string { return C.GoString(C.mkb_version()) }

// VersionNumber is the library's version as MAJOR*10000 + MINOR*100 + PATCH.
func VersionNumber() uint32 { return uint32(C.mkb_version_number()) }

// ABIVersion is the library's ABI version; these bindings are for C.MKB_ABI_VERSION.
func ABIVersion() uint32 { return uint32(C.mkb_abi_version()) }

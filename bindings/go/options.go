package mkb

// #include <stdlib.h>
// #include "mkb.h"
import "C"

import "unsafe"

// Options of a session, a dry run or a discovery call (mkb_open_options); empty strings and zeros
// keep the library's defaults. Problems and Trials hold comma-separated shell globs (Trials over
// ids "<problem>/<dsl>/<arm>/r<replicate>"), Families comma-separated names (empty: all but "extra",
// whose problems only an exact id in Problems selects: include/mkb.h); Directions "a_to_b", "b_to_a"; GPUs
// comma-separated device ordinals; TargetArch the architecture compile-only sessions compile for;
// ShardIndex and ShardCount plan only shard ShardIndex (from 0) of ShardCount (0: no sharding).
type Options struct {
	SuitePath, DSLA, DSLB, Problems, Families, Model, LedgerPath, GPUs, WorkerPath, CacheDir, Python, GPULockDir string
	Trials, Directions, TargetArch                                                                               string
	Replicates, BudgetSeconds, BudgetSubmissions, BudgetSourceBytes, SkillMaxBytes                               uint32
	ShardIndex, ShardCount                                                                                       uint32
	Seed                                                                                                         uint64
	CompileOnly, RerunStale, NoSandbox                                                                           bool
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
	raw.suite_path, raw.dsl_a, raw.dsl_b = text(o.SuitePath), text(o.DSLA), text(o.DSLB)
	raw.problems, raw.families, raw.model = text(o.Problems), text(o.Families), text(o.Model)
	raw.ledger_path, raw.gpus, raw.worker_path = text(o.LedgerPath), text(o.GPUs), text(o.WorkerPath)
	raw.cache_dir, raw.python, raw.gpu_lock_dir = text(o.CacheDir), text(o.Python), text(o.GPULockDir)
	raw.trials, raw.directions, raw.target_arch = text(o.Trials), text(o.Directions), text(o.TargetArch)
	raw.replicates, raw.budget_seconds = C.uint32_t(o.Replicates), C.uint32_t(o.BudgetSeconds)
	raw.budget_submissions, raw.budget_source_bytes = C.uint32_t(o.BudgetSubmissions), C.uint32_t(o.BudgetSourceBytes)
	raw.skill_max_bytes, raw.seed = C.uint32_t(o.SkillMaxBytes), C.uint64_t(o.Seed)
	raw.shard_index, raw.shard_count = C.uint32_t(o.ShardIndex), C.uint32_t(o.ShardCount)
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

/*
 * mkb.h: the public C interface of libmkb, MetaKernelBench as an embeddable library.
 *
 * This header is the specification. A function or type that is not declared here is not part of the
 * interface. The header compiles as C99 and as C++; it needs only <stddef.h> and <stdint.h>.
 *
 * Concepts
 *   session  One benchmark run: a suite of problems, a pair of DSLs, budgets, a ledger. It plans four
 *            arms per problem and replicate and hands them out as tasks.
 *   task     One attempt by one agent: a problem in one DSL, in one arm (solo or skill-conditioned).
 *            The agent submits kernels (each evaluated and answered with a report), keeps a skill text
 *            up to date in solo arms, and declares the attempt final.
 *   report   The evaluation of one submission: verdict, feedback text, times, speedup, full JSON.
 *
 * Conventions
 *   - Every function that can fail returns an mkb_status. Values are pinned forever: MKB_OK is 0,
 *     informational outcomes are positive, errors are negative.
 *   - Each such function names every error it returns on its "Errors:" line, a comma-separated list
 *     ending with a period, and says below it when each happens. Not repeated there: every function
 *     that returns an mkb_status, mkb_open_options_init() excepted, may also return MKB_ERR_NO_MEMORY
 *     (host memory exhausted) and MKB_ERR_INTERNAL (a bug in libmkb; the text says what was caught).
 *     MKB_ERR_UNSUPPORTED is reserved: no function returns it yet. A NULL handle is
 *     MKB_ERR_INVALID_ARGUMENT, and leaves no text (there is no handle to keep it).
 *     tests/api/error_lists_test.cpp provokes every listed error of every function, and fails on an
 *     error returned but not listed.
 *   - Error text is kept per handle and per thread: a failed call on a session or a task leaves its
 *     text on that handle for the calling thread, and mkb_session_errmsg() or mkb_task_errmsg() called
 *     from that thread reads it. Threads sharing a session each read the text of their own last call,
 *     never another thread's. The text stays valid until the same thread's next call on that handle
 *     or the handle's release; every call on a handle that returns a status first clears the calling
 *     thread's text on it. A thread's texts are dropped when it exits, and a thread that starts later
 *     never sees them. So make the call and read its text on one OS thread: a runtime that moves work
 *     between threads must pin it for the two calls (the Go binding does). Calls that take no handle
 *     (mkb_plan(), mkb_score_ledgers(), discovery) hand their text out through error_out instead.
 *   - A returned `const char *` is borrowed: it belongs to the handle named in its documentation and
 *     stays valid as long as that documentation says. A returned `char *` is owned by the caller and
 *     released with mkb_free(). Handles are released with their own function; each accepts NULL.
 *   - No function throws, aborts or prints on error. Strings are UTF-8 and NUL-terminated unless a
 *     size is passed with them.
 *   - Option structs begin with their own size (struct_size). Fields past the caller's struct_size
 *     take their defaults, so a program built against an older header keeps working.
 *
 * Threads
 *   A session may be used from any number of threads at once. A task or a report may be used from any
 *   thread, but not from two at once. Calls on different tasks of one session may run concurrently.
 */
#ifndef MKB_H
#define MKB_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------------------------------- */
/* Version                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

#define MKB_VERSION_MAJOR 0
#define MKB_VERSION_MINOR 1
#define MKB_VERSION_PATCH 0
#define MKB_VERSION_STRING "0.1.0"
#define MKB_VERSION_NUMBER (MKB_VERSION_MAJOR * 10000 + MKB_VERSION_MINOR * 100 + MKB_VERSION_PATCH)

/* The ABI version equals the shared library's SOVERSION (libmkb.so.1). It changes only when a
 * change to this header would break a program built against the previous one. */
#define MKB_ABI_VERSION 1

#if defined(MKB_BUILDING_LIBRARY) && defined(__GNUC__)
#define MKB_API __attribute__((visibility("default")))
#else
#define MKB_API
#endif

#ifdef __cplusplus
#define MKB_NOEXCEPT noexcept
extern "C" {
#else
#define MKB_NOEXCEPT
#endif

/* ---------------------------------------------------------------------------------------------- */
/* Status codes (values pinned)                                                                   */
/* ---------------------------------------------------------------------------------------------- */

typedef int32_t mkb_status;

enum mkb_status_code {
  MKB_OK = 0,
  MKB_NOT_READY = 1,              /* mkb_next_task: nothing ready yet; more will come */
  MKB_DONE = 2,                   /* mkb_next_task: every task has been handed out */

  MKB_ERR_INVALID_ARGUMENT = -1,  /* a NULL where a value is required, a bad enum value, ... */
  MKB_ERR_CONFIG = -2,            /* an option or configuration value is wrong; the text names it */
  MKB_ERR_NOT_FOUND = -3,         /* a problem, DSL or file that does not exist */
  MKB_ERR_STATE = -4,             /* the call is not valid now (the task has ended, ...) */
  MKB_ERR_BUDGET = -5,            /* the task's budget is spent; nothing was evaluated */
  MKB_ERR_IO = -6,                /* reading or writing a file failed */
  MKB_ERR_LEDGER = -7,            /* the ledger cannot be used (not a ledger, another format, damaged
                                     before its end, or in use by another session) */
  MKB_ERR_WORKER = -8,            /* infrastructure: a GPU worker could not start or answer */
  MKB_ERR_NO_MEMORY = -9,         /* host memory exhausted */
  MKB_ERR_UNSUPPORTED = -10,      /* not supported by this build or this version yet */
  MKB_ERR_VERSION = -11,          /* struct_size or ABI version not understood */
  MKB_ERR_SPEC = -12,             /* a problem spec in the suite is malformed; the text says where */
  MKB_ERR_INTERNAL = -13          /* a bug in libmkb; the text says what was caught */
};

/* A static, never-NULL name for a status ("MKB_ERR_CONFIG"), "MKB_UNKNOWN_STATUS" if unknown. */
MKB_API const char *mkb_status_name(mkb_status status) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Library                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

/* The library's version as "MAJOR.MINOR.PATCH" (static string), as a number, and its ABI version.
 * Compare mkb_abi_version() with MKB_ABI_VERSION to detect a mismatched shared library. */
MKB_API const char *mkb_version(void) MKB_NOEXCEPT;
MKB_API uint32_t mkb_version_number(void) MKB_NOEXCEPT;
MKB_API uint32_t mkb_abi_version(void) MKB_NOEXCEPT;

/* Releases a `char *` handed out by this library. NULL is a no-op. Never pass it anything else,
 * and never release library memory with free(). */
MKB_API void mkb_free(void *pointer) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Verdicts and arms (values pinned)                                                              */
/* ---------------------------------------------------------------------------------------------- */

enum mkb_verdict {
  MKB_VERDICT_PASSED = 0,         /* correct on every draw, and timed */
  MKB_VERDICT_REFUSED = 1,        /* never entered evaluation; not counted against the budget:
                                     too large, unparsable launch plan, infrastructure failure */
  MKB_VERDICT_COMPILE_ERROR = 2,  /* the compiler rejected the code; the log is in the report */
  MKB_VERDICT_LAUNCH_ERROR = 3,   /* the plan does not fit the compiled code or the device: missing
                                     entry, wrong parameter list, launch shape over a limit */
  MKB_VERDICT_WRONG_ANSWER = 4,   /* an output differs from the anchor beyond the allowance, is NaN,
                                     was left unwritten, or has the wrong shape */
  MKB_VERDICT_OUT_OF_BOUNDS = 5,  /* wrote into a guard region past the end of a buffer */
  MKB_VERDICT_INPUT_MODIFIED = 6, /* changed an input the problem does not declare writable */
  MKB_VERDICT_FAULT = 7,          /* illegal address, misaligned access, trap, illegal instruction */
  MKB_VERDICT_TIMEOUT = 8,        /* a launch or the evaluation ran past its deadline */
  MKB_VERDICT_OUT_OF_MEMORY = 9,  /* the plan's scratch or the launch exhausted device memory */
  MKB_VERDICT_CRASHED = 10,       /* the GPU worker died while running the submission */
  MKB_VERDICT_INCONSISTENT = 11,  /* correct at first, wrong when re-verified during timing */
  MKB_VERDICT_COMPILED = 12,      /* compiled and the plan checked against the code, not run: a
                                     compile check (mkb_task_compile), or any evaluation in a
                                     compile-only session (no GPU) */
  MKB_VERDICT_NO_KERNEL = 13      /* final evaluation of an attempt that never had a kernel evaluated */
};

/* A static, never-NULL name for a verdict ("wrong_answer"), "unknown" if unknown. */
MKB_API const char *mkb_verdict_name(int32_t verdict) MKB_NOEXCEPT;

enum mkb_arm {
  MKB_ARM_SOLO_A = 0,             /* the first DSL of the pair, no help */
  MKB_ARM_SOLO_B = 1,             /* the second DSL, no help */
  MKB_ARM_A2B_SKILL = 2,          /* second DSL, with the skill written in SOLO_A */
  MKB_ARM_B2A_SKILL = 3           /* first DSL, with the skill written in SOLO_B */
};

/* A static, never-NULL name for an arm ("solo_a", "a2b_skill", ...), "unknown" if unknown. */
MKB_API const char *mkb_arm_name(int32_t arm) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Session                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

typedef struct mkb_session mkb_session;
typedef struct mkb_task mkb_task;
typedef struct mkb_report mkb_report;

/* mkb_open_options.flags */
#define MKB_OPEN_COMPILE_ONLY 0x1u /* never run kernels: compile and check plans only (no GPU) */
#define MKB_OPEN_RERUN_STALE 0x2u  /* plan stale trials again (docs/PROTOCOL.md, Stale trials): those
                                      recorded under other fingerprints than this session's. Without
                                      it they are kept, never re-run, and left out of scores */
#define MKB_OPEN_NO_SANDBOX 0x4u   /* run Python DSL frontends (a submission's own Python code)
                                      outside their sandbox, as does the environment variable
                                      MKB_NO_SANDBOX=1. Without either, where no sandbox is usable
                                      (bubblewrap missing or refused), Python DSL submissions are
                                      REFUSED, not counted, with the reason: docs/DSLS.md */

typedef struct mkb_open_options {
  size_t struct_size;            /* sizeof(mkb_open_options) as the caller compiled it */

  /* Suite and variants. Strings are copied during mkb_open(); NULL selects the default. */
  const char *suite_path;        /* folder holding <family>/<problem>/spec.json; NULL: built-in */
  const char *dsl_a;             /* first DSL of the pair; NULL: "cute-dsl" */
  const char *dsl_b;             /* second DSL; NULL: "tirx" */
  const char *problems;          /* comma-separated problem ids or shell globs (fnmatch); NULL: all */
  const char *families;          /* comma-separated family names; NULL: all but "extra", whose
                                    problems only an exact id in problems selects */
  uint32_t replicates;           /* 0: 1 */

  /* Budget of every attempt, equal for all arms. 0 selects the original benchmark's value. */
  uint32_t budget_seconds;       /* wall clock from the task's hand-out; 0: 2400 */
  uint32_t budget_submissions;   /* submissions that enter evaluation; 0: 10 */
  uint32_t budget_source_bytes;  /* largest accepted kernel source; 0: 300000 */
  uint32_t skill_max_bytes;      /* largest accepted skill text; 0: 65536 */

  /* Recording. */
  const char *model;             /* label of the agent's model, recorded and scored; NULL: "unknown" */
  const char *ledger_path;       /* append-only ledger; created if missing, resumed if present.
                                    NULL: nothing is persisted */

  /* Execution. */
  const char *gpus;              /* comma-separated device ordinals; NULL: every visible GPU */
  uint64_t seed;                 /* planning and shuffling seed; 0: from the OS. Input draws are
                                    always from the OS, never from this seed */
  uint32_t flags;                /* MKB_OPEN_* */
  const char *worker_path;       /* the mkb-worker executable; NULL: MKB_WORKER, then next to the
                                    library (../libexec, ../bin, same folder) */
  const char *cache_dir;         /* compile cache; NULL: MKB_CACHE_DIR, then
                                    $XDG_CACHE_HOME/mkb, then ~/.cache/mkb */
  const char *python;            /* interpreter for Python DSL frontends; NULL: MKB_PYTHON, then
                                    the one the build recorded (CMake's MKB_PYTHON: by default the
                                    virtual environment scripts/setup makes) while it exists, then
                                    "python3" */

  /* Later additions: read only when struct_size covers them. */
  const char *gpu_lock_dir;      /* the host's folder of GPU locks, shared by every process that
                                    evaluates on this host: one evaluation at a time per GPU, in
                                    arrival order (docs/CONTRACT.md). It must exist and be writable.
                                    NULL: MKB_GPU_LOCK_DIR, then /tmp/mkb-gpu-locks (created) */
  const char *trials;            /* comma-separated shell globs (fnmatch) over trial ids
                                    "<problem>/<dsl>/<arm>/r<replicate>", such as
                                    "softmax/cuda/solo_?/r[12]" (replicates count from 0): only
                                    matching trials are planned.
                                    A selected skill arm brings in its source solo, which writes
                                    the skill it receives.
                                    NULL: every trial */
  const char *directions;        /* comma-separated "a_to_b", "b_to_a": only these directions are
                                    planned, each its skill arm, its source solo and its base solo.
                                    NULL: both */
  const char *target_arch;       /* the architecture compile-only sessions compile for, such as
                                    "sm_90a" or "sm_100a". NULL: MKB_TARGET_ARCH, then "sm_90a".
                                    Sessions that run kernels compile for each worker's device */
  uint32_t shard_index;          /* plan only shard shard_index (from 0) of shard_count: a */
  uint32_t shard_count;          /* deterministic, balanced share of the trials selected above, in
                                    which every problem and replicate keeps all its arms together
                                    (a skill arm and the solo whose skill it receives are never
                                    apart). The shards of one configuration partition its plan:
                                    each plans its share, none a trial twice. Each shard keeps its
                                    own ledger; mkb_score_ledgers() over all of them scores the
                                    whole run (docs/SCALING.md). A shard may hold no trial.
                                    shard_count 0 or 1: no sharding (shard_index must be 0) */
} mkb_open_options;

/* Fills *options with the defaults (every field zero or NULL) and sets struct_size.
 * struct_size must be the caller's sizeof(mkb_open_options).
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_VERSION.
 *   MKB_ERR_INVALID_ARGUMENT  options is NULL.
 *   MKB_ERR_VERSION           struct_size is smaller than the first version of the struct.
 * This function returns nothing else: not MKB_ERR_NO_MEMORY or MKB_ERR_INTERNAL either. */
MKB_API mkb_status mkb_open_options_init(mkb_open_options *options, size_t struct_size) MKB_NOEXCEPT;

/* Opens a session. options may be NULL for all defaults.
 * On success *session_out is a new session. On failure *session_out is still set, to a session that
 * can only report the error through mkb_session_errmsg() and be closed, unless session_out is NULL
 * (MKB_ERR_INVALID_ARGUMENT) or not even that session could be allocated (MKB_ERR_NO_MEMORY, and
 * *session_out is NULL). Calling mkb_close(*session_out) is right in every case. Every other call on
 * a session that failed to open returns MKB_ERR_STATE once its arguments pass their checks.
 * Opening a ledger resumes it: finished attempts are kept, interrupted ones are planned again, stale
 * ones (recorded under other fingerprints) are kept unless MKB_OPEN_RERUN_STALE, and a torn last
 * record (a crash while appending) is cut off. mkb_plan() says beforehand which is which. A ledger
 * damaged anywhere else is refused with MKB_ERR_LEDGER naming the offset, and left as it is:
 * `mkb ledger repair` copies its intact records to a new file (docs/PROTOCOL.md, The ledger).
 * Every id, glob and family in problems and families must match the suite: one that matches nothing
 * is an error naming it. An empty string or an empty item there is an error (NULL selects all).
 * With families NULL, problems of the family "extra" (not the original benchmark's, docs/PROBLEMS.md)
 * are left out unless an item of problems is exactly their id: a glob does not select them.
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_VERSION, MKB_ERR_CONFIG, MKB_ERR_NOT_FOUND,
 *         MKB_ERR_SPEC, MKB_ERR_WORKER, MKB_ERR_IO, MKB_ERR_LEDGER.
 *   MKB_ERR_INVALID_ARGUMENT  session_out is NULL.
 *   MKB_ERR_VERSION    options->struct_size is below the first version of the struct.
 *   MKB_ERR_CONFIG     the text names the field and what was expected; also an empty problems or
 *                      families, lists that select no problem together, a glob that matches only
 *                      extra problems left out (or a suite of extra problems alone, families
 *                      NULL), a trials glob or directions
 *                      that keep no trial, a gpu_lock_dir (MKB_GPU_LOCK_DIR) that is not a
 *                      writable folder, or a shard_index not below shard_count (or not 0 when
 *                      shard_count is 0 or 1).
 *   MKB_ERR_NOT_FOUND  the suite folder, a DSL, or a problem id, glob or family that matches nothing.
 *   MKB_ERR_SPEC       a problem spec in the suite is malformed (named).
 *   MKB_ERR_WORKER     the mkb-worker executable cannot be found, or (gpus NULL, not compile-only)
 *                      cannot be started or does not answer when asked for the GPUs.
 *   MKB_ERR_IO         the ledger cannot be created, read or written.
 *   MKB_ERR_LEDGER     the ledger is not a ledger, is of another format, is damaged before its end,
 *                      or is in use by another session.
 * Thread rules: none; the new session is independent of every other. */
MKB_API mkb_status mkb_open(const mkb_open_options *options, mkb_session **session_out) MKB_NOEXCEPT;

/* Closes a session: stops its deadline watcher and its workers, and closes the ledger. Unfinished tasks
 * end without a final evaluation (they are planned again when the ledger is resumed); their handles
 * stay valid for mkb_task_release() only. Reports stay valid after the close. NULL is a no-op.
 * No call may use the session during or after mkb_close(), and none may run on its tasks during it. */
MKB_API void mkb_close(mkb_session *session) MKB_NOEXCEPT;

/* The text of the calling thread's last error on this session, "" if none (Conventions). Borrowed
 * from the session: valid until the calling thread's next call on the session, or its close.
 * NULL session: a static text. */
MKB_API const char *mkb_session_errmsg(const mkb_session *session) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Tasks                                                                                          */
/* ---------------------------------------------------------------------------------------------- */

/* A task's wall clock. mkb_submit_attempt(), mkb_task_compile(), mkb_task_set_final() and
 * mkb_task_set_final_submission() called after the task's deadline, before the session's deadline watcher (which looks every 200 ms)
 * ended the attempt, end it first, as mkb_finalize() does, and return MKB_ERR_BUDGET; once it has
 * ended they return MKB_ERR_STATE. When that final evaluation cannot run or its record cannot be
 * written they return what mkb_finalize() would (MKB_ERR_SPEC, MKB_ERR_WORKER, MKB_ERR_IO) and the
 * task stays open. */

/* Hands out up to `capacity` ready tasks. Solo tasks are ready at once; a skill task becomes ready
 * when its source solo ends, unless that solo left an empty skill: then it is recorded as skipped
 * and never handed out. The task's wall clock starts when it is handed out.
 * If none is ready, waits up to wait_ms milliseconds for one (0: do not wait).
 * Returns MKB_OK with *count_out >= 1 tasks written to tasks_out, each owned by the caller and
 * released with mkb_task_release(); MKB_NOT_READY with *count_out = 0 when none became ready in time
 * but some will; MKB_DONE with *count_out = 0 when every task has been handed out.
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE, MKB_ERR_IO.
 *   MKB_ERR_INVALID_ARGUMENT  NULL pointers, capacity 0.
 *   MKB_ERR_STATE             the session failed to open.
 *   MKB_ERR_IO                the ledger could not record a hand-out, or the task's DSL guide could
 *                             not be written (see json below). That trial stays ready; tasks
 *                             taken before it are returned with MKB_OK; the call can be repeated.
 * Thread rules: safe to call from many threads at once; each task is handed out exactly once. */
MKB_API mkb_status mkb_next_task(mkb_session *session, uint32_t wait_ms, mkb_task **tasks_out,
                                 size_t capacity, size_t *count_out) MKB_NOEXCEPT;

/* Task fields. Strings are borrowed from the task and valid until mkb_task_release().
 *   id            "<problem>/<dsl>/<arm>/r<replicate>", unique in the session
 *   problem       problem id;  family: its family;  dsl: the DSL this attempt must use
 *   instruction   everything the agent is told: the problem's reference and invariants, the DSL's
 *                 submission format, the contract, the budget, and what a skill should contain
 *   source_skill  skill arms: the source solo's skill with a header saying it comes from an earlier
 *                 attempt at this problem in a different kernel DSL; solo arms: NULL. A skill arm's
 *                 instruction is its solo's instruction, byte for byte, with this as one more section
 *   json          all of the above and the budget as one JSON object, plus "guide_path": the absolute
 *                 path of the DSL's guide (docs/DSLS.md, Guides: programming model, API with
 *                 signatures, tensor cores, launch plan, pitfalls, tested examples), which the
 *                 instruction also names. The session writes it, read-only, when it hands out its
 *                 first task in that DSL: beside the ledger as "<ledger_path>.guides/<dsl>.md", without
 *                 a ledger in the cache folder as "<cache_dir>/guides/<hash>/<dsl>.md". null for a DSL
 *                 this build has no guide for
 * A NULL task yields NULL (strings), -1 (arm) or 0 (replicate). */
MKB_API const char *mkb_task_id(const mkb_task *task) MKB_NOEXCEPT;
MKB_API const char *mkb_task_problem(const mkb_task *task) MKB_NOEXCEPT;
MKB_API const char *mkb_task_family(const mkb_task *task) MKB_NOEXCEPT;
MKB_API const char *mkb_task_dsl(const mkb_task *task) MKB_NOEXCEPT;
MKB_API int32_t mkb_task_arm(const mkb_task *task) MKB_NOEXCEPT;
MKB_API uint32_t mkb_task_replicate(const mkb_task *task) MKB_NOEXCEPT;
MKB_API const char *mkb_task_instruction(const mkb_task *task) MKB_NOEXCEPT;
MKB_API const char *mkb_task_source_skill(const mkb_task *task) MKB_NOEXCEPT;
MKB_API const char *mkb_task_json(const mkb_task *task) MKB_NOEXCEPT;

/* The text of the calling thread's last error on this task, "" if none (Conventions). Borrowed:
 * valid until the calling thread's next call on the task, or its release. NULL task: a static text. */
MKB_API const char *mkb_task_errmsg(const mkb_task *task) MKB_NOEXCEPT;

/* Submits a kernel for feedback. `source` holds `size` bytes in the task's DSL submission format
 * (docs/SUBMISSION.md); it is copied. Blocks while the kernel is compiled, verified and timed, and
 * while it waits for its GPU behind other evaluations; that wait (the report's "gpu_wait_ms") is not
 * charged: the task's deadline moves out by it.
 * On MKB_OK *report_out is a new report owned by the caller (mkb_report_free()). A submission that
 * never enters evaluation (too large, unparsable plan, infrastructure failure) still returns MKB_OK,
 * with verdict MKB_VERDICT_REFUSED, an explanation, and no submission consumed.
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE, MKB_ERR_BUDGET, MKB_ERR_SPEC, MKB_ERR_WORKER,
 *         MKB_ERR_IO.
 *   MKB_ERR_INVALID_ARGUMENT  task or report_out is NULL, or source is NULL with a size.
 *   MKB_ERR_STATE    the task has ended, or its session is closed.
 *   MKB_ERR_BUDGET   no submission or no time is left: nothing is evaluated; finalize the task.
 *   MKB_ERR_SPEC     the problem's own baseline or anchor cannot be prepared (a malformed suite,
 *                    named); nothing is counted. Also when the deadline had passed (A task's wall clock).
 *   MKB_ERR_WORKER   the deadline had passed and the final evaluation could not run (A task's wall
 *                    clock); or no scratch folder could be made for a Python DSL's frontend.
 *   MKB_ERR_IO       the ledger could not record the submission: it WAS evaluated and counted, and
 *                    its report is lost. Also when the deadline had passed and the attempt's end
 *                    could not be recorded, or a Python DSL's frontend could not be written. */
MKB_API mkb_status mkb_submit_attempt(mkb_task *task, const char *source, size_t size,
                                      mkb_report **report_out) MKB_NOEXCEPT;

/* Checks that a kernel compiles, for free: `size` bytes of `source` (copied) in the task's DSL submission
 * format go through the steps an evaluation takes before it runs anything: the DSL's frontend (Python
 * DSLs in their sandbox), NVRTC for the architecture the task's evaluations compile for, and the launch
 * plan resolved and checked against the compiled code (entries, parameter lists, dynamic shared memory
 * against what the architecture allows a block; static shared memory only a GPU checks). Nothing is run and
 * no GPU is used, in a compile-only session or not: NVRTC runs in a compile worker process beside the
 * GPU workers, not queued behind their evaluations (a compile-only session's one worker does both),
 * so that a hostile kernel cannot crash the caller.
 * It spends no submission, and may be made with none left; it takes the attempt's wall clock, which
 * keeps running as the original's agents' time did while they compiled in their sandbox. Each check
 * is recorded in the ledger (docs/PROTOCOL.md, Compile checks). Blocks while the check runs.
 * On MKB_OK *report_out is a new report owned by the caller: verdict MKB_VERDICT_COMPILED, whose
 * message says "compiles; N launches checked", or what those steps would give a submission, with the
 * compiler's log or the reason: MKB_VERDICT_COMPILE_ERROR, MKB_VERDICT_LAUNCH_ERROR (the plan does not
 * match the code), MKB_VERDICT_REFUSED (empty, over budget_source_bytes, an unparsable plan, an
 * infrastructure failure), MKB_VERDICT_CRASHED (the compile worker died twice). Its counted and
 * submission are 0; submissions_left and seconds_left say what is left.
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE, MKB_ERR_BUDGET, MKB_ERR_SPEC, MKB_ERR_WORKER,
 *         MKB_ERR_IO.
 *   MKB_ERR_INVALID_ARGUMENT  task or report_out is NULL, or source is NULL with a size.
 *   MKB_ERR_STATE    the task has ended, or its session is closed.
 *   MKB_ERR_BUDGET   no time is left: nothing is checked; the attempt has ended as with mkb_finalize().
 *   MKB_ERR_SPEC     the problem's own baseline or anchor cannot be prepared (a malformed suite,
 *                    named). Also when the deadline had passed (A task's wall clock).
 *   MKB_ERR_WORKER   the deadline had passed and the final evaluation could not run (A task's wall
 *                    clock); or no scratch folder could be made for a Python DSL's frontend.
 *   MKB_ERR_IO       the ledger could not record the check: it WAS made, and its report is lost. Also
 *                    when the deadline had passed and the attempt's end could not be recorded, or a
 *                    Python DSL's frontend could not be written.
 * Thread rules: as every call on a task; other tasks' calls run meanwhile. */
MKB_API mkb_status mkb_task_compile(mkb_task *task, const char *source, size_t size,
                                    mkb_report **report_out) MKB_NOEXCEPT;

/* What is left of the task's budget, without submitting: submissions that may still enter
 * evaluation, and wall-clock seconds until the deadline (0 once the attempt has ended; time queued
 * for a GPU moves the deadline out, A task's wall clock). A NULL task yields 0 and NaN. Neither
 * fails or sets an error text. */
MKB_API uint32_t mkb_task_submissions_left(const mkb_task *task) MKB_NOEXCEPT;
MKB_API double mkb_task_seconds_left(const mkb_task *task) MKB_NOEXCEPT;

/* Replaces the task's skill text with `size` bytes of `text` (copied; size 0 clears it). Every arm
 * keeps a skill, as every arm is told to. A solo's text present when it ends is what its skill arm
 * receives, whether or not the solo passed; an empty skill makes that skill arm "skipped", recorded
 * and scored as its base. A skill arm's skill is recorded and never handed on.
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE, MKB_ERR_CONFIG, MKB_ERR_IO.
 *   MKB_ERR_INVALID_ARGUMENT  task is NULL, or text is NULL with a size.
 *   MKB_ERR_STATE    the task has ended (its skill is frozen), or its session is closed.
 *   MKB_ERR_CONFIG   the text is over skill_max_bytes; the previous text is kept.
 *   MKB_ERR_IO       the ledger could not record the text; the task holds it all the same. */
MKB_API mkb_status mkb_submit_skill(mkb_task *task, const char *text, size_t size) MKB_NOEXCEPT;

/* Adds agent-reported usage to the task's record (summed over calls). input_tokens counts every
 * prompt token, those served from the provider's prompt cache included; cached_input_tokens is that
 * cached part, so it may not exceed input_tokens. Values must be finite and non-negative, and the sums
 * must stay below 2^64 tokens and finite; otherwise nothing is added.
 * mkb_task_add_usage(t, i, o, c) is mkb_task_add_usage_v2(t, i, 0, o, c).
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE.
 *   MKB_ERR_INVALID_ARGUMENT  task is NULL, a bad value, cached above input, or a sum that would
 *                             overflow.
 *   MKB_ERR_STATE             the task has ended, or its session is closed. */
MKB_API mkb_status mkb_task_add_usage(mkb_task *task, uint64_t input_tokens, uint64_t output_tokens,
                                      double cost_usd) MKB_NOEXCEPT;
MKB_API mkb_status mkb_task_add_usage_v2(mkb_task *task, uint64_t input_tokens, uint64_t cached_input_tokens,
                                         uint64_t output_tokens, double cost_usd) MKB_NOEXCEPT;

/* Names the kernel the attempt's final evaluation grades, without spending a submission, as the
 * original benchmark grades the kernel an agent leaves behind: `size` bytes of `source` (copied), or
 * the task's submission number `submission` (a report's mkb_report_submission(); it must have entered
 * evaluation). A later call replaces the choice; a later counted submission does not. Without a
 * choice the latest submission that entered evaluation is final. A named source is graded as it is:
 * one that cannot enter evaluation gives the attempt a failed final record, not a free retry.
 * Errors (mkb_task_set_final): MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE, MKB_ERR_BUDGET,
 *         MKB_ERR_CONFIG, MKB_ERR_SPEC, MKB_ERR_WORKER, MKB_ERR_IO.
 * Errors (mkb_task_set_final_submission): MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE, MKB_ERR_BUDGET,
 *         MKB_ERR_NOT_FOUND, MKB_ERR_SPEC, MKB_ERR_WORKER, MKB_ERR_IO.
 *   MKB_ERR_INVALID_ARGUMENT  task is NULL, or source is NULL with a size.
 *   MKB_ERR_STATE      the task has ended, or its session is closed.
 *   MKB_ERR_BUDGET     its wall clock is spent: the attempt has ended as with mkb_finalize().
 *   MKB_ERR_CONFIG     the source is over budget_source_bytes; the previous choice is kept.
 *   MKB_ERR_NOT_FOUND  no such submission, or it did not enter evaluation.
 *   MKB_ERR_SPEC       the deadline had passed and the final evaluation could not prepare the problem.
 *   MKB_ERR_WORKER     the deadline had passed and the final evaluation could not run.
 *   MKB_ERR_IO         the deadline had passed and the attempt's end could not be recorded.
 *   The last three leave the task open (A task's wall clock). */
MKB_API mkb_status mkb_task_set_final(mkb_task *task, const char *source, size_t size) MKB_NOEXCEPT;
MKB_API mkb_status mkb_task_set_final_submission(mkb_task *task, uint32_t submission) MKB_NOEXCEPT;

/* Declares the attempt final: its final kernel (mkb_task_set_final(), else the latest kernel that
 * entered evaluation) is evaluated once more on fresh draws, and that evaluation is the attempt's
 * record. Ends the task (a solo's skill is frozen
 * and its skill arm becomes ready). When the deadline passed first, the library already ended the
 * task the same way; this call then hands out that record. With no kernel ever evaluated the record
 * has verdict MKB_VERDICT_NO_KERNEL.
 * On MKB_OK *report_out (may be NULL if not wanted) is a new report owned by the caller.
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE, MKB_ERR_SPEC, MKB_ERR_WORKER, MKB_ERR_IO.
 *   MKB_ERR_INVALID_ARGUMENT  task is NULL.
 *   MKB_ERR_STATE    the final report was already handed out by an earlier call, or the session is
 *                    closed.
 *   MKB_ERR_SPEC     the final evaluation could not prepare the problem's baseline or anchor (a
 *                    malformed suite).
 *   MKB_ERR_WORKER   the final evaluation could not run (infrastructure).
 *   MKB_ERR_IO       the ledger could not record the attempt's end.
 *   After the last three the task stays open and the call can be repeated. */
MKB_API mkb_status mkb_finalize(mkb_task *task, mkb_report **report_out) MKB_NOEXCEPT;

/* Releases the task handle. An unfinished task is finalized first (as by mkb_finalize()). NULL is a
 * no-op. Borrowed strings of the task become invalid. */
MKB_API void mkb_task_release(mkb_task *task) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Reports                                                                                        */
/* ---------------------------------------------------------------------------------------------- */

/* Report fields. A report is immutable; strings are borrowed from it until mkb_report_free().
 *   verdict            an mkb_verdict value
 *   counted            1 if the submission entered evaluation, and so (in a task) consumed one of the
 *                      budget's submissions, else 0 (always 0 for a compile check, mkb_task_compile())
 *   final              1 for the final evaluation of an attempt, else 0
 *   time_us            median device time of the whole launch plan in microseconds; NaN if untimed
 *   baseline_us        median of the problem's unfused baseline, timed in the same evaluation
 *   speedup            baseline_us / time_us; NaN if untimed
 *   eager_us           eager PyTorch's time, host work included, recorded for the GPU model the
 *                      evaluation ran on in the problem's eager_times.json (docs/PROBLEMS.md, Eager
 *                      times): the original MetaKernelBench's denominator. NaN if untimed or if no
 *                      time is recorded for that GPU (the message then says so)
 *   speedup_vs_eager   eager_us / time_us: the speedup comparable with the original benchmark's,
 *                      shown first in the message; NaN whenever eager_us is
 *   submission         the submission's number in its task, 1-based, refused ones included; 0 for
 *                      a final evaluation, a compile check and outside tasks
 *   submissions_left   submissions left in the task's budget after this one (after a compile check:
 *                      as before it)
 *   seconds_left       wall-clock seconds left in the task's budget
 *   message            feedback for the agent: verdict, first mismatch or error, times and spread
 *   json               every detail (per-draw seeds, spread, clocks, compile log, time queued for
 *                      the GPU, other processes seen on it while timing) as one JSON object
 * A NULL report yields -1 (verdict), 0, NaN or NULL. None of these fails or sets an error text.
 * eager_us and speedup_vs_eager were added in 0.1 without an ABI change (new functions only). */
MKB_API int32_t mkb_report_verdict(const mkb_report *report) MKB_NOEXCEPT;
MKB_API int32_t mkb_report_counted(const mkb_report *report) MKB_NOEXCEPT;
MKB_API int32_t mkb_report_final(const mkb_report *report) MKB_NOEXCEPT;
MKB_API double mkb_report_time_us(const mkb_report *report) MKB_NOEXCEPT;
MKB_API double mkb_report_baseline_us(const mkb_report *report) MKB_NOEXCEPT;
MKB_API double mkb_report_speedup(const mkb_report *report) MKB_NOEXCEPT;
MKB_API double mkb_report_eager_us(const mkb_report *report) MKB_NOEXCEPT;
MKB_API double mkb_report_speedup_vs_eager(const mkb_report *report) MKB_NOEXCEPT;
MKB_API uint32_t mkb_report_submission(const mkb_report *report) MKB_NOEXCEPT;
MKB_API uint32_t mkb_report_submissions_left(const mkb_report *report) MKB_NOEXCEPT;
MKB_API double mkb_report_seconds_left(const mkb_report *report) MKB_NOEXCEPT;
MKB_API const char *mkb_report_message(const mkb_report *report) MKB_NOEXCEPT;
MKB_API const char *mkb_report_json(const mkb_report *report) MKB_NOEXCEPT;

/* Releases a report. NULL is a no-op. */
MKB_API void mkb_report_free(mkb_report *report) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Scores                                                                                         */
/* ---------------------------------------------------------------------------------------------- */

/* mkb_score() formats, and a flag that may be added to either */
#define MKB_SCORE_JSON 0u           /* one JSON object (docs/SCORING.md gives every field) */
#define MKB_SCORE_TABLE 1u          /* a readable table */
#define MKB_SCORE_WITH_STALE 0x100u /* score stale trials too; without it they are left out and only
                                       counted and listed (docs/SCORING.md, Stale trials) */

/* Scores every finished attempt of the session's ledger (and of this session if it has no ledger):
 * for each model and direction, R@t, S, lift by family and source verdict, help and harm rates,
 * paired lift, tiers, coverage, replicate states, the with_skill contrast, usage by arm and bootstrap
 * confidence intervals (docs/SCORING.md). A trial is stale when its record was made under other
 * fingerprints (problem files, DSL frontend and notes, instruction templates, contract settings) than
 * those of the latest session that opened the ledger, or when its skill arm's source is stale.
 * On MKB_OK *text_out is a new NUL-terminated text owned by the caller (mkb_free()).
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE, MKB_ERR_IO, MKB_ERR_LEDGER.
 *   MKB_ERR_INVALID_ARGUMENT  session or text_out is NULL, unknown format.
 *   MKB_ERR_STATE             the session failed to open.
 *   MKB_ERR_IO                the session's ledger file cannot be read (removed since the open).
 *   MKB_ERR_LEDGER            the ledger file is damaged before its end, or is no longer a ledger.
 * Thread rules: safe to call while tasks run; it scores what has finished. */
MKB_API mkb_status mkb_score(mkb_session *session, uint32_t format, char **text_out) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Tools outside the protocol: evaluation                                                         */
/* ---------------------------------------------------------------------------------------------- */

/* Nothing below is part of the agent protocol (Session, Tasks, Reports, Scores above): these are
 * one-shot calls for tools, a framework's menus and tests. A benchmark run must not offer
 * mkb_evaluate() to its agents. Their declarations and ABI are as stable as the rest. */

/* Evaluates one kernel for `problem` in `dsl` exactly as a submission would be, but outside any task:
 * no budget, nothing recorded. For tools and tests; a benchmark run must not offer it to its agents.
 * On MKB_OK *report_out is a new report owned by the caller. A kernel refused, also for a failure of
 * the GPU worker (infrastructure), is MKB_OK too, with a REFUSED report that says why.
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_STATE, MKB_ERR_NOT_FOUND, MKB_ERR_SPEC, MKB_ERR_WORKER,
 *         MKB_ERR_IO.
 *   MKB_ERR_INVALID_ARGUMENT  session, problem, dsl or report_out is NULL, or source is NULL with a size.
 *   MKB_ERR_STATE      the session failed to open.
 *   MKB_ERR_NOT_FOUND  no such problem in the session's suite, or no such DSL.
 *   MKB_ERR_SPEC       the problem's own baseline or anchor cannot be prepared (a malformed suite).
 *   MKB_ERR_WORKER     no scratch folder could be made for a Python DSL's frontend (under TMPDIR).
 *   MKB_ERR_IO         a Python DSL's frontend could not be written to its scratch folder.
 * Thread rules: safe to call concurrently with any session call. */
MKB_API mkb_status mkb_evaluate(mkb_session *session, const char *problem, const char *dsl,
                                const char *source, size_t size, mkb_report **report_out) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Tools outside the protocol: scores of ledger files                                             */
/* ---------------------------------------------------------------------------------------------- */

/* Scores ledger files without opening a session. paths holds `count` file names; staleness is judged
 * per file, against the latest session that opened it.
 * On MKB_OK *text_out is owned by the caller (mkb_free()). On failure, if error_out is not NULL,
 * *error_out receives an owned error text (mkb_free()) naming the file and what is wrong.
 * A torn last record is ignored; a ledger damaged anywhere else is MKB_ERR_LEDGER naming the offset
 * (`mkb score` scores the intact records of such a file, `mkb ledger repair` copies them to a new one).
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_IO, MKB_ERR_LEDGER.
 *   MKB_ERR_INVALID_ARGUMENT  paths or text_out is NULL, count is 0, a path is NULL, unknown format.
 *   MKB_ERR_IO                a file cannot be read (missing, not a regular file).
 *   MKB_ERR_LEDGER            a file is not a ledger, is of another format, or is damaged before its end;
 *                             or the files record one model with two DSL pairs (a direction is a model
 *                             and a pair: score each pair's ledgers apart).
 * Thread rules: none. */
MKB_API mkb_status mkb_score_ledgers(const char *const *paths, size_t count, uint32_t format,
                                     char **text_out, char **error_out) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Tools outside the protocol: plans                                                              */
/* ---------------------------------------------------------------------------------------------- */

/* mkb_plan() formats */
#define MKB_PLAN_JSON 0u  /* one JSON object: counts by state, and every planned trial with its state */
#define MKB_PLAN_TABLE 1u /* a readable list */

/* A dry run: the trials mkb_open(options) would plan, each with its state, without starting
 * anything: no worker, no GPU, no Python; the ledger (if any) is read, never written or locked.
 * States: "done" (finished under the current fingerprints), "skipped" (a skill arm whose source left
 * no skill), "stale" (finished under other fingerprints, or its skill's source is stale: kept, or
 * "rerun" with MKB_OPEN_RERUN_STALE), "interrupted" (started, never finished: run again) and
 * "pending" (never started).
 * On MKB_OK *text_out is owned by the caller (mkb_free()). On failure, if error_out is not NULL,
 * *error_out receives an owned error text (mkb_free()).
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_VERSION, MKB_ERR_CONFIG, MKB_ERR_NOT_FOUND, MKB_ERR_SPEC,
 *         MKB_ERR_IO, MKB_ERR_LEDGER.
 *   MKB_ERR_INVALID_ARGUMENT  text_out is NULL, unknown format.
 *   Others                    as mkb_open() (no worker is started, so no MKB_ERR_WORKER); MKB_ERR_IO
 *                             and MKB_ERR_LEDGER only for an existing ledger file.
 * Thread rules: none. */
MKB_API mkb_status mkb_plan(const mkb_open_options *options, uint32_t format, char **text_out,
                            char **error_out) MKB_NOEXCEPT;

/* ---------------------------------------------------------------------------------------------- */
/* Tools outside the protocol: discovery                                                          */
/* ---------------------------------------------------------------------------------------------- */

/* The suite's problems as one JSON object, for a framework's menus; opens no session and starts
 * nothing. options may be NULL (the built-in suite); only suite_path is used (every field is checked):
 *   {"suite": "built-in" or the folder,
 *    "problems": [{"id": "...", "family": "...", "description": "...",
 *                  "inputs":  [{"name": "x", "dtype": "bf16", "shape": [16, 4096]}, ...],
 *                  "outputs": [...]}, ...]}          (in suite order)
 * On MKB_OK *json_out is owned by the caller (mkb_free()). On failure, if error_out is not NULL,
 * *error_out receives an owned error text (mkb_free()).
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_VERSION, MKB_ERR_CONFIG, MKB_ERR_NOT_FOUND, MKB_ERR_SPEC.
 *   MKB_ERR_INVALID_ARGUMENT  json_out is NULL.
 *   MKB_ERR_VERSION           options->struct_size is below the first version of the struct.
 *   MKB_ERR_CONFIG            a malformed option, whichever field (every field is checked).
 *   MKB_ERR_NOT_FOUND         the suite folder, or a suite without problems.
 *   MKB_ERR_SPEC              a malformed problem (named).
 * Thread rules: none. */
MKB_API mkb_status mkb_list_problems(const mkb_open_options *options, char **json_out,
                                     char **error_out) MKB_NOEXCEPT;

/* The registered DSLs and whether each can be used here, as `mkb doctor` knows it: each Python DSL's
 * toolchain is probed with the interpreter (options->python, MKB_PYTHON, then the build's default),
 * inside the sandbox unless MKB_OPEN_NO_SANDBOX or MKB_NO_SANDBOX=1. options may be NULL; python,
 * flags, dsl_a and dsl_b are read:
 *   {"python": "<interpreter>", "default_pair": ["cute-dsl", "tirx"],
 *    "pair": ["<dsl_a>", "<dsl_b>"]                   (the pair options select; the default if none),
 *    "pair_usable": true,                             (both DSLs of "pair" can run here)
 *    "sandbox": {"usable": true, "confined": true, "detail": "..."},
 *                                                     (usable: Python DSL submissions can run;
 *                                                      confined: inside the sandbox, not opted out)
 *    "dsls": [{"name": "cuda", "display_name": "CUDA C++ (NVRTC)", "usable": true,
 *              "detail": "..."}, ...]}                (registry order; detail: why a DSL is not usable,
 *                                                      or the version it found)
 * Ownership as mkb_list_problems(). Takes a few seconds: it runs the interpreter once per Python DSL.
 * Errors: MKB_ERR_INVALID_ARGUMENT, MKB_ERR_VERSION, MKB_ERR_CONFIG, MKB_ERR_NOT_FOUND.
 *   MKB_ERR_INVALID_ARGUMENT  json_out is NULL.
 *   MKB_ERR_VERSION           options->struct_size is below the first version of the struct.
 *   MKB_ERR_CONFIG            dsl_a without dsl_b, or another malformed option (every field is checked).
 *   MKB_ERR_NOT_FOUND         a DSL of the pair is not registered.
 * Thread rules: none. */
MKB_API mkb_status mkb_list_dsls(const mkb_open_options *options, char **json_out, char **error_out) MKB_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MKB_H */

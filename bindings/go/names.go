package mkb

// #include "mkb.h"
import "C"

// Verdict is the verdict of an evaluation (enum mkb_verdict); it prints by the library's name.
type Verdict int32

// Verdicts (values pinned in mkb.h); a newer library may return others, which print as "unknown".
const (
	VerdictPassed        Verdict = 0  // correct on every draw, and timed
	VerdictRefused       Verdict = 1  // never entered evaluation; not counted against the budget
	VerdictCompileError  Verdict = 2  // the compiler rejected the code
	VerdictLaunchError   Verdict = 3  // the plan does not fit the compiled code or the device
	VerdictWrongAnswer   Verdict = 4  // an output differs from the anchor beyond the allowance
	VerdictOutOfBounds   Verdict = 5  // wrote into a guard region past the end of a buffer
	VerdictInputModified Verdict = 6  // changed an input the problem does not declare writable
	VerdictFault         Verdict = 7  // illegal address, misaligned access, trap
	VerdictTimeout       Verdict = 8  // a launch or the evaluation ran past its deadline
	VerdictOutOfMemory   Verdict = 9  // exhausted device memory
	VerdictCrashed       Verdict = 10 // the GPU worker died while running the submission
	VerdictInconsistent  Verdict = 11 // correct at first, wrong when re-verified during timing
	VerdictCompiled      Verdict = 12 // compiled and checked, not run: a compile check, or a compile-only session
	VerdictNoKernel      Verdict = 13 // final evaluation of an attempt that never had a kernel evaluated
)

// String is the library's name ("wrong_answer"), "unknown" if the library does not know the value.
func (v Verdict) String() string { return C.GoString(C.mkb_verdict_name(C.int32_t(v))) }

// Arm is an arm of the four-arm protocol (enum mkb_arm); it prints by the library's name.
type Arm int32

// Arms (values pinned in mkb.h).
const (
	ArmSoloA    Arm = 0 // the first DSL of the pair, no help
	ArmSoloB    Arm = 1 // the second DSL, no help
	ArmA2BSkill Arm = 2 // the second DSL, with the skill written in ArmSoloA
	ArmB2ASkill Arm = 3 // the first DSL, with the skill written in ArmSoloB
)

// String is the library's name ("solo_a", "a2b_skill"), "unknown" if the library does not know it.
func (a Arm) String() string { return C.GoString(C.mkb_arm_name(C.int32_t(a))) }

// IsSkill says whether the arm starts from another arm's skill (Task.SourceSkill).
func (a Arm) IsSkill() bool { return a == ArmA2BSkill || a == ArmB2ASkill }

package mkb

// The Go bindings over the real libmkb, with the worker TEST DOUBLE standing in for the GPU.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func root() string { p, _ := filepath.Abs("../.."); return p }

// fromBuild is a path into the build under test, which CTest passes (tests/CMakeLists.txt): there is
// no build folder to fall back on, since a build may be anywhere.
func fromBuild(t *testing.T, name string) string {
	value := os.Getenv(name)
	if value == "" {
		t.Fatalf("%s is not set: run these tests through CTest (ctest -R bindings.go), which passes the build's paths", name)
	}
	return value
}

func options(t *testing.T) Options {
	worker := ""
	if os.Getenv("MKB_TEST_REAL_GPU") != "1" {
		worker = fromBuild(t, "MKB_TEST_WORKER_DOUBLE")
	}
	dir := t.TempDir()
	return Options{WorkerPath: worker, DSLA: "cuda", DSLB: "cuda", Problems: "topk_softmax_routing_mixtral_8x7b_bf16", Model: "go",
		CacheDir: filepath.Join(dir, "cache"), LedgerPath: filepath.Join(dir, "run.ledger")}
}

func kernel(t *testing.T, timeUS int) string {
	b, err := os.ReadFile(filepath.Join(root(), "problems/extra/topk_softmax_routing_mixtral_8x7b_bf16/solutions/cuda.cu"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + fmt.Sprintf("\n// mkb-double: time_us=%d baseline_us=100\n", timeUS)
}

func TestTheFourArms(t *testing.T) {
	s, err := Open(options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	played := 0
	for {
		task, err := s.NextTask(200 * time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if task == nil {
			break
		}
		if task.HasSourceSkill != task.Arm.IsSkill() {
			t.Errorf("%s: source skill %v", task.ID, task.HasSourceSkill)
		}
		r, err := task.Submit(kernel(t, 20-3*int(task.Arm)))
		if err != nil || !r.Passed() || r.SubmissionsLeft != 9 {
			t.Fatalf("%s: %v %+v", task.ID, err, r)
		}
		if err := task.SubmitSkill("tie-break on the lower index"); err != nil {
			t.Errorf("%s: every arm keeps a skill: %v", task.ID, err)
		}
		final, err := task.Finalize()
		if err != nil || !final.Final {
			t.Fatalf("finalize: %v", err)
		}
		if _, err := task.Finalize(); !errors.Is(err, ErrState) {
			t.Errorf("a second finalize: %v", err)
		}
		task.Close()
		played++
	}
	if played != 4 {
		t.Errorf("played %d tasks", played)
	}
	table, err := s.Score(ScoreFormat{Table: true})
	if err != nil || !strings.Contains(table, "model go") {
		t.Errorf("score: %v\n%s", err, table)
	}
}

func TestErrorsCarryTheHandleText(t *testing.T) {
	o := options(t)
	o.GPUs = "zero"
	_, err := Open(o)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrConfig) || !strings.Contains(e.Message, "gpus") {
		t.Errorf("got %v", err)
	}
	if !strings.Contains(err.Error(), "MKB_ERR_CONFIG") {
		t.Errorf("message %q", err.Error())
	}
}

func TestCompileChecksSpendNoSubmission(t *testing.T) {
	o := options(t)
	o.LedgerPath = ""
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	task, err := s.NextTask(200 * time.Millisecond)
	if err != nil || task == nil {
		t.Fatal(err)
	}
	defer task.Close()
	if task.SubmissionsLeft() != 10 || task.SecondsLeft() <= 0 {
		t.Fatalf("budget before: %d submissions, %g s", task.SubmissionsLeft(), task.SecondsLeft())
	}
	broken, err := task.Compile(kernel(t, 10) + "\nthis_is_not_cuda;\n")
	if err != nil || broken.Verdict != VerdictCompileError || broken.Counted || !strings.Contains(broken.Message, "this_is_not_cuda") {
		t.Fatalf("%v %+v", err, broken)
	}
	checked, err := task.Compile(kernel(t, 10))
	if err != nil || checked.Verdict != VerdictCompiled || checked.Submission != 0 || checked.SubmissionsLeft != 10 ||
		!strings.Contains(checked.Message, "1 launch checked") {
		t.Fatalf("%v %+v", err, checked)
	}
	if task.SubmissionsLeft() != 10 {
		t.Fatalf("a compile check spent a submission: %d left", task.SubmissionsLeft())
	}
	if r, err := task.Submit(kernel(t, 10)); err != nil || r.SubmissionsLeft != 9 || task.SubmissionsLeft() != 9 {
		t.Fatalf("%v %+v", err, r)
	}
	if _, err := task.Finalize(); err != nil {
		t.Fatal(err)
	}
	if task.SecondsLeft() != 0 {
		t.Errorf("%g s left after the end", task.SecondsLeft())
	}
	if _, err := task.Compile(kernel(t, 10)); !errors.Is(err, ErrState) {
		t.Errorf("a check after the end: %v", err)
	}
}

package mkb

// The Go conventions of the binding: typed constants that print by the library's names, sentinel
// errors for errors.Is, time.Duration for waits, and Go's initialisms in every exported name.

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestVerdictsPrintByName(t *testing.T) {
	names := []string{"passed", "refused", "compile_error", "launch_error", "wrong_answer", "out_of_bounds",
		"input_modified", "fault", "timeout", "out_of_memory", "crashed", "inconsistent", "compiled", "no_kernel"}
	for value, name := range names {
		if got := fmt.Sprint(Verdict(value)); got != name {
			t.Errorf("Verdict(%d) prints %q, want %q", value, got, name)
		}
	}
	if VerdictNoKernel != 13 || VerdictCompiled.String() != "compiled" || fmt.Sprintf("%d", VerdictWrongAnswer) != "4" {
		t.Errorf("%d %v %d", VerdictNoKernel, VerdictCompiled, VerdictWrongAnswer)
	}
	if got := Verdict(99).String(); got != "unknown" {
		t.Errorf("a verdict from a newer library prints %q", got)
	}
}

func TestArmsPrintByName(t *testing.T) {
	for arm, want := range map[Arm]string{ArmSoloA: "solo_a", ArmSoloB: "solo_b", ArmA2BSkill: "a2b_skill",
		ArmB2ASkill: "b2a_skill", Arm(7): "unknown"} {
		if got := fmt.Sprint(arm); got != want {
			t.Errorf("Arm(%d) prints %q, want %q", int32(arm), got, want)
		}
	}
	if ArmSoloB.IsSkill() || !ArmA2BSkill.IsSkill() || !ArmB2ASkill.IsSkill() || Arm(7).IsSkill() {
		t.Error("IsSkill")
	}
}

func TestStatusesAreSentinelErrors(t *testing.T) {
	statuses := []Status{ErrInvalidArgument, ErrConfig, ErrNotFound, ErrState, ErrBudget, ErrIO, ErrLedger,
		ErrWorker, ErrNoMemory, ErrUnsupported, ErrVersion, ErrSpec, ErrInternal}
	names := "INVALID_ARGUMENT CONFIG NOT_FOUND STATE BUDGET IO LEDGER WORKER NO_MEMORY UNSUPPORTED VERSION SPEC INTERNAL"
	for i, name := range strings.Fields(names) {
		if statuses[i] != Status(-1-i) || statuses[i].Error() != "MKB_ERR_"+name {
			t.Errorf("%d: %d %q", i, int32(statuses[i]), statuses[i].Error())
		}
	}
}

func TestErrorsWrapTheirStatus(t *testing.T) {
	o := options(t)
	o.GPUs = "zero"
	_, err := Open(o)
	if !errors.Is(err, ErrConfig) || errors.Is(err, ErrNotFound) {
		t.Fatalf("Open with GPUs %q: %v", o.GPUs, err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Status != ErrConfig || !strings.HasPrefix(err.Error(), "MKB_ERR_CONFIG: ") ||
		!strings.Contains(e.Message, "gpus") {
		t.Errorf("%#v", err)
	}
	if wrapped := fmt.Errorf("starting the run: %w", err); !errors.Is(wrapped, ErrConfig) {
		t.Errorf("wrapped once more: %v", wrapped)
	}

	if _, err := Plan(Options{SuitePath: filepath.Join(t.TempDir(), "no-suite")}, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing suite: %v", err)
	}
	if _, err := ScoreLedgers(nil, ScoreFormat{}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("no ledgers: %v", err)
	}
	s, err := Open(options(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, _, err := s.NextTasks(0, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("capacity 0: %v", err)
	}
}

func TestWaitsAreDurations(t *testing.T) {
	for wait, want := range map[time.Duration]uint32{0: 0, -time.Second: 0, time.Microsecond: 1,
		1500 * time.Microsecond: 2, 2 * time.Second: 2000, math.MaxInt64: math.MaxUint32} {
		if got := uint32(milliseconds(wait)); got != want {
			t.Errorf("%v: %d ms, want %d", wait, got, want)
		}
	}
}

// Words of an exported name that Go spells as initialisms (DSL, GPUs, TimeUS, ID, JSON, ...).
var notInitialisms = regexp.MustCompile(`^(Dsl|Dsls|Gpu|Gpus|Json|Id|Ids|Url|Us|Ms|Abi|Io|Usd|Cpu|Api|Http|Llm)$`)

// declaredNames are the names a file declares: types, their fields, functions, methods, constants
// and variables.
func declaredNames(file *ast.File) []string {
	var names []string
	for _, decl := range file.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			names = append(names, d.Name.Name)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							for _, n := range field.Names {
								names = append(names, n.Name)
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

func TestExportedNamesUseGoInitialisms(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	words := regexp.MustCompile(`[A-Z]+[a-z0-9]*|[a-z0-9]+`) // "TimeUS": Time, US; "GPUs": GPUs
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, declared := range declaredNames(file) {
			if !ast.IsExported(declared) {
				continue
			}
			checked++
			for _, word := range words.FindAllString(declared, -1) {
				if notInitialisms.MatchString(word) {
					t.Errorf("%s: %s spells %q; Go writes it in capitals", name, declared, word)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked only %d exported names", checked)
	}
}

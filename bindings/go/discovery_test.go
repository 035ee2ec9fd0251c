package mkb

// Discovery through the Go binding: the suite's problems and the registered DSLs, typed.

import (
	"errors"
	"strings"
	"testing"
)

func TestTheBuiltInSuiteListsItsProblems(t *testing.T) {
	list, err := ListProblems(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if list.Suite != "built-in" {
		t.Errorf("suite %q", list.Suite)
	}
	seen := map[string]bool{}
	var routingProblem *Problem
	for i, p := range list.Problems {
		if seen[p.ID] {
			t.Errorf("%s listed twice", p.ID)
		}
		seen[p.ID] = true
		if p.ID == routing {
			routingProblem = &list.Problems[i]
		}
	}
	if routingProblem == nil {
		t.Fatalf("%s not among %d problems", routing, len(list.Problems))
	}
	p := routingProblem
	if p.Family != "extra" || p.Description == "" || len(p.Inputs) == 0 || len(p.Outputs) == 0 {
		t.Errorf("%+v", p)
	}
	for _, tensor := range append(append([]Tensor{}, p.Inputs...), p.Outputs...) {
		if tensor.Name == "" || tensor.DType == "" || len(tensor.Shape) == 0 {
			t.Errorf("%+v", tensor)
		}
		for _, d := range tensor.Shape {
			if d <= 0 {
				t.Errorf("%+v", tensor)
			}
		}
	}
}

func TestAMissingSuiteIsNotFound(t *testing.T) {
	_, err := ListProblems(Options{SuitePath: "/nonexistent/suite"})
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "/nonexistent/suite") {
		t.Errorf("%v", err)
	}
}

func TestDSLsSayWhetherEachIsUsable(t *testing.T) {
	list, err := ListDSLs(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if list.DefaultPair != [2]string{"cute-dsl", "tirx"} || list.Python == "" {
		t.Errorf("%+v", list)
	}
	byName := map[string]DSL{}
	for _, d := range list.DSLs {
		byName[d.Name] = d
		if d.DisplayName == "" || (!d.Usable && d.Detail == "") {
			t.Errorf("%+v", d)
		}
	}
	for _, name := range []string{"cuda", "cute-dsl", "tirx"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("%s not listed: %+v", name, list.DSLs)
		}
	}
	if list.Sandbox.Detail == "" || list.Pair != list.DefaultPair {
		t.Errorf("sandbox %+v, pair %v", list.Sandbox, list.Pair)
	}
	if list.PairUsable != (byName["cute-dsl"].Usable && byName["tirx"].Usable) {
		t.Errorf("pair usable %v: %+v", list.PairUsable, list.DSLs)
	}

	// An interpreter that does not exist leaves the Python DSLs of the default pair unusable.
	without, err := ListDSLs(Options{Python: "/nonexistent/python3"})
	if err != nil {
		t.Fatal(err)
	}
	if without.Python != "/nonexistent/python3" {
		t.Errorf("python %q", without.Python)
	}
	for _, d := range without.DSLs {
		if (d.Name == "cute-dsl" || d.Name == "tirx") && (d.Usable || d.Detail == "") {
			t.Errorf("%+v", d)
		}
	}
	if without.PairUsable {
		t.Error("the default pair is usable without an interpreter")
	}
}

func TestTheSelectedPairIsChecked(t *testing.T) {
	list, err := ListDSLs(Options{DSLA: "cuda", DSLB: "cuda"})
	if err != nil || list.Pair != [2]string{"cuda", "cuda"} {
		t.Fatalf("%v %+v", err, list)
	}
	if _, err := ListDSLs(Options{DSLA: "cuda", DSLB: "cobol"}); !errors.Is(err, ErrNotFound) ||
		!strings.Contains(err.Error(), "cobol") {
		t.Errorf("an unregistered DSL: %v", err)
	}
	if _, err := ListDSLs(Options{DSLA: "cuda"}); !errors.Is(err, ErrConfig) {
		t.Errorf("DSLA without DSLB: %v", err)
	}
}

package mkb

// #include "mkb.h"
import "C"

import (
	"encoding/json"
	"fmt"
)

// Tensor is an input or output of a problem.
type Tensor struct {
	Name  string  `json:"name"`
	DType string  `json:"dtype"` // "bf16", "fp32", ...
	Shape []int64 `json:"shape"`
}

// Problem is one problem of a suite.
type Problem struct {
	ID          string   `json:"id"`
	Family      string   `json:"family"`
	Description string   `json:"description"`
	Inputs      []Tensor `json:"inputs"`
	Outputs     []Tensor `json:"outputs"`
}

// ProblemList is the problems of a suite; Suite is its folder, or "built-in".
type ProblemList struct {
	Suite    string    `json:"suite"`
	Problems []Problem `json:"problems"`
}

// DSL is a registered DSL as `mkb doctor` sees it; Name is what sessions take ("cuda", "cute-dsl").
// Detail says why it is not usable here, or the version it found.
type DSL struct {
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Usable      bool   `json:"usable"`
	Detail      string `json:"detail"`
}

// Sandbox is the state of the Python DSL frontends' sandbox: Usable when Python DSL submissions can
// run, Confined when they run inside it; Detail says what confines them or why they cannot run.
type Sandbox struct {
	Usable   bool   `json:"usable"`
	Confined bool   `json:"confined"`
	Detail   string `json:"detail"`
}

// DSLList is the registered DSLs and what they need: the Python interpreter the Python DSL
// frontends would run, the pair a session takes when DSLA and DSLB are left empty, the pair the
// options select and whether both of its DSLs can run here, and the sandbox.
type DSLList struct {
	Python      string    `json:"python"`
	DefaultPair [2]string `json:"default_pair"`
	Pair        [2]string `json:"pair"`
	PairUsable  bool      `json:"pair_usable"`
	Sandbox     Sandbox   `json:"sandbox"`
	DSLs        []DSL     `json:"dsls"`
}

// discover decodes the JSON text a discovery call hands back into into.
func discover(call string, status C.mkb_status, out, errText *C.char, into any) error {
	text, err := ownedResult(status, out, errText)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(text), into); err != nil {
		return &Error{ErrInternal, fmt.Sprintf("%s: the library's JSON: %v", call, err)}
	}
	return nil
}

// ListProblems lists the suite's problems (o.SuitePath, else the built-in suite; no other option is read).
func ListProblems(o Options) (*ProblemList, error) {
	var out, errText *C.char
	var status C.mkb_status
	o.withRaw(func(raw *C.mkb_open_options) { status = C.mkb_list_problems(raw, &out, &errText) })
	list := &ProblemList{}
	if err := discover("ListProblems", status, out, errText, list); err != nil {
		return nil, err
	}
	return list, nil
}

// ListDSLs lists the registered DSLs and whether each can be used here, as `mkb doctor` knows it
// (o.Python, o.NoSandbox, o.DSLA and o.DSLB are read). It takes a few seconds: it runs the interpreter
// once per Python DSL.
func ListDSLs(o Options) (*DSLList, error) {
	var out, errText *C.char
	var status C.mkb_status
	o.withRaw(func(raw *C.mkb_open_options) { status = C.mkb_list_dsls(raw, &out, &errText) })
	list := &DSLList{}
	if err := discover("ListDSLs", status, out, errText, list); err != nil {
		return nil, err
	}
	return list, nil
}

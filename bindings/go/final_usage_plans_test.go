package mkb

// The calls of issue 15 and those the first version of these bindings lacked, against the worker
// TEST DOUBLE: usage with cached tokens, naming the final kernel, submission numbers, evaluation
// outside tasks, dry-run plans, stale trials in scores, and every function of the header bound.

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

const routing = "topk_softmax_routing_mixtral_8x7b_bf16"

func decode(t *testing.T, text string) map[string]any {
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	return v
}

// finishedRecords are the TrialFinished bodies of a ledger, as `mkb ledger dump` prints them.
func finishedRecords(t *testing.T, ledger string) []map[string]any {
	out, err := exec.Command(fromBuild(t, "MKB_TEST_CLI"), "ledger", "dump", ledger).Output()
	if err != nil {
		t.Fatal(err)
	}
	var bodies []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		record := decode(t, line)
		if record["body_type"] == "TrialFinished" {
			bodies = append(bodies, record["body"].(map[string]any))
		}
	}
	return bodies
}

func playAll(t *testing.T, s *Session) int {
	played := 0
	for {
		task, err := s.NextTask(200 * time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if task == nil {
			return played
		}
		if _, err := task.Submit(kernel(t, 10)); err != nil {
			t.Fatal(err)
		}
		if err := task.SubmitSkill("notes"); err != nil {
			t.Fatal(err)
		}
		if _, err := task.Finalize(); err != nil {
			t.Fatal(err)
		}
		task.Close()
		played++
	}
}

// bindingSource is the text of every Go file of the binding but its tests.
func bindingSource(t *testing.T) string {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(text)
	}
	return all.String()
}

func TestEveryFunctionOfTheHeaderIsBound(t *testing.T) {
	header, err := os.ReadFile(filepath.Join(root(), "include/mkb.h"))
	if err != nil {
		t.Fatal(err)
	}
	source := bindingSource(t)
	functions := regexp.MustCompile(`(?m)^MKB_API [^(]*?\b(mkb_\w+)\(`).FindAllStringSubmatch(string(header), -1)
	if len(functions) < 40 {
		t.Fatalf("found %d functions in mkb.h", len(functions))
	}
	for _, f := range functions {
		if !strings.Contains(source, "C."+f[1]+"(") {
			t.Errorf("%s is not called by the Go binding", f[1])
		}
	}
}

func TestUsageCountsCachedTokens(t *testing.T) {
	o := options(t)
	o.Trials = routing + "/cuda/solo_a/r0"
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	task, err := s.NextTask(0)
	if err != nil || task.Arm != ArmSoloA || !strings.Contains(task.JSON, routing) {
		t.Fatalf("%v %+v", err, task)
	}
	for _, err := range []error{task.AddUsageV2(1000, 600, 100, 0.25), task.AddUsageV2(500, 500, 50, 0.25),
		task.AddUsage(200, 10, 0)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	err = task.AddUsageV2(60, 61, 0, 0)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "cached_input_tokens (61)") {
		t.Errorf("cached above input: %v", err)
	}
	task.Close()
	s.Close()
	records := finishedRecords(t, o.LedgerPath)
	if len(records) != 1 {
		t.Fatalf("%d records", len(records))
	}
	r := records[0]
	if r["input_tokens"] != 1700.0 || r["cached_input_tokens"] != 1100.0 || r["output_tokens"] != 160.0 {
		t.Errorf("usage recorded: %v %v %v", r["input_tokens"], r["cached_input_tokens"], r["output_tokens"])
	}
}

func TestTheFinalKernelIsTheOneNamed(t *testing.T) {
	o := options(t)
	o.Problems = routing
	o.BudgetSourceBytes = uint32(len(kernel(t, 10)) + 10)
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	named, _ := s.NextTask(0)
	for i, source := range []string{kernel(t, 10), strings.Repeat("x", 20000), kernel(t, 30)} {
		r, err := named.Submit(source)
		if err != nil || r.Submission != uint32(i+1) {
			t.Fatalf("submission %d: %v %+v", i+1, err, r)
		}
	}
	if err := named.SetFinalSubmission(2); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "did not enter evaluation") {
		t.Errorf("a refused submission named final: %v", err)
	}
	if err := named.SetFinalSubmission(9); !errors.Is(err, ErrNotFound) {
		t.Errorf("no such submission: %v", err)
	}
	if err := named.SetFinalSubmission(1); err != nil {
		t.Fatal(err)
	}
	if r, err := named.Finalize(); err != nil || !r.Final || r.TimeUS != 10 || r.Submission != 0 {
		t.Errorf("final of submission 1: %v %+v", err, r)
	}
	if err := named.SetFinalSubmission(1); !errors.Is(err, ErrState) {
		t.Errorf("after the end: %v", err)
	}
	named.Close()

	written, _ := s.NextTask(0)
	if _, err := written.Submit(kernel(t, 20)); err != nil {
		t.Fatal(err)
	}
	if err := written.SetFinal(strings.Repeat("y", 20000)); !errors.Is(err, ErrConfig) {
		t.Errorf("an oversized final kernel: %v", err)
	}
	if err := written.SetFinal(kernel(t, 7)); err != nil {
		t.Fatal(err)
	}
	if r, err := written.Finalize(); err != nil || r.TimeUS != 7 {
		t.Errorf("final of a named source: %v %+v", err, r)
	}
	written.Close()
}

func TestEvaluateOutsideTasks(t *testing.T) {
	o := options(t)
	o.LedgerPath = ""
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Evaluate(routing, "cuda", kernel(t, 7))
	if err != nil || !r.Passed() || r.TimeUS != 7 || r.Submission != 0 {
		t.Errorf("%v %+v", err, r)
	}
	if _, err := s.Evaluate("no_such_problem", "cuda", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown problem: %v", err)
	}
}

func TestPlansAreDryRunsWithStates(t *testing.T) {
	o := options(t)
	o.Trials = routing + "/cuda/solo_?/r0"
	text, err := Plan(o, false)
	if err != nil {
		t.Fatal(err)
	}
	planned := decode(t, text)
	if planned["trials_planned"] != 2.0 || planned["counts"].(map[string]any)["pending"] != 2.0 {
		t.Errorf("plan: %s", text)
	}
	if _, err := os.Stat(o.LedgerPath); !os.IsNotExist(err) {
		t.Errorf("a dry run touched the ledger: %v", err)
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	if n := playAll(t, s); n != 2 {
		t.Errorf("played %d", n)
	}
	s.Close()
	o.Trials = ""
	table, err := Plan(o, true)
	if err != nil || !strings.Contains(table, "2 done") || !strings.Contains(table, "pending      "+routing+"/cuda/a2b_skill/r0") {
		t.Errorf("%v\n%s", err, table)
	}
	o.Directions = "a_to_c"
	if _, err := Plan(o, false); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "directions") {
		t.Errorf("a bad direction: %v", err)
	}
}

func TestAShardPlansItsShareAndAnIndexPastTheCountIsRefused(t *testing.T) {
	o := options(t)
	o.ShardIndex, o.ShardCount = 1, 2
	text, err := Plan(o, false)
	if err != nil || !strings.Contains(text, `"shard":{"index":1,"count":2}`) {
		t.Errorf("%v\n%s", err, text)
	}
	o.ShardIndex = 2
	if _, err := Plan(o, false); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "shard_index") {
		t.Errorf("a shard past the count: %v", err)
	}
}

func TestStaleTrialsAreScoredOnlyWhenAsked(t *testing.T) {
	o := options(t)
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	if n := playAll(t, s); n != 4 {
		t.Fatalf("played %d", n)
	}
	s.Close()
	pairs := func(text string, err error) any {
		if err != nil {
			t.Fatal(err)
		}
		directions := decode(t, text)["directions"].([]any)
		if len(directions) == 0 {
			return nil
		}
		return directions[0].(map[string]any)["pairs"]
	}
	// Another budget is another contract: the four trials are stale now.
	o.BudgetSubmissions = 5
	if text, err := Plan(o, false); err != nil || decode(t, text)["counts"].(map[string]any)["stale"] != 4.0 {
		t.Errorf("%v %s", err, text)
	}
	s, err = Open(o)
	if err != nil {
		t.Fatal(err)
	}
	if task, err := s.NextTask(0); task != nil || err != nil {
		t.Errorf("a stale trial was handed out again: %v", err)
	}
	if got := pairs(s.Score(ScoreFormat{})); got != 0.0 {
		t.Errorf("stale trials scored: %v pairs", got)
	}
	if got := pairs(s.Score(ScoreFormat{WithStale: true})); got != 1.0 {
		t.Errorf("with stale: %v pairs", got)
	}
	s.Close()
	if got := pairs(ScoreLedgers([]string{o.LedgerPath}, ScoreFormat{})); got != 0.0 {
		t.Errorf("ledger, stale left out: %v pairs", got)
	}
	if got := pairs(ScoreLedgers([]string{o.LedgerPath}, ScoreFormat{WithStale: true})); got != 1.0 {
		t.Errorf("ledger with stale: %v pairs", got)
	}
	if table, err := ScoreLedgers([]string{o.LedgerPath}, ScoreFormat{Table: true, WithStale: true}); err != nil ||
		!strings.Contains(table, "model go") {
		t.Errorf("%v\n%s", err, table)
	}
	_, err = ScoreLedgers([]string{"/nonexistent/ledger"}, ScoreFormat{})
	if !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), "/nonexistent/ledger") {
		t.Errorf("a missing ledger: %v", err)
	}
}

func TestLaterOptionFieldsReachTheLibrary(t *testing.T) {
	// Each error names a value only the field at its C offset could have carried.
	o := options(t)
	o.Trials = "nothing/*"
	if _, err := Open(o); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), `trials: "nothing/*" matches no trial`) {
		t.Errorf("trials: %v", err)
	}
	o = options(t)
	o.Directions = "sideways"
	if _, err := Open(o); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), `got "sideways"`) {
		t.Errorf("directions: %v", err)
	}
}

func TestNamesAndVersions(t *testing.T) {
	if ABIVersion() != 1 || VersionNumber() == 0 || !strings.HasPrefix(Version(), "0.") {
		t.Errorf("%d %d %s", ABIVersion(), VersionNumber(), Version())
	}
	if Verdict(4).String() != "wrong_answer" || ArmB2ASkill.String() != "b2a_skill" {
		t.Errorf("%v %v", Verdict(4), ArmB2ASkill)
	}
}

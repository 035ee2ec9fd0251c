// A minimal agent: takes the first solo attempt of one problem, submits the suite's stored solution,
// writes a skill, ends it; then takes the skill arm that received that skill and does the same.
//
// usage: minimal_agent [PROBLEM_ID [WORKER]]   (run from the repository root)
package main

import (
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"libmkb.dev/mkb"
)

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

func main() {
	problem, worker := "topk_softmax_routing_mixtral_8x7b_bf16", ""
	if len(os.Args) > 1 {
		problem = os.Args[1]
	}
	if len(os.Args) > 2 {
		worker = os.Args[2]
	}
	s, err := mkb.Open(mkb.Options{Problems: problem, DSLA: "cuda", DSLB: "cuda", Model: "go-minimal", WorkerPath: worker})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for done := false; !done; {
		task, err := s.NextTask(time.Second)
		if err != nil {
			log.Fatal(err)
		}
		if task == nil {
			break
		}
		if task.Arm == mkb.ArmSoloB || task.Arm == mkb.ArmB2ASkill {
			task.Close() // this agent plays direction A to B
			continue
		}
		source, err := os.ReadFile(fmt.Sprintf("problems/%s/%s/solutions/cuda.cu", task.Family, task.Problem))
		if err != nil {
			log.Fatal(err)
		}
		report, err := task.Submit(string(source))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %s\n", task.ID, firstLine(report.Message))
		if task.Arm == mkb.ArmSoloA {
			if err := task.SubmitSkill("One thread per token; one 16-byte load; ties to the lower index."); err != nil {
				log.Fatal(err)
			}
		} else {
			lines := strings.Split(strings.TrimSpace(task.SourceSkill), "\n")
			fmt.Printf("  it was given: %s\n", lines[len(lines)-1])
			done = true
		}
		record, err := task.Finalize()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("  final: %s\n", firstLine(record.Message))
		task.Close()
	}
	table, err := s.Score(mkb.ScoreFormat{Table: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(table)
}

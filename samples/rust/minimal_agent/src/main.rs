//! A minimal agent: takes the first solo attempt of one problem, submits the suite's stored
//! solution, writes a skill, ends it; then takes the skill arm that received that skill and does the
//! same with it. Prints both reports and the scores.
//!
//! usage: minimal_agent PROBLEM_ID [WORKER]   (run from the repository root)
use std::env;
use std::path::PathBuf;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = env::args().collect();
    let problem = args.get(1).cloned().unwrap_or_else(|| "topk_softmax_routing_mixtral_8x7b_bf16".into());
    let options = mkb::SessionOptions {
        problems: Some(problem.clone()),
        dsl_a: Some("cuda".into()),
        dsl_b: Some("cuda".into()),
        model: Some("rust-minimal".into()),
        worker_path: args.get(2).map(PathBuf::from),
        ..Default::default()
    };
    let session = mkb::Session::open(&options)?;
    let mut skill_arm_done = false;
    while !skill_arm_done {
        let task = match session.next_task(Duration::from_secs(1))? {
            Some(task) => task,
            None => break,
        };
        if matches!(task.arm, mkb::Arm::SoloB | mkb::Arm::B2aSkill) {
            continue; // released (and ended without a kernel) on drop: this agent plays direction A to B
        }
        let folder = format!("problems/{}/{}/solutions/cuda.cu", task.family, task.problem);
        let report = task.submit(&std::fs::read_to_string(&folder)?)?;
        println!("{}: {}", task.id, report.message.lines().next().unwrap_or(""));
        if task.arm == mkb::Arm::SoloA {
            task.submit_skill("One thread per token; one 16-byte load; ties to the lower index.")?;
        } else {
            println!("  it was given: {}", task.source_skill.as_deref().unwrap_or("").lines().last().unwrap_or(""));
            skill_arm_done = true;
        }
        let record = task.finalize()?;
        println!("  final: {}", record.message.lines().next().unwrap_or(""));
    }
    println!("{}", session.score_table()?);
    Ok(())
}

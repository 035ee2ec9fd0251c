// The calls of issue 15 through the safe bindings, against the worker TEST DOUBLE: usage with cached
// tokens, naming the final kernel, submission numbers, dry-run plans, stale trials in scores, and the
// later fields of mkb_open_options reaching the library.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const ROUTING: &str = "topk_softmax_routing_mixtral_8x7b_bf16";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mkb-rust-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// A path into the build under test, which CTest passes (tests/CMakeLists.txt): there is no build
// folder to fall back on, since a build may be anywhere.
fn from_build(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        panic!("{} is not set: run these tests through CTest (ctest -R bindings.rust), which passes the build's paths", name)
    })
}

fn options(dir: &Path) -> mkb::SessionOptions {
    let real_gpu = std::env::var("MKB_TEST_REAL_GPU").as_deref() == Ok("1");
    mkb::SessionOptions {
        worker_path: if real_gpu { None } else { Some(from_build("MKB_TEST_WORKER_DOUBLE")) },
        dsl_a: Some("cuda".into()),
        dsl_b: Some("cuda".into()),
        problems: Some(ROUTING.into()),
        model: Some("rust".into()),
        cache_dir: Some(dir.join("cache")),
        ledger_path: Some(dir.join("run.ledger")),
        ..Default::default()
    }
}

fn kernel(time_us: u32) -> String {
    let path = root().join(format!("problems/extra/{}/solutions/cuda.cu", ROUTING));
    std::fs::read_to_string(path).unwrap() + &format!("\n// mkb-double: time_us={} baseline_us=100\n", time_us)
}

// The TrialFinished records of a ledger, one JSON text each, as `mkb ledger dump` prints them.
fn finished_records(dir: &Path) -> Vec<String> {
    let out = Command::new(from_build("MKB_TEST_CLI")).args(["ledger", "dump"]).arg(dir.join("run.ledger")).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().lines().filter(|l| l.contains("\"TrialFinished\"")).map(String::from).collect()
}

fn play_all(session: &mkb::Session) -> usize {
    let mut played = 0;
    while let Some(task) = session.next_task(Duration::from_millis(200)).unwrap() {
        task.submit(&kernel(10)).unwrap();
        task.submit_skill("notes").unwrap();
        task.finalize().unwrap();
        played += 1;
    }
    played
}

#[test]
fn usage_counts_cached_tokens() {
    let dir = temp_dir("usage");
    let mut o = options(&dir);
    o.trials = Some(format!("{}/cuda/solo_a/r0", ROUTING));
    let session = mkb::Session::open(&o).unwrap();
    let task = session.next_task(Duration::ZERO).unwrap().unwrap();
    assert_eq!(task.arm, mkb::Arm::SoloA);
    assert_eq!(task.arm.to_string(), "solo_a");
    assert!(task.json.contains(ROUTING), "{}", task.json);
    task.add_usage_v2(1000, 600, 100, 0.25).unwrap();
    task.add_usage_v2(500, 500, 50, 0.25).unwrap();
    task.add_usage(200, 10, 0.0).unwrap();
    let error = task.add_usage_v2(60, 61, 0, 0.0).unwrap_err();
    assert_eq!(error.kind(), mkb::ErrorKind::InvalidArgument);
    assert!(error.message().contains("cached_input_tokens (61)"), "{}", error);
    task.finalize().unwrap();
    drop(task);
    drop(session);
    let records = finished_records(&dir);
    assert_eq!(records.len(), 1);
    for figure in ["\"input_tokens\": 1700", "\"cached_input_tokens\": 1100", "\"output_tokens\": 160"] {
        assert!(records[0].contains(figure), "{} in {}", figure, records[0]);
    }
}

#[test]
fn the_final_kernel_is_the_one_named() {
    let dir = temp_dir("final");
    let mut o = options(&dir);
    o.budget_source_bytes = Some(kernel(10).len() as u32 + 10);
    let session = mkb::Session::open(&o).unwrap();
    let named = session.next_task(Duration::ZERO).unwrap().unwrap();
    let numbers: Vec<u32> = [kernel(10), "x".repeat(20000), kernel(30)].iter().map(|k| named.submit(k).unwrap().submission).collect();
    assert_eq!(numbers, [1, 2, 3]);
    let refused = named.set_final_submission(2).unwrap_err();
    assert_eq!(refused.kind(), mkb::ErrorKind::NotFound);
    assert!(refused.message().contains("did not enter evaluation"), "{}", refused);
    assert_eq!(named.set_final_submission(9).unwrap_err().kind(), mkb::ErrorKind::NotFound);
    named.set_final_submission(1).unwrap();
    let record = named.finalize().unwrap();
    assert!(record.is_final);
    assert_eq!((record.time_us, record.submission), (10.0, 0));
    assert_eq!(named.set_final_submission(1).unwrap_err().kind(), mkb::ErrorKind::State);

    let written = session.next_task(Duration::ZERO).unwrap().unwrap();
    written.submit(&kernel(20)).unwrap();
    assert_eq!(written.set_final(&"y".repeat(20000)).unwrap_err().kind(), mkb::ErrorKind::Config);
    written.set_final(&kernel(7)).unwrap();
    assert_eq!(written.finalize().unwrap().time_us, 7.0);
}

#[test]
fn plans_are_dry_runs_with_states() {
    let dir = temp_dir("plan");
    let mut o = options(&dir);
    o.trials = Some(format!("{}/cuda/solo_?/r0", ROUTING));
    let planned = mkb::plan(&o, false).unwrap();
    assert!(planned.contains("\"trials_planned\":2,") && planned.contains("\"counts\":{\"pending\":2}"), "{}", planned);
    assert!(planned.contains(&format!("\"id\":\"{}/cuda/solo_b/r0\"", ROUTING)), "{}", planned);
    assert!(!dir.join("run.ledger").exists());
    assert_eq!(play_all(&mkb::Session::open(&o).unwrap()), 2);
    let all = mkb::plan(&options(&dir), true).unwrap();
    assert!(all.contains("2 done") && all.contains(&format!("pending      {}/cuda/a2b_skill/r0", ROUTING)), "{}", all);
    o.directions = Some("a_to_c".into());
    let error = mkb::plan(&o, false).unwrap_err();
    assert_eq!(error.kind(), mkb::ErrorKind::Config);
    assert!(error.message().contains("directions"), "{}", error);
}

#[test]
fn a_shard_plans_its_share_and_an_index_past_the_count_is_refused() {
    let dir = temp_dir("shard");
    let mut o = options(&dir);
    o.shard = Some((0, 1));
    assert!(mkb::plan(&o, false).unwrap().contains("\"trials_planned\":4,"), "one shard of one is the whole plan");
    o.shard = Some((1, 2));
    let planned = mkb::plan(&o, false).unwrap();
    assert!(planned.contains("\"shard\":{\"index\":1,\"count\":2}"), "{}", planned);
    assert!(planned.contains("\"trials_planned\":0,"), "one problem and replicate: one shard has it all: {}", planned);
    o.shard = Some((2, 2));
    assert_eq!(mkb::plan(&o, false).unwrap_err().kind(), mkb::ErrorKind::InvalidArgument);
}

#[test]
fn stale_trials_are_scored_only_when_asked() {
    let dir = temp_dir("stale");
    assert_eq!(play_all(&mkb::Session::open(&options(&dir)).unwrap()), 4);
    // Another budget is another contract: those four trials are stale now.
    let mut changed = options(&dir);
    changed.budget_submissions = Some(5);
    assert!(mkb::plan(&changed, false).unwrap().contains("\"counts\":{\"stale\":4}"));
    let session = mkb::Session::open(&changed).unwrap();
    assert!(session.next_task(Duration::ZERO).unwrap().is_none()); // kept, not re-run
    let with_stale = mkb::ScoreFormat { with_stale: true, ..Default::default() };
    let left_out = session.score_json().unwrap();
    assert!(left_out.contains("\"pairs\":0") && !left_out.contains("\"pairs\":1"), "{}", left_out);
    assert!(left_out.contains("\"stale\":{\"count\":4"), "{}", left_out);
    assert!(session.score(with_stale).unwrap().contains("\"pairs\":1"));
    drop(session);
    let ledger = dir.join("run.ledger");
    let ledger_left_out = mkb::score_ledgers([&ledger], mkb::ScoreFormat::default()).unwrap();
    assert!(ledger_left_out.contains("\"pairs\":0") && !ledger_left_out.contains("\"pairs\":1"));
    assert!(mkb::score_ledgers([&ledger], with_stale).unwrap().contains("\"pairs\":1"));
}

#[test]
fn later_option_fields_reach_the_library() {
    // Each error names a value only the field at its C offset could have carried.
    let dir = temp_dir("fields");
    let mut o = options(&dir);
    o.trials = Some("nothing/*".into());
    let error = mkb::Session::open(&o).err().unwrap();
    assert_eq!(error.kind(), mkb::ErrorKind::Config);
    assert!(error.message().contains("trials: \"nothing/*\" matches no trial"), "{}", error);
    let mut o = options(&dir);
    o.directions = Some("sideways".into());
    assert!(mkb::Session::open(&o).err().unwrap().message().contains("got \"sideways\""));
}

#[test]
fn names_and_versions() {
    assert_eq!(mkb::abi_version(), mkb_sys::MKB_ABI_VERSION);
    assert_eq!(mkb::version_number() / 10000, mkb::version().split('.').next().unwrap().parse::<u32>().unwrap());
    assert_eq!(mkb::Verdict::from(4).to_string(), "wrong_answer");
    assert_eq!(mkb::Arm::B2aSkill.to_string(), "b2a_skill");
}

// The safe bindings over the real libmkb, with the worker TEST DOUBLE standing in for the GPU
// (MKB_TEST_WORKER_DOUBLE, set by the CMake test that runs `cargo test`, tests/CMakeLists.txt).
use std::path::{Path, PathBuf};
use std::time::Duration;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
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
        problems: Some("topk_softmax_routing_mixtral_8x7b_bf16".into()),
        model: Some("rust".into()),
        cache_dir: Some(dir.join("cache")),
        ledger_path: Some(dir.join("run.ledger")),
        ..Default::default()
    }
}

fn kernel(time_us: u32) -> String {
    let path = root().join("problems/extra/topk_softmax_routing_mixtral_8x7b_bf16/solutions/cuda.cu");
    std::fs::read_to_string(path).unwrap() + &format!("\n// mkb-double: time_us={} baseline_us=100\n", time_us)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mkb-rust-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_four_arms_and_scores() {
    let dir = temp_dir("protocol");
    let session = mkb::Session::open(&options(&dir)).expect("open");
    let mut played = 0;
    while let Some(task) = session.next_task(Duration::from_millis(200)).expect("next") {
        assert_eq!(task.source_skill.is_some(), task.arm.is_skill());
        let report = task.submit(&kernel(20 - 3 * i32::from(task.arm) as u32)).expect("submit");
        assert!(report.passed(), "{}", report.message);
        assert_eq!(report.submissions_left, 9);
        task.submit_skill("tie-break on the lower index").expect("every arm keeps a skill");
        let record = task.finalize().expect("finalize");
        assert!(record.is_final);
        assert_eq!(task.finalize().unwrap_err().kind(), mkb::ErrorKind::State);
        played += 1;
    }
    assert_eq!(played, 4);
    assert!(session.score_table().unwrap().contains("model rust"));
    drop(session);
    let json = mkb::score_ledgers([dir.join("run.ledger")], mkb::ScoreFormat::default()).unwrap();
    assert!(json.contains("\"pairs\":1"), "{}", json);
    let error = mkb::score_ledgers(["/nonexistent/ledger"], mkb::ScoreFormat::default()).unwrap_err();
    assert_eq!(error.kind(), mkb::ErrorKind::Io);
    assert!(error.to_string().contains("MKB_ERR_IO"));
}

#[test]
fn compile_checks_spend_no_submission() {
    let dir = temp_dir("compile");
    let mut o = options(&dir);
    o.ledger_path = None;
    let session = mkb::Session::open(&o).unwrap();
    let task = session.next_task(Duration::from_millis(200)).unwrap().expect("a task");
    assert_eq!(task.submissions_left(), 10);
    assert!(task.seconds_left() > 0.0);
    let broken = task.compile(&(kernel(10) + "\nthis_is_not_cuda;\n")).unwrap();
    assert_eq!(broken.verdict, mkb::Verdict::CompileError);
    assert!(!broken.counted);
    assert!(broken.message.contains("this_is_not_cuda"), "{}", broken.message);
    let checked = task.compile(&kernel(10)).unwrap();
    assert_eq!(checked.verdict, mkb::Verdict::Compiled, "{}", checked.message);
    assert!(checked.message.contains("1 launch checked"), "{}", checked.message);
    assert_eq!((checked.submission, checked.submissions_left), (0, 10));
    assert_eq!(task.submissions_left(), 10);
    assert_eq!(task.submit(&kernel(10)).unwrap().submissions_left, 9);
    assert_eq!(task.submissions_left(), 9);
    task.finalize().unwrap();
    assert_eq!(task.seconds_left(), 0.0);
    assert_eq!(task.compile(&kernel(10)).unwrap_err().kind(), mkb::ErrorKind::State);
}

#[test]
fn errors_carry_the_handle_text() {
    let dir = temp_dir("errors");
    let mut o = options(&dir);
    o.gpus = Some("zero".into());
    let error = mkb::Session::open(&o).err().unwrap();
    assert_eq!(error.kind(), mkb::ErrorKind::Config);
    assert!(error.message().contains("gpus"), "{}", error);
}

#[test]
fn sessions_are_shared_between_threads() {
    let dir = temp_dir("threads");
    let mut o = options(&dir);
    o.ledger_path = None;
    o.gpus = Some("0,1".into());
    let session = mkb::Session::open(&o).unwrap();
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let s = session.clone();
            std::thread::spawn(move || {
                let mut n = 0;
                while let Some(task) = s.next_task(Duration::from_millis(200)).unwrap() {
                    task.submit(&kernel(10)).unwrap();
                    task.submit_skill("x").ok();
                    task.finalize().unwrap();
                    n += 1;
                }
                n
            })
        })
        .collect();
    let total: i32 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(total, 4);
}

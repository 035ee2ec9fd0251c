// The Rust conventions of the bindings: enums that print by the library's names and survive values
// from a newer library, an error type with a kind per C status, paths as paths, None for defaults.
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::time::Duration;

use mkb::{Arm, ErrorKind, Verdict};

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

fn worker() -> Option<PathBuf> {
    if std::env::var("MKB_TEST_REAL_GPU").as_deref() == Ok("1") {
        return None;
    }
    Some(from_build("MKB_TEST_WORKER_DOUBLE"))
}

#[test]
fn verdicts_print_their_c_names_and_round_trip() {
    let names = ["passed", "refused", "compile_error", "launch_error", "wrong_answer", "out_of_bounds", "input_modified",
                 "fault", "timeout", "out_of_memory", "crashed", "inconsistent", "compiled", "no_kernel"];
    for (value, name) in names.iter().enumerate() {
        let verdict = Verdict::from(value as i32);
        assert!(!matches!(verdict, Verdict::Other(_)), "{} is known to the binding", name);
        assert_eq!(verdict.to_string(), *name);
        assert_eq!(i32::from(verdict), value as i32);
    }
    assert_eq!(Verdict::from(4), Verdict::WrongAnswer);
    assert_eq!(Verdict::from(12), Verdict::Compiled);
}

#[test]
fn arms_print_their_c_names_and_round_trip() {
    for (value, arm, name, skill) in [(0, Arm::SoloA, "solo_a", false), (1, Arm::SoloB, "solo_b", false),
                                      (2, Arm::A2bSkill, "a2b_skill", true), (3, Arm::B2aSkill, "b2a_skill", true)] {
        assert_eq!(Arm::from(value), arm);
        assert_eq!(i32::from(arm), value);
        assert_eq!(arm.to_string(), name);
        assert_eq!(arm.is_skill(), skill, "{}", name);
    }
}

#[test]
fn values_from_a_newer_library_do_not_panic() {
    for value in [14, 99, -1, i32::MIN, i32::MAX] {
        assert_eq!(Verdict::from(value), Verdict::Other(value));
        assert_eq!(i32::from(Verdict::from(value)), value);
        assert_eq!(Verdict::from(value).to_string(), "unknown");
    }
    assert_eq!(Arm::from(4), Arm::Other(4));
    assert_eq!(Arm::from(-1).to_string(), "unknown");
    assert!(!Arm::Other(7).is_skill());
    assert_eq!(ErrorKind::from(-99), ErrorKind::Other(-99));
    assert_eq!(ErrorKind::Other(-99).status(), -99);
}

#[test]
fn error_kinds_match_the_c_statuses() {
    let kinds = [(-1, ErrorKind::InvalidArgument, "MKB_ERR_INVALID_ARGUMENT"), (-2, ErrorKind::Config, "MKB_ERR_CONFIG"),
                 (-3, ErrorKind::NotFound, "MKB_ERR_NOT_FOUND"), (-4, ErrorKind::State, "MKB_ERR_STATE"),
                 (-5, ErrorKind::Budget, "MKB_ERR_BUDGET"), (-6, ErrorKind::Io, "MKB_ERR_IO"),
                 (-7, ErrorKind::Ledger, "MKB_ERR_LEDGER"), (-8, ErrorKind::Worker, "MKB_ERR_WORKER"),
                 (-9, ErrorKind::NoMemory, "MKB_ERR_NO_MEMORY"), (-10, ErrorKind::Unsupported, "MKB_ERR_UNSUPPORTED"),
                 (-11, ErrorKind::Version, "MKB_ERR_VERSION"), (-12, ErrorKind::Spec, "MKB_ERR_SPEC"),
                 (-13, ErrorKind::Internal, "MKB_ERR_INTERNAL")];
    for (status, kind, name) in kinds {
        assert_eq!(ErrorKind::from(status), kind);
        assert_eq!(kind.status(), status);
        assert_eq!(kind.to_string(), name);
    }
}

// A library error travels as Box<dyn std::error::Error> (what `?` in main gives) and comes back.
fn open_boxed(options: &mkb::SessionOptions) -> Result<mkb::Session, Box<dyn std::error::Error>> {
    Ok(mkb::Session::open(options)?)
}

#[test]
fn errors_are_std_errors_with_a_kind() {
    let options = mkb::SessionOptions { gpus: Some("zero".into()), worker_path: worker(), ..Default::default() };
    let boxed = open_boxed(&options).err().unwrap();
    let error = boxed.downcast_ref::<mkb::Error>().expect("an mkb::Error");
    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(error.status(), -2);
    assert!(error.message().contains("gpus"), "{}", error);
    assert!(boxed.to_string().starts_with("MKB_ERR_CONFIG: "), "{}", boxed);

    let missing = mkb::SessionOptions { suite_path: Some(root().join("no/such/suite")), ..Default::default() };
    assert_eq!(mkb::plan(&missing, false).unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn none_keeps_the_default_and_some_zero_is_refused() {
    let dir = std::env::temp_dir().join(format!("mkb-rust-defaults-{}", std::process::id()));
    let options = mkb::SessionOptions {
        problems: Some("topk_softmax_routing_mixtral_8x7b_bf16".into()),
        dsl_a: Some("cuda".into()),
        dsl_b: Some("cuda".into()),
        ledger_path: Some(dir.join("run.ledger")),
        ..Default::default()
    };
    let planned = mkb::plan(&options, false).unwrap();
    assert!(planned.contains("\"trials_planned\":4,"), "one replicate by default: {}", planned);
    let two = mkb::SessionOptions { replicates: Some(2), ..options.clone() };
    assert!(mkb::plan(&two, false).unwrap().contains("\"trials_planned\":8,"));
    for (zero, field) in [(mkb::SessionOptions { budget_submissions: Some(0), ..options.clone() }, "budget_submissions"),
                          (mkb::SessionOptions { replicates: Some(0), ..options.clone() }, "replicates"),
                          (mkb::SessionOptions { seed: Some(0), ..options.clone() }, "seed")] {
        let error = mkb::plan(&zero, false).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidArgument);
        assert!(error.message().starts_with(field) && error.message().contains("None"), "{}", error);
    }
}

#[test]
fn paths_are_paths_not_text() {
    // A folder name that is not UTF-8 reaches the library byte for byte.
    let dir = std::env::temp_dir().join(format!("mkb-rust-path-{}", std::process::id())).join(OsStr::from_bytes(b"not-utf8-\xff"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ledger = dir.join("run.ledger");
    let options = mkb::SessionOptions {
        problems: Some("topk_softmax_routing_mixtral_8x7b_bf16".into()),
        trials: Some("*/solo_a/r0".into()),
        dsl_a: Some("cuda".into()),
        dsl_b: Some("cuda".into()),
        model: Some("rust".into()),
        ledger_path: Some(ledger.clone()),
        cache_dir: Some(dir.join("cache")),
        worker_path: worker(),
        ..Default::default()
    };
    let session = mkb::Session::open(&options).unwrap();
    drop(session.next_task(Duration::ZERO).unwrap().unwrap()); // released without a kernel: recorded
    drop(session);
    assert!(ledger.is_file(), "no ledger at {:?}", ledger);
    assert!(mkb::score_ledgers([&ledger], mkb::ScoreFormat::default()).unwrap().contains("\"directions\""));
    assert!(mkb::score_ledgers(vec![ledger.as_path()], mkb::ScoreFormat::default()).is_ok());

    let with_nul = mkb::SessionOptions { ledger_path: Some(PathBuf::from(OsStr::from_bytes(b"a\0b"))), ..Default::default() };
    let error = mkb::plan(&with_nul, false).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::InvalidArgument);
    assert!(error.message().contains("NUL"), "{}", error);
}

// Discovery through the safe bindings: the suite's problems and the registered DSLs, typed.
use std::path::PathBuf;

const ROUTING: &str = "topk_softmax_routing_mixtral_8x7b_bf16";

#[test]
fn the_built_in_suite_lists_its_problems_with_their_tensors() {
    let list = mkb::list_problems(&mkb::SessionOptions::default()).unwrap();
    assert_eq!(list.suite, "built-in");
    let mut ids: Vec<&str> = list.problems.iter().map(|p| p.id.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), list.problems.len(), "ids are unique");
    let routing = list.problems.iter().find(|p| p.id == ROUTING).expect(ROUTING);
    assert_eq!(routing.family, "extra");
    assert!(!routing.description.is_empty());
    assert!(!routing.inputs.is_empty() && !routing.outputs.is_empty(), "{:?}", routing);
    for tensor in routing.inputs.iter().chain(&routing.outputs) {
        assert!(!tensor.name.is_empty() && !tensor.dtype.is_empty(), "{:?}", tensor);
        assert!(!tensor.shape.is_empty() && tensor.shape.iter().all(|&d| d > 0), "{:?}", tensor);
    }
    assert!(routing.inputs.iter().any(|t| t.dtype == "bf16"), "{:?}", routing.inputs);
    assert!(list.json.contains(&format!("\"id\":\"{}\"", ROUTING)) || list.json.contains(&format!("\"id\": \"{}\"", ROUTING)));
}

#[test]
fn a_missing_suite_is_not_found() {
    let options = mkb::SessionOptions { suite_path: Some(PathBuf::from("/nonexistent/suite")), ..Default::default() };
    let error = mkb::list_problems(&options).unwrap_err();
    assert_eq!(error.kind(), mkb::ErrorKind::NotFound);
    assert!(error.message().contains("/nonexistent/suite"), "{}", error);
}

#[test]
fn dsls_say_whether_each_is_usable_and_why_not() {
    let list = mkb::list_dsls(&mkb::SessionOptions::default()).unwrap();
    assert_eq!(list.default_pair, ("cute-dsl".to_string(), "tirx".to_string()));
    assert!(!list.python.is_empty());
    let names: Vec<&str> = list.dsls.iter().map(|d| d.name.as_str()).collect();
    for name in ["cuda", "cute-dsl", "tirx"] {
        assert!(names.contains(&name), "{} in {:?}", name, names);
    }
    for dsl in &list.dsls {
        assert!(!dsl.display_name.is_empty(), "{:?}", dsl);
        assert!(dsl.usable || !dsl.detail.is_empty(), "an unusable DSL says why: {:?}", dsl);
    }
    assert!(!list.sandbox.detail.is_empty(), "{:?}", list.sandbox);
    assert_eq!(list.pair, list.default_pair, "no pair selected");
    let usable = |name: &str| list.dsls.iter().any(|d| d.name == name && d.usable);
    assert_eq!(list.pair_usable, usable("cute-dsl") && usable("tirx"));

    // An interpreter that does not exist leaves the Python DSLs of the default pair unusable.
    let options = mkb::SessionOptions { python: Some(PathBuf::from("/nonexistent/python3")), ..Default::default() };
    let without = mkb::list_dsls(&options).unwrap();
    assert_eq!(without.python, "/nonexistent/python3");
    for name in ["cute-dsl", "tirx"] {
        let dsl = without.dsls.iter().find(|d| d.name == name).unwrap();
        assert!(!dsl.usable && !dsl.detail.is_empty(), "{:?}", dsl);
    }
    assert!(!without.pair_usable);
}

#[test]
fn the_selected_pair_is_checked() {
    let cuda = mkb::SessionOptions { dsl_a: Some("cuda".into()), dsl_b: Some("cuda".into()), ..Default::default() };
    let list = mkb::list_dsls(&cuda).unwrap();
    assert_eq!(list.pair, ("cuda".to_string(), "cuda".to_string()));
    assert_eq!(list.pair_usable, list.dsls.iter().any(|d| d.name == "cuda" && d.usable));

    let unknown = mkb::SessionOptions { dsl_a: Some("cuda".into()), dsl_b: Some("cobol".into()), ..Default::default() };
    let error = mkb::list_dsls(&unknown).unwrap_err();
    assert_eq!(error.kind(), mkb::ErrorKind::NotFound);
    assert!(error.message().contains("cobol"), "{}", error);
    let half = mkb::SessionOptions { dsl_a: Some("cuda".into()), ..Default::default() };
    assert_eq!(mkb::list_dsls(&half).unwrap_err().kind(), mkb::ErrorKind::Config);
}

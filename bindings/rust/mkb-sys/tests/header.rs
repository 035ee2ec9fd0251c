// The hand-written declarations against include/mkb.h: the same functions with the same parameter
// counts, the pinned status values, and the layout of mkb_open_options as a C compiler sees it.
use std::collections::BTreeMap;
use std::mem::{size_of, MaybeUninit};
use std::path::PathBuf;
use std::process::Command;

fn header() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../include/mkb.h");
    std::fs::read_to_string(&root).expect("include/mkb.h")
}

// name -> parameter count of every `MKB_API ... name(...)` declaration.
fn declared_in_header() -> BTreeMap<String, usize> {
    let text = header();
    let mut out = BTreeMap::new();
    for piece in text.split("MKB_API ").skip(1) {
        let declaration = &piece[..piece.find(';').unwrap()];
        let open = declaration.find('(').unwrap();
        let name = declaration[..open].split(|c: char| c.is_whitespace() || c == '*').last().unwrap();
        if !name.starts_with("mkb_") {
            continue; // the macro's own definition
        }
        let close = declaration.rfind(')').unwrap();
        let params = declaration[open + 1..close].trim();
        let count = if params == "void" { 0 } else { params.split(',').count() };
        out.insert(name.to_string(), count);
    }
    out
}

#[test]
fn functions_match_the_header() {
    let header = declared_in_header();
    let rust: BTreeMap<String, usize> = mkb_sys::DECLARED.iter().map(|(n, c)| (n.to_string(), *c)).collect();
    assert_eq!(header, rust);
}

#[test]
fn status_values_match_the_header() {
    let text = header();
    for (name, value) in [("MKB_ERR_INTERNAL", mkb_sys::MKB_ERR_INTERNAL), ("MKB_DONE", mkb_sys::MKB_DONE),
                          ("MKB_ERR_BUDGET", mkb_sys::MKB_ERR_BUDGET), ("MKB_ERR_SPEC", mkb_sys::MKB_ERR_SPEC)] {
        assert!(text.contains(&format!("{} = {},", name, value)) || text.contains(&format!("{} = {} ", name, value)),
                "{} = {}", name, value);
    }
}

#[test]
fn open_options_layout_matches_c() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let source = dir.join("layout.c");
    std::fs::write(&source, r#"
#include <stddef.h>
#include <stdio.h>
#include "mkb.h"
int main(void) {
  printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu %zu\n", sizeof(mkb_open_options), offsetof(mkb_open_options, replicates),
         offsetof(mkb_open_options, model), offsetof(mkb_open_options, seed), offsetof(mkb_open_options, python),
         offsetof(mkb_open_options, gpu_lock_dir), offsetof(mkb_open_options, trials),
         offsetof(mkb_open_options, directions), offsetof(mkb_open_options, target_arch),
         offsetof(mkb_open_options, shard_index), offsetof(mkb_open_options, shard_count));
  return 0;
}"#).unwrap();
    let include = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../include");
    let program = dir.join("layout");
    let status = Command::new("cc").arg("-I").arg(&include).arg(&source).arg("-o").arg(&program).status().expect("cc");
    assert!(status.success());
    let out = String::from_utf8(Command::new(&program).output().unwrap().stdout).unwrap();
    let c: Vec<usize> = out.split_whitespace().map(|v| v.parse().unwrap()).collect();

    let value = MaybeUninit::<mkb_sys::mkb_open_options>::uninit();
    let base = value.as_ptr() as usize;
    let offset = |field: usize| field - base;
    let rust = unsafe {
        let p = value.as_ptr();
        vec![size_of::<mkb_sys::mkb_open_options>(), offset(std::ptr::addr_of!((*p).replicates) as usize),
             offset(std::ptr::addr_of!((*p).model) as usize), offset(std::ptr::addr_of!((*p).seed) as usize),
             offset(std::ptr::addr_of!((*p).python) as usize),
             offset(std::ptr::addr_of!((*p).gpu_lock_dir) as usize), offset(std::ptr::addr_of!((*p).trials) as usize),
             offset(std::ptr::addr_of!((*p).directions) as usize),
             offset(std::ptr::addr_of!((*p).target_arch) as usize),
             offset(std::ptr::addr_of!((*p).shard_index) as usize),
             offset(std::ptr::addr_of!((*p).shard_count) as usize)]
    };
    assert_eq!(c, rust);
}

#[test]
fn flags_and_formats_match_the_header() {
    let text = header();
    let defined = |name: &str| -> u32 {
        let line = text.lines().find(|l| l.starts_with(&format!("#define {} ", name))).unwrap_or_else(|| panic!("{}", name));
        let value = line.split_whitespace().nth(2).unwrap().trim_end_matches('u');
        match value.strip_prefix("0x") {
            Some(hex) => u32::from_str_radix(hex, 16).unwrap(),
            None => value.parse().unwrap(),
        }
    };
    for (name, value) in [("MKB_OPEN_COMPILE_ONLY", mkb_sys::MKB_OPEN_COMPILE_ONLY), ("MKB_OPEN_RERUN_STALE", mkb_sys::MKB_OPEN_RERUN_STALE),
                          ("MKB_OPEN_NO_SANDBOX", mkb_sys::MKB_OPEN_NO_SANDBOX), ("MKB_SCORE_JSON", mkb_sys::MKB_SCORE_JSON),
                          ("MKB_SCORE_TABLE", mkb_sys::MKB_SCORE_TABLE), ("MKB_SCORE_WITH_STALE", mkb_sys::MKB_SCORE_WITH_STALE),
                          ("MKB_PLAN_JSON", mkb_sys::MKB_PLAN_JSON), ("MKB_PLAN_TABLE", mkb_sys::MKB_PLAN_TABLE),
                          ("MKB_ABI_VERSION", mkb_sys::MKB_ABI_VERSION)] {
        assert_eq!(defined(name), value, "{}", name);
    }
}

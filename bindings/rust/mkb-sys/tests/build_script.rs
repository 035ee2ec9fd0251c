// build.rs, compiled in as a module: where it finds libmkb, and that a change of the variables it
// reads makes cargo run it again.
#[allow(dead_code)]
#[path = "../build.rs"]
mod build_script;

use std::path::PathBuf;
use std::process::Command;

fn folder(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("build-script-{}", name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

// pkg-config that sees only `dir` (none of the system's own .pc files).
fn pkg_config_in(dir: &PathBuf) -> impl Fn() -> Command + '_ {
    move || {
        let mut command = Command::new("pkg-config");
        command.env("PKG_CONFIG_PATH", dir).env("PKG_CONFIG_LIBDIR", dir);
        command
    }
}

#[test]
fn reruns_when_the_search_path_changes() {
    let empty = folder("watched");
    let lines = build_script::instructions(None, pkg_config_in(&empty));
    for name in ["PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "MKB_LIB_DIR"] {
        assert!(lines.contains(&format!("cargo:rerun-if-env-changed={}", name)), "{} in {:?}", name, lines);
    }
}

#[test]
fn finds_the_library_through_pkg_config() {
    let dir = folder("pc");
    std::fs::write(dir.join("mkb.pc"), "Name: mkb\nDescription: d\nVersion: 0.1.0\nLibs: -L/opt/mkb/lib -lmkb\n").unwrap();
    let lines = build_script::instructions(None, pkg_config_in(&dir));
    assert!(lines.contains(&"cargo:rustc-link-search=native=/opt/mkb/lib".to_string()), "{:?}", lines);
    assert!(lines.contains(&format!("cargo:rerun-if-changed={}/mkb.pc", dir.display())), "{:?}", lines);
    assert_eq!(lines.last().unwrap(), "cargo:rustc-link-lib=dylib=mkb");
}

#[test]
fn mkb_lib_dir_comes_before_pkg_config() {
    let dir = folder("override");
    std::fs::write(dir.join("mkb.pc"), "Name: mkb\nDescription: d\nVersion: 0.1.0\nLibs: -L/opt/mkb/lib -lmkb\n").unwrap();
    let lines = build_script::instructions(Some("/here/lib"), pkg_config_in(&dir));
    let searched: Vec<&String> = lines.iter().filter(|l| l.starts_with("cargo:rustc-link-search")).collect();
    assert_eq!(searched, ["cargo:rustc-link-search=native=/here/lib"]);
}

#[test]
fn without_either_the_system_search_path_is_used() {
    let empty = folder("none");
    let lines = build_script::instructions(None, pkg_config_in(&empty));
    assert!(!lines.iter().any(|l| l.starts_with("cargo:rustc-link-search")), "{:?}", lines);
    assert!(lines.contains(&"cargo:rustc-link-lib=dylib=mkb".to_string()));
}

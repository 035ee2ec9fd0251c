// Links libmkb: from $MKB_LIB_DIR when set, else where `pkg-config mkb` says, else the system's
// default search path. No crate from a registry is needed.
use std::env;
use std::process::Command;

// What the search depends on: a change of any of these reruns this script (cargo would otherwise
// keep linking against the folder the first build found).
const WATCHED: [&str; 5] = ["MKB_LIB_DIR", "PKG_CONFIG", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"];

// The output of `pkg_config ARGS mkb`, or None when pkg-config is missing or has no mkb.
fn query(pkg_config: &mut Command, args: &[&str]) -> Option<String> {
    let out = pkg_config.args(args).arg("mkb").output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The cargo instructions that link libmkb. `pkg_config` makes a fresh pkg-config command (its
/// environment is what the search sees).
pub fn instructions(lib_dir: Option<&str>, pkg_config: impl Fn() -> Command) -> Vec<String> {
    let mut out: Vec<String> = WATCHED.iter().map(|name| format!("cargo:rerun-if-env-changed={}", name)).collect();
    if let Some(dir) = lib_dir {
        out.push(format!("cargo:rustc-link-search=native={}", dir));
    } else if let Some(flags) = query(&mut pkg_config(), &["--libs-only-L"]) {
        let dirs = flags.split_whitespace().filter_map(|flag| flag.strip_prefix("-L"));
        out.extend(dirs.map(|dir| format!("cargo:rustc-link-search=native={}", dir)));
        // A reinstall elsewhere rewrites mkb.pc without changing any variable.
        if let Some(folder) = query(&mut pkg_config(), &["--variable=pcfiledir"]) {
            out.push(format!("cargo:rerun-if-changed={}/mkb.pc", folder));
        }
    }
    out.push("cargo:rustc-link-lib=dylib=mkb".to_string());
    out
}

fn main() {
    let lib_dir = env::var("MKB_LIB_DIR").ok();
    let pkg_config = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    for line in instructions(lib_dir.as_deref(), || Command::new(&pkg_config)) {
        println!("{}", line);
    }
}

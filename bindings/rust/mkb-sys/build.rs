// Links libmkb: from $MKB_LIB_DIR when set, else where `pkg-config mkb` says, else the system's
// default search path. No crate from a registry is needed.
use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=MKB_LIB_DIR");
    if let Ok(dir) = env::var("MKB_LIB_DIR") {
        println!("cargo:rustc-link-search=native={}", dir);
    } else if let Ok(out) = Command::new("pkg-config").args(["--libs-only-L", "mkb"]).output() {
        if out.status.success() {
            for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                if let Some(dir) = flag.strip_prefix("-L") {
                    println!("cargo:rustc-link-search=native={}", dir);
                }
            }
        }
    }
    println!("cargo:rustc-link-lib=dylib=mkb");
}

//! Discovery: the suite's problems and the registered DSLs, typed, for a framework's menus.
use std::ptr;

use mkb_sys as sys;

use crate::error::{Error, Result};
use crate::json::{self, Value};
use crate::options::{RawOptions, SessionOptions};
use crate::text::owned_result;

/// An input or output of a problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tensor {
    pub name: String,
    /// The element type ("bf16", "fp32", ...).
    pub dtype: String,
    pub shape: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub id: String,
    pub family: String,
    pub description: String,
    pub inputs: Vec<Tensor>,
    pub outputs: Vec<Tensor>,
}

/// The problems of a suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProblemList {
    /// The suite's folder, or "built-in".
    pub suite: String,
    pub problems: Vec<Problem>,
    /// The library's text, every field included (for a JSON library of your own).
    pub json: String,
}

/// The sandbox of the Python DSL frontends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Python DSL submissions can run.
    pub usable: bool,
    /// They run inside the sandbox (not opted out).
    pub confined: bool,
    /// What confines them, or why they cannot run.
    pub detail: String,
}

/// A registered DSL, as `mkb doctor` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dsl {
    /// The name sessions take ("cuda", "cute-dsl", ...).
    pub name: String,
    pub display_name: String,
    pub usable: bool,
    /// Why it is not usable here, or what it uses when it is.
    pub detail: String,
}

/// The registered DSLs and what they need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DslList {
    /// The Python interpreter the Python DSL frontends would run.
    pub python: String,
    /// The pair a session takes when `dsl_a` and `dsl_b` are left out.
    pub default_pair: (String, String),
    /// The pair the options select (the default pair if they select none).
    pub pair: (String, String),
    /// Both DSLs of `pair` can run here.
    pub pair_usable: bool,
    pub sandbox: Sandbox,
    pub dsls: Vec<Dsl>,
    /// The library's text, every field included.
    pub json: String,
}

fn tensors(value: &Value) -> Vec<Tensor> {
    let dimension = |d: &Value| d.number().filter(|n| *n >= 0.0).map_or(0, |n| n as u64);
    value
        .items()
        .iter()
        .map(|t| Tensor { name: t.get("name").text(), dtype: t.get("dtype").text(), shape: t.get("shape").items().iter().map(dimension).collect() })
        .collect()
}

fn pair(value: &Value) -> (String, String) {
    let items = value.items();
    let at = |i: usize| items.get(i).map_or_else(String::new, Value::text);
    (at(0), at(1))
}

fn parse(json: &str) -> Result<Value> {
    json::parse(json).map_err(|what| Error::new(sys::MKB_ERR_INTERNAL, format!("the library's discovery text: {}", what)))
}

/// The suite's problems (`options.suite_path`, else the built-in suite; no other option is read).
pub fn list_problems(options: &SessionOptions) -> Result<ProblemList> {
    let raw = RawOptions::new(options)?;
    let (mut out, mut error) = (ptr::null_mut(), ptr::null_mut());
    let json = unsafe { owned_result(sys::mkb_list_problems(&raw.raw, &mut out, &mut error), out, error)? };
    let value = parse(&json)?;
    let problems = value
        .get("problems")
        .items()
        .iter()
        .map(|p| Problem {
            id: p.get("id").text(),
            family: p.get("family").text(),
            description: p.get("description").text(),
            inputs: tensors(p.get("inputs")),
            outputs: tensors(p.get("outputs")),
        })
        .collect();
    Ok(ProblemList { suite: value.get("suite").text(), problems, json })
}

/// The registered DSLs and whether each can be used here, as `mkb doctor` knows it (`options.python`,
/// `no_sandbox`, `dsl_a` and `dsl_b` are read). Takes a few seconds: it runs the interpreter once per
/// Python DSL.
pub fn list_dsls(options: &SessionOptions) -> Result<DslList> {
    let raw = RawOptions::new(options)?;
    let (mut out, mut error) = (ptr::null_mut(), ptr::null_mut());
    let json = unsafe { owned_result(sys::mkb_list_dsls(&raw.raw, &mut out, &mut error), out, error)? };
    let value = parse(&json)?;
    let dsls = value
        .get("dsls")
        .items()
        .iter()
        .map(|d| Dsl {
            name: d.get("name").text(),
            display_name: d.get("display_name").text(),
            usable: d.get("usable").flag(),
            detail: d.get("detail").text(),
        })
        .collect();
    Ok(DslList {
        python: value.get("python").text(),
        default_pair: pair(value.get("default_pair")),
        pair: pair(value.get("pair")),
        pair_usable: value.get("pair_usable").flag(),
        sandbox: {
            let sandbox = value.get("sandbox");
            Sandbox { usable: sandbox.get("usable").flag(), confined: sandbox.get("confined").flag(), detail: sandbox.get("detail").text() }
        },
        dsls,
        json,
    })
}

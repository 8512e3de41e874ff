//! The `params` check: the weights the model builds add up, layer by
//! layer, to the closed-form count of the architecture its config declares.
//!
//! A fault that builds a wrong variant without changing any shape (say,
//! attention without its output projection) passes every shape check and
//! fails this one.

use super::CheckResult;
use crate::budget::{closed, count, thousands};
use crate::trace::{CheckName, Trace};
use std::collections::BTreeMap;

/// Compares the built count of every layer with its closed form.
#[must_use]
pub fn params(trace: &Trace) -> CheckResult {
    let name = CheckName::Params;
    if let Some(skip) = super::stopped(name, trace) {
        return skip;
    }
    let cfg = &trace.config;
    let mut built: BTreeMap<String, u64> = BTreeMap::new();
    for p in count::built(cfg) {
        *built.entry(p.component()).or_default() += p.count();
    }
    let declared = closed::components(cfg);
    for c in &declared {
        let got = built.remove(&c.path).unwrap_or(0);
        if got != c.count {
            return CheckResult::fail(name, &c.path, "").said(
                crate::why::Why::new("check-params-fail")
                    .arg("path", c.path.as_str())
                    .arg("got", thousands(got))
                    .arg("by", thousands(got.abs_diff(c.count)))
                    .arg("than", if got < c.count { "fewer" } else { "more" })
                    .arg("formula", c.formula.to_string())
                    .arg("want", thousands(c.count)),
            );
        }
    }
    if let Some((path, got)) = built.into_iter().next() {
        return CheckResult::fail(name, &path, "").said(
            crate::why::Why::new("check-params-extra")
                .arg("path", path.as_str())
                .arg("got", thousands(got)),
        );
    }
    let total: u64 = declared.iter().map(|c| c.count).sum();
    CheckResult::pass(name, "").said(
        crate::why::Why::new("check-params-pass")
            .arg("total", thousands(total))
            .arg("parts", declared.len()),
    )
}

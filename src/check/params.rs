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
    judge(built, &closed::components(cfg))
}

/// The verdict on `built` (each layer's count of the weights built)
/// against `declared` (each layer's closed form): the first layer whose
/// counts differ, fewer or more; else a layer the declared architecture
/// lacks; else a pass.
fn judge(mut built: BTreeMap<String, u64>, declared: &[closed::Component]) -> CheckResult {
    let name = CheckName::Params;
    for c in declared {
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

#[cfg(test)]
mod tests {
    use super::{BTreeMap, judge};
    use crate::budget::closed::Component;
    use crate::trace::Status;

    fn declared() -> Vec<Component> {
        ["block1.attn", "block1.mlp"]
            .into_iter()
            .map(|path| Component {
                path: path.into(),
                count: 100,
                formula: "4·d²",
            })
            .collect()
    }

    fn built(counts: &[(&str, u64)]) -> BTreeMap<String, u64> {
        counts.iter().map(|&(p, n)| (p.to_string(), n)).collect()
    }

    /// Every verdict of the judge, each from a crafted count: equal
    /// passes; fewer, more and a layer the formula lacks each fail,
    /// naming the layer.
    #[test]
    fn each_verdict_of_the_count_follows_from_its_counts() {
        let pass = judge(
            built(&[("block1.attn", 100), ("block1.mlp", 100)]),
            &declared(),
        );
        assert_eq!(pass.status, Status::Pass, "{pass:?}");
        let why = |r: &crate::CheckResult| r.why.as_ref().map(|w| w.key.clone());
        for (counts, path, key, than) in [
            (
                &[("block1.attn", 90), ("block1.mlp", 100)][..],
                "block1.attn",
                "check-params-fail",
                Some("fewer"),
            ),
            (
                &[("block1.attn", 100), ("block1.mlp", 164)][..],
                "block1.mlp",
                "check-params-fail",
                Some("more"),
            ),
            (
                &[
                    ("block1.attn", 100),
                    ("block1.mlp", 100),
                    ("block1.extra", 8),
                ][..],
                "block1.extra",
                "check-params-extra",
                None,
            ),
        ] {
            let r = judge(built(counts), &declared());
            assert_eq!(r.status, Status::Fail, "{counts:?}");
            assert_eq!(r.path.as_deref(), Some(path));
            assert_eq!(why(&r).as_deref(), Some(key));
            if let Some(than) = than {
                assert!(r.detail.contains(&format!("{than} than")), "{}", r.detail);
            }
        }
    }
}

//! Shape-only and numeric runs come from one forward: they agree on every
//! event for randomly drawn small configs, faults included.

use proptest::prelude::*;
mod common;
use shapetrace::Request;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn shape_only_and_numeric_traces_agree(cfg in common::small_configs(true)) {
        let numeric = shapetrace::trace(&cfg).unwrap();
        let shapes = shapetrace::trace_request(&cfg, &Request::shapes()).unwrap().trace;
        let key = |t: &shapetrace::Trace| t.events.iter()
            .map(|e| (e.path.clone(), e.shape.clone(), e.dtype, e.departs, e.on_stream, e.inputs.clone(), e.formula.clone()))
            .collect::<Vec<_>>();
        // The shape-only run stops where the numeric run stops, unless it
        // stopped on a value (finite, as softmax-no-max may): then the
        // numeric events are where the shape-only run began.
        let stop = |t: &shapetrace::Trace| t.failure.as_ref().map(|f| (f.path.clone(), f.check));
        let (n, s) = (key(&numeric), key(&shapes));
        if stop(&numeric).is_some_and(|(_, c)| c == shapetrace::CheckName::Finite) {
            prop_assert_eq!(s.get(..n.len()), Some(&n[..]));
        } else {
            prop_assert_eq!(n, s);
            prop_assert_eq!(stop(&numeric), stop(&shapes));
        }
        prop_assert!(shapes.events.iter().all(|e| e.stats.is_none()));
    }
}

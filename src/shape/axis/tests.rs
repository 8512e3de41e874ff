use super::*;
use proptest::prelude::*;
use std::path::Path;

/// A word: any axis written as one word.
fn word() -> impl Strategy<Value = Axis> {
    proptest::sample::select(WORDS.to_vec())
}

/// A plain name that is no word: `z`, `zq_1`, ….
fn named() -> impl Strategy<Value = Axis> {
    "z[a-z_0-9]{0,4}".prop_map(Axis::Named)
}

/// What a multiple, fraction or prime may take: a lettered word or a
/// plain name.
fn name() -> impl Strategy<Value = Axis> {
    prop_oneof![word().prop_filter("a name", Axis::is_name), named()]
}

/// An axis with no product, bracket or bound in it.
fn atom() -> impl Strategy<Value = Axis> {
    prop_oneof![
        4 => word(),
        1 => named(),
        1 => (1usize..40, name()).prop_map(|(times, of)| Axis::Multiple { times, of: Box::new(of) }),
        1 => (name(), 1usize..40).prop_map(|(of, by)| Axis::Fraction { of: Box::new(of), by }),
        1 => name().prop_map(|a| Axis::Primed(Box::new(a))),
    ]
}

/// Any axis the string form can hold but a bound.
fn unbound() -> impl Strategy<Value = Axis> {
    let parts = || proptest::collection::vec(atom(), 2..4);
    prop_oneof![
        4 => atom(),
        1 => parts().prop_map(Axis::Product),
        1 => parts().prop_map(Axis::Merged),
        1 => (proptest::collection::vec(atom(), 1..4), 2usize..100)
            .prop_map(|(from, size)| Axis::Regrouped { from, size }),
        1 => parts().prop_map(|from| Axis::Regrouped { from, size: 1 }),
        1 => atom().prop_map(|a| Axis::Reduced(Box::new(a))),
        1 => (0usize..100_000).prop_map(Axis::Size),
    ]
}

/// Any axis the string form can hold.
fn axis() -> impl Strategy<Value = Axis> {
    prop_oneof![
        4 => unbound(),
        1 => unbound().prop_map(|a| Axis::Bound(Box::new(a))),
    ]
}

proptest! {
    #[test]
    fn parse_reads_back_what_display_writes(a in axis()) {
        prop_assert_eq!(Axis::parse(&a.to_string()), a);
    }

    #[test]
    fn display_writes_back_any_string_parse_read(s in "[BTdhkvfqV_n·\\[\\]→≤'/0-9?]{0,8}") {
        prop_assert_eq!(Axis::parse(&s).to_string(), s);
    }
}

#[test]
fn the_forms_read_as_their_variants() {
    let b = Box::new;
    for (s, want) in [
        ("B", Axis::Batch),
        ("Tq", Axis::Query),
        ("h_kv", Axis::ExportKvHeads),
        ("1", Axis::One),
        ("?", Axis::Unknown),
        ("n_e≤", Axis::Bound(b(Axis::Routed))),
        ("h·hd", Axis::Product(vec![Axis::Heads, Axis::HeadDim])),
        ("B·T", Axis::Product(vec![Axis::Batch, Axis::Seq])),
        (
            "3d",
            Axis::Multiple {
                times: 3,
                of: b(Axis::Model),
            },
        ),
        (
            "4hd",
            Axis::Multiple {
                times: 4,
                of: b(Axis::HeadDim),
            },
        ),
        (
            "d/2",
            Axis::Fraction {
                of: b(Axis::Model),
                by: 2,
            },
        ),
        ("h'", Axis::Primed(b(Axis::Heads))),
        ("[T·hd]", Axis::Merged(vec![Axis::Seq, Axis::HeadDim])),
        (
            "[T·d→4]",
            Axis::Regrouped {
                from: vec![Axis::Seq, Axis::Model],
                size: 4,
            },
        ),
        ("[T→1]", Axis::Reduced(b(Axis::Seq))),
        ("[64]", Axis::Size(64)),
        ("zz", Axis::Named("zz".into())),
        ("[T]", Axis::Named("[T]".into())),
        ("16", Axis::Named("16".into())),
        ("03d", Axis::Named("03d".into())),
        ("n_e≤≤", Axis::Named("n_e≤≤".into())),
        ("", Axis::Named(String::new())),
    ] {
        assert_eq!(Axis::parse(s), want, "{s}");
        assert_eq!(want.to_string(), s);
    }
}

#[test]
fn serde_goes_through_the_string() {
    let a = axes(&["B", "n_e≤", "[T·d→4]"]);
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(json, r#"["B","n_e≤","[T·d→4]"]"#);
    assert_eq!(serde_json::from_str::<Vec<Axis>>(&json).unwrap(), a);
}

#[test]
fn mixes_batch_reads_the_bracketed_forms_that_start_at_b() {
    for s in ["[B→1]", "[B·T]", "[B·T·d→4]", "[B→4]"] {
        assert!(Axis::parse(s).mixes_batch(), "{s}");
    }
    for s in ["B", "B·T", "[T·B]", "[T→1]", "[64]"] {
        assert!(!Axis::parse(s).mixes_batch(), "{s}");
    }
}

/// Every axis string in the committed logs under `dir`, with the file it
/// was first met in.
fn logged_axes(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            logged_axes(&path, out);
            continue;
        }
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let sources = v["sources"].as_array().into_iter().flatten();
            let named = v["axes"]
                .as_array()
                .into_iter()
                .flatten()
                .chain(sources.map(|s| &s["axis"]));
            for a in named.filter_map(serde_json::Value::as_str) {
                if !out.iter().any(|(s, _)| s == a) {
                    out.push((a.to_string(), path.display().to_string()));
                }
            }
        }
    }
}

#[test]
fn every_axis_in_the_committed_logs_is_typed() {
    let mut found = Vec::new();
    logged_axes(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"),
        &mut found,
    );
    assert!(found.len() >= 15, "{found:?}");
    for want in [
        "B", "Tq", "h_kv", "rep", "[d→1]", "[16]", "[T·hd]", "d/2", "3d", "1",
    ] {
        assert!(found.iter().any(|(s, _)| s == want), "{want} in {found:?}");
    }
    for (s, file) in &found {
        let a = Axis::parse(s);
        assert!(
            !matches!(a, Axis::Named(_)),
            "{s} in {file} reads as a name"
        );
        assert_eq!(a.to_string(), *s);
    }
}

#[test]
fn every_axis_shapetrace_writes_is_typed() {
    for s in [
        "B", "T", "d", "h", "kv", "hd", "Tq", "Tk", "ff", "2ff", "V", "ctx", "types", "E", "k",
        "n_e", "n_e≤", "qkv", "h·hd", "kv·hd", "?",
    ] {
        assert!(!matches!(Axis::parse(s), Axis::Named(_)), "{s}");
    }
}

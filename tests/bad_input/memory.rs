//! Bad-input cases of the hardening family "memory in proportion": limits
//! that real models never reach, refused before any work, and logs whose
//! summary disagrees with what they hold.

use super::{Case, case, with_file};

pub fn cases(log: &str) -> Vec<Case> {
    let miscounted = log.replacen(
        "\"kind\":\"summary\",\"events\":37",
        "\"kind\":\"summary\",\"events\":38",
        1,
    );
    let after = format!("{log}{}\n", log.lines().nth(1).unwrap());
    let twice = log.replacen("{\"name\":\"wiring\"", "{\"name\":\"stream\"", 1);
    let first =
        "\"step\":0,\"path\":\"input\",\"op\":\"input\",\"role\":\"input\",\"shape\":[2,4,64]";
    assert!(log.contains(first), "the lesson log starts with its input");
    let ranked = log.replacen(
        first,
        "\"step\":0,\"path\":\"input\",\"op\":\"input\",\"role\":\"input\",\"shape\":[2,4,64,1,1,1,1,1,1]",
        1,
    );
    let escaped = log.replacen(
        first,
        "\"step\":0,\"path\":\"in\\u001b[2Jput\",\"op\":\"input\",\"role\":\"input\",\"shape\":[2,4,64]",
        1,
    );
    vec![
        case(
            "layers over the limit",
            &["trace", "--shape-only", "--layers", "4097"],
            &["layers 4097", "1..=4096"],
        ),
        case(
            "layers over the limit in params",
            &["params", "--layers", "1048576"],
            &["layers 1048576", "1..=4096"],
        ),
        case(
            "layers not a number",
            &["trace", "--layers", "x"],
            &["--layers", "1 to 4096"],
        ),
        with_file(
            case(
                "layers over the limit in a model file",
                &["params", "--config", "m.toml"],
                &["layers 5000", "1..=4096"],
            ),
            "m.toml",
            "layers = 5000\n",
        ),
        with_file(
            case(
                "log event of too many axes",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:2", "9 axes", "at most 8"],
            ),
            "t.jsonl",
            ranked,
        ),
        with_file(
            case(
                "log path with a control character",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:2", "in\\u{1b}[2Jput", "printable names"],
            ),
            "t.jsonl",
            escaped,
        ),
        with_file(
            case(
                "log summary miscounts",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:39", "says 38 events", "holds 37"],
            ),
            "t.jsonl",
            miscounted,
        ),
        with_file(
            case(
                "log line after the summary",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:40", "after the summary"],
            ),
            "t.jsonl",
            after,
        ),
        with_file(
            case(
                "log summary names a check twice",
                &["view", "t.jsonl", "--format", "table"],
                &["t.jsonl:39", "stream twice"],
            ),
            "t.jsonl",
            twice,
        ),
    ]
}

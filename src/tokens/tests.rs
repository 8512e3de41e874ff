use super::{MAX_IDS, TokensError, check_range, parse};
use crate::npy::tests::{file, i4_bytes, i8_bytes};
use ndarray::{Array2, array};

fn ok(arg: &str) -> Array2<i64> {
    parse(arg).unwrap_or_else(|e| panic!("{arg}: {e}"))
}

/// `arg` is refused with a message holding every one of `needles`.
fn refused(arg: &str, needles: &[&str]) -> TokensError {
    let e = parse(arg).expect_err(arg);
    let msg = e.to_string();
    assert!(!msg.contains('\n'), "{arg}: more than one line: {msg}");
    for n in needles {
        assert!(msg.contains(n), "{arg}: {msg:?} lacks {n:?}");
    }
    e
}

fn path(f: &tempfile::NamedTempFile) -> &str {
    f.path().to_str().unwrap()
}

#[test]
fn inline_lists_are_read_as_rows_of_ids() {
    assert_eq!(ok("1,2,3,4;5,6,7,8"), array![[1, 2, 3, 4], [5, 6, 7, 8]]);
    assert_eq!(ok("42"), array![[42]]);
    assert_eq!(ok("0,9223372036854775807"), array![[0, i64::MAX]]);
    assert_eq!(ok("007,10"), array![[7, 10]]);
}

#[test]
fn spaces_around_items_and_a_trailing_semicolon_are_allowed() {
    assert_eq!(ok(" 1 , 2 ; 3,\t4 "), array![[1, 2], [3, 4]]);
    assert_eq!(ok("1,2;3,4;"), array![[1, 2], [3, 4]]);
    assert_eq!(ok("1,2;3,4 ; "), array![[1, 2], [3, 4]]);
    assert_eq!(ok("5,6;"), array![[5, 6]]);
}

#[test]
fn int64_and_int32_npy_files_are_read() {
    let f = file("<i8", "(2, 3)", &i8_bytes(&[1, 2, 3, 4, 5, 6]));
    assert_eq!(ok(path(&f)), array![[1, 2, 3], [4, 5, 6]]);
    let f = file("<i4", "(2, 2)", &i4_bytes(&[9, 8, 7, 0]));
    assert_eq!(ok(path(&f)), array![[9, 8], [7, 0]]);
}

#[test]
fn a_1d_npy_is_one_row() {
    let f = file("<i8", "(4,)", &i8_bytes(&[3, 1, 4, 1]));
    assert_eq!(ok(path(&f)), array![[3, 1, 4, 1]]);
    let f = file("<i4", "(3,)", &i4_bytes(&[2, 7, 1]));
    assert_eq!(ok(path(&f)), array![[2, 7, 1]]);
}

#[test]
fn an_empty_list_is_refused() {
    for arg in ["", "   "] {
        let e = refused(arg, &["holds no ids", "allowed: ids like '1,2,3;4,5,6'"]);
        assert!(matches!(e, TokensError::Empty { .. }), "{e:?}");
    }
}

#[test]
fn an_empty_row_is_refused_naming_it() {
    refused(
        "1,2;;3,4",
        &["row 1 is empty", "allowed: one or more ids in every row"],
    );
    refused(";1,2", &["row 0 is empty"]);
    refused(";", &["row 0 is empty"]);
    refused("1,2;;", &["row 1 is empty"]);
}

#[test]
fn a_bad_item_is_refused_naming_it_and_its_position() {
    let allowed = "allowed: ids 0 to V − 1 (whole numbers), or the path of an int64 .npy";
    refused(
        "1,2;3,x",
        &["item 'x' at (1, 1) is not a whole number", allowed],
    );
    refused(
        "1.5",
        &["item '1.5' at (0, 0) is not a whole number", allowed],
    );
    refused("+3,4", &["item '+3' at (0, 0) is not a whole number"]);
    refused("1,2,-3", &["item '-3' at (0, 2) is negative", allowed]);
    refused("1,,2", &["item '' at (0, 1) is empty"]);
    refused("1,2,", &["item '' at (0, 2) is empty"]);
    refused("1 2", &["item '1 2' at (0, 0) is not a whole number"]);
    refused(
        "9223372036854775808",
        &["item '9223372036854775808' at (0, 0) is too large"],
    );
    // A user's string is escaped, not printed as it is.
    refused("1,\u{1b}[2J", &["item '\\u{1b}[2J' at (0, 1)"]);
}

#[test]
fn rows_of_different_lengths_are_refused_naming_both() {
    refused(
        "1,2,3;4,5",
        &[
            "row 1 has 2 ids but row 0 has 3",
            "allowed: every row of one length T",
        ],
    );
    refused("1,2;3,4;5,6,7", &["row 2 has 3 ids but row 0 has 2"]);
}

#[test]
fn more_than_the_limit_is_refused() {
    let at_limit = vec!["0"; MAX_IDS].join(",");
    assert_eq!(ok(&at_limit).shape(), [1, MAX_IDS]);
    let over = format!("{at_limit};1");
    refused(
        &over,
        &["holds 1048577 ids", "allowed: at most 1048576 (1 << 20)"],
    );
    // A file says its count in its header; it is refused before its values
    // are read (here there are none: the length check would refuse them).
    let f = file("<i4", "(1025, 1024)", &i4_bytes(&vec![0; 1025 * 1024]));
    refused(path(&f), &["holds 1049600 ids", "allowed: at most 1048576"]);
}

#[test]
fn a_3d_or_0d_npy_is_refused_naming_its_shape() {
    let f = file("<i8", "(2, 2, 2)", &i8_bytes(&[0; 8]));
    refused(
        path(&f),
        &[".npy holds an array of shape (2,2,2); allowed: (B, T) or (T,)"],
    );
    let f = file("<i8", "()", &i8_bytes(&[0]));
    refused(path(&f), &["shape (); allowed: (B, T) or (T,)"]);
}

#[test]
fn an_npy_with_no_ids_is_refused() {
    let f = file("<i8", "(2, 0)", &[]);
    refused(path(&f), &[".npy' holds no ids"]);
}

#[test]
fn a_negative_id_in_an_npy_is_refused_naming_it() {
    let f = file("<i4", "(2, 2)", &i4_bytes(&[1, 2, 3, -7]));
    refused(
        path(&f),
        &["holds token id -7 at (1, 1); allowed: ids 0 or more"],
    );
    let f = file("<i8", "(3,)", &i8_bytes(&[1, -1, 2]));
    refused(path(&f), &["holds token id -1 at (0, 1)"]);
}

#[test]
fn npy_problems_are_the_npy_reader_s_messages() {
    let f = file("<f4", "(2, 2)", &[0; 16]);
    let e = refused(
        path(&f),
        &["holds dtype '<f4'; allowed: '<i8' (int64) or '<i4' (int32), little-endian"],
    );
    assert!(matches!(e, TokensError::Npy(_)), "{e:?}");
    refused(
        "/no/such/dir/ids.npy",
        &["cannot read /no/such/dir/ids.npy"],
    );
    let f = file("<i8", "(2, 2)", &[0; 8]);
    refused(path(&f), &["needs 32 data bytes, the file holds 8"]);
}

#[test]
fn ids_in_the_vocabulary_pass() {
    assert_eq!(check_range(&array![[0, 95], [1, 2]], 96), Ok(()));
}

#[test]
fn the_first_id_out_of_range_is_named_with_its_position() {
    let e = check_range(&array![[0, 1, 2, 96], [97, 1, 2, 3]], 96).unwrap_err();
    assert_eq!(
        e.to_string(),
        "token id 96 at (0, 3) is out of range; allowed: 0 to 95 (vocab 96)"
    );
    let e = check_range(&array![[0, 1], [-1, 1]], 96).unwrap_err();
    assert_eq!(
        e.to_string(),
        "token id -1 at (1, 0) is out of range; allowed: 0 to 95 (vocab 96)"
    );
    let e = check_range(&array![[0]], 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "token id 0 at (0, 0) is out of range; allowed: none (vocab 0)"
    );
}

use super::{NpyError, read, read_ids};
use std::io::Write;

/// A version 1.0 `.npy` with a hand-built header and `data` as its values,
/// in a file whose name ends in `.npy`.
pub(crate) fn file(descr: &str, shape: &str, data: &[u8]) -> tempfile::NamedTempFile {
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (h.len() + 11) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let len = u16::try_from(h.len()).unwrap().to_le_bytes();
    let mut f = tempfile::Builder::new().suffix(".npy").tempfile().unwrap();
    f.write_all(b"\x93NUMPY\x01\x00").unwrap();
    f.write_all(&len).unwrap();
    f.write_all(h.as_bytes()).unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    f
}

/// `ids` as little-endian int64 bytes.
pub(crate) fn i8_bytes(ids: &[i64]) -> Vec<u8> {
    ids.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// `ids` as little-endian int32 bytes.
pub(crate) fn i4_bytes(ids: &[i32]) -> Vec<u8> {
    ids.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[test]
fn int64_and_int32_ids_are_read_widened() {
    let f = file("<i8", "(2, 3)", &i8_bytes(&[0, 1, 2, 3, -4, i64::MAX]));
    let a = read_ids(f.path()).unwrap();
    assert_eq!(a.shape(), [2, 3]);
    assert_eq!(
        a.iter().copied().collect::<Vec<_>>(),
        [0, 1, 2, 3, -4, i64::MAX]
    );
    let f = file("<i4", "(4,)", &i4_bytes(&[7, -1, 0, i32::MAX]));
    let a = read_ids(f.path()).unwrap();
    assert_eq!(a.shape(), [4]);
    assert_eq!(
        a.iter().copied().collect::<Vec<_>>(),
        [7, -1, 0, i64::from(i32::MAX)]
    );
}

#[test]
fn ids_of_another_dtype_are_refused_naming_it_and_the_allowed() {
    let f = file("<f4", "(2,)", &[0; 8]);
    let e = read_ids(f.path()).unwrap_err();
    assert!(matches!(e, NpyError::IdsDtype { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.ends_with(" holds dtype '<f4'; allowed: '<i8' (int64) or '<i4' (int32), little-endian"),
        "{msg}"
    );
    for descr in [">i8", "<u8", "|i1", "<i2"] {
        let f = file(descr, "(2,)", &[0; 16]);
        let msg = read_ids(f.path()).unwrap_err().to_string();
        assert!(
            msg.contains(&format!("dtype '{descr}'; allowed: '<i8'")),
            "{msg}"
        );
    }
}

#[test]
fn the_f32_path_still_reads_only_f4_with_its_message() {
    for (descr, bytes) in [("<i8", 16), ("<i4", 8)] {
        let f = file(descr, "(2,)", &vec![0; bytes]);
        let e = read(f.path()).unwrap_err();
        assert!(matches!(e, NpyError::Dtype { .. }), "{e:?}");
        let msg = e.to_string();
        assert!(
            msg.ends_with(&format!(
                " holds dtype '{descr}'; allowed: '<f4' (float32, little-endian)"
            )),
            "{msg}"
        );
    }
    let f = file("<f4", "(2,)", &[0, 0, 128, 63, 0, 0, 0, 64]);
    assert_eq!(
        read(f.path()).unwrap().iter().copied().collect::<Vec<_>>(),
        [1.0, 2.0]
    );
}

#[test]
fn a_file_opened_for_one_kind_is_not_read_as_the_other() {
    let f = file("<i8", "(1,)", &[0; 8]);
    let e = super::Npy::open_ids(f.path()).unwrap().read().unwrap_err();
    assert!(e.to_string().contains("allowed: '<f4'"), "{e}");
    let f = file("<f4", "(1,)", &[0; 4]);
    let e = super::Npy::open(f.path()).unwrap().read_ids().unwrap_err();
    assert!(e.to_string().contains("allowed: '<i8'"), "{e}");
}

#[test]
fn the_data_length_follows_the_element_width() {
    // (2, 3) int64 needs 48 bytes; int32 24.
    let f = file("<i8", "(2, 3)", &[0; 24]);
    let msg = read_ids(f.path()).unwrap_err().to_string();
    assert!(
        msg.contains("shape (2,3) needs 48 data bytes, the file holds 24"),
        "{msg}"
    );
    assert!(
        msg.ends_with("allowed: an int64 or int32 .npy of shape (B, T) or (T,)"),
        "{msg}"
    );
    let f = file("<i4", "(2, 3)", &[0; 48]);
    let msg = read_ids(f.path()).unwrap_err().to_string();
    assert!(
        msg.contains("needs 24 data bytes, the file holds 48"),
        "{msg}"
    );
    // The f32 reader keeps its own words.
    let f = file("<f4", "(2, 3)", &[0; 4]);
    let msg = read(f.path()).unwrap_err().to_string();
    assert!(
        msg.contains("needs 24 data bytes, the file holds 4; allowed: a float32 .npy of shape (B, T, d_model)"),
        "{msg}"
    );
}

#[test]
fn fortran_order_ids_are_refused() {
    let f = file("<i8", "(2,)", &[0; 16]);
    let mut bytes = std::fs::read(f.path()).unwrap();
    let at = bytes.windows(5).position(|w| w == b"False").unwrap();
    bytes[at..at + 5].copy_from_slice(b"True ");
    let mut g = tempfile::Builder::new().suffix(".npy").tempfile().unwrap();
    g.write_all(&bytes).unwrap();
    let msg = read_ids(g.path()).unwrap_err().to_string();
    assert!(msg.contains("Fortran order; allowed: C order"), "{msg}");
}

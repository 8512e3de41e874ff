//! Tensor shapes and how they are written: `(2,4,64)`, or with the axes'
//! names, `(B=2,T=4,d=64)`.

mod axis;

pub use axis::{Axis, axes};

/// A tensor shape, outermost axis first.
pub type Shape = Vec<usize>;

/// Formats a shape as `(2,4,64)`.
#[must_use]
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("({})", parts.join(","))
}

/// The axes as written, between `sep`: `B, h, Tq, Tk`.
#[must_use]
pub fn joined(axes: &[Axis], sep: &str) -> String {
    let names: Vec<String> = axes.iter().map(ToString::to_string).collect();
    names.join(sep)
}

/// Formats a shape with its axes' names, `(B=2,h=4,T=4,hd=16)`; as
/// [`fmt_shape`] when the names do not match the axes one for one.
#[must_use]
pub fn named(shape: &[usize], axes: &[Axis]) -> String {
    if axes.len() != shape.len() {
        return fmt_shape(shape);
    }
    let parts: Vec<String> = axes
        .iter()
        .zip(shape)
        // An axis known only by its bound (`n_e≤`) reads `n_e≤8`.
        .map(|(a, n)| {
            if a.is_bound() {
                format!("{a}{n}")
            } else {
                format!("{a}={n}")
            }
        })
        .collect();
    format!("({})", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::{axes, named};

    /// A count known only by its bound reads `n_e≤8`; the others `d=64`.
    #[test]
    fn a_bound_axis_reads_with_its_bound() {
        assert_eq!(named(&[8, 64], &axes(&["n_e≤", "d"])), "(n_e≤8,d=64)");
        assert_eq!(named(&[8, 64], &axes(&["n_e", "d"])), "(n_e=8,d=64)");
        assert_eq!(
            named(&[2, 4, 64], &axes(&["B·T", "[T→1]", "3d"])),
            "(B·T=2,[T→1]=4,3d=64)"
        );
        assert_eq!(named(&[2, 4], &axes(&["B"])), "(2,4)");
    }
}

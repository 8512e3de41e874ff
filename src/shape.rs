//! Tensor shapes and how they are written: `(2,4,64)`, or with the axes'
//! names, `(B=2,T=4,d=64)`.

/// A tensor shape, outermost axis first.
pub type Shape = Vec<usize>;

/// Formats a shape as `(2,4,64)`.
#[must_use]
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("({})", parts.join(","))
}

/// Formats a shape with its axes' names, `(B=2,h=4,T=4,hd=16)`; as
/// [`fmt_shape`] when the names do not match the axes one for one.
#[must_use]
pub fn named(shape: &[usize], axes: &[String]) -> String {
    if axes.len() != shape.len() {
        return fmt_shape(shape);
    }
    let parts: Vec<String> = axes
        .iter()
        .zip(shape)
        // An axis known only by its bound (`n_e≤`) reads `n_e≤8`.
        .map(|(a, n)| {
            if a.ends_with('≤') {
                format!("{a}{n}")
            } else {
                format!("{a}={n}")
            }
        })
        .collect();
    format!("({})", parts.join(","))
}

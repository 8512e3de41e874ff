//! What a lesson input can get wrong, each as one line naming the value
//! and what is allowed.

/// A lesson input that does not fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LessonError {
    /// An entry of x is not a finite number.
    #[error(
        "'{}' in x = {} is not a finite number; allowed: finite numbers separated by commas, like 2,-1 or 3,4",
        crate::text::shown(.got),
        crate::text::shown(.input)
    )]
    NotANumber {
        /// The entry that did not parse, e.g. `abc` or `inf`.
        got: String,
        /// The whole x as given.
        input: String,
    },
    /// x has the wrong number of entries for the lab's width d.
    #[error("x = {} has {got} numbers; allowed: exactly {want} (d = {want})", crate::text::shown(.input))]
    Length {
        /// The whole x as given.
        input: String,
        /// How many numbers it holds.
        got: usize,
        /// d, the width the lab needs.
        want: usize,
    },
    /// x has no numbers at all.
    #[error("x is empty; allowed: numbers separated by commas, like 2,-1 or 3,4")]
    Empty,
    /// The matrices do not chain (e.g. W2's rows are not W1's columns),
    /// or gated matrices were given without `--gated`; the message says which.
    #[error("{0}")]
    Shape(String),
    /// A matrix that does not parse: ragged, empty or not numbers.
    #[error(
        "{name} = '{}' {why}; allowed: rows of numbers separated by ';', each row's numbers by ',', like 1,1;0,-1",
        crate::text::shown(.input)
    )]
    Matrix {
        /// The matrix, e.g. `W1`.
        name: String,
        /// The text given for it.
        input: String,
        /// What is wrong, e.g. `is ragged: row 2 has 3 numbers, row 1 has 2`.
        why: String,
    },
    /// A width or hidden size outside what a lab by hand can show.
    #[error("{what} = {got} is out of range for a lab by hand; allowed: 1 to {max}")]
    Size {
        /// The size, `d` or `f`.
        what: String,
        /// The value given.
        got: usize,
        /// The largest the lab shows.
        max: usize,
    },
    /// A size that the given matrices contradict.
    #[error("{given} contradicts {by}; allowed: {allowed}")]
    Contradicts {
        /// The size given, e.g. `d = 3`.
        given: String,
        /// The matrix that contradicts it and the size it implies.
        by: String,
        /// The sizes that would be accepted.
        allowed: String,
    },
    /// A product or sum that leaves the finite f64 range.
    #[error(
        "x = {} overflows f64 at {at}; allowed: values whose products and sums stay finite (below about 1.8e308)",
        crate::text::shown(.input)
    )]
    Overflow {
        /// The step that overflowed, with its terms, e.g. `z_1 = 1e308*2 + …`.
        at: String,
        /// x as given.
        input: String,
    },
}

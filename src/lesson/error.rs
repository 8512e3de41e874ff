//! What a lesson input can get wrong, each as one line naming the value
//! and what is allowed.

/// A lesson input that does not fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LessonError {
    #[error(
        "'{}' in x = {} is not a finite number; allowed: finite numbers separated by commas, like 2,-1 or 3,4",
        crate::text::shown(.got),
        crate::text::shown(.input)
    )]
    NotANumber { got: String, input: String },
    #[error("x = {} has {got} numbers; allowed: exactly {want} (d = {want})", crate::text::shown(.input))]
    Length {
        input: String,
        got: usize,
        want: usize,
    },
    #[error("x is empty; allowed: numbers separated by commas, like 2,-1 or 3,4")]
    Empty,
    #[error("{0}")]
    Shape(String),
    /// A matrix that does not parse: ragged, empty or not numbers.
    #[error(
        "{name} = '{}' {why}; allowed: rows of numbers separated by ';', each row's numbers by ',', like 1,1;0,-1",
        crate::text::shown(.input)
    )]
    Matrix {
        name: String,
        input: String,
        why: String,
    },
    /// A width or hidden size outside what a lab by hand can show.
    #[error("{what} = {got} is out of range for a lab by hand; allowed: 1 to {max}")]
    Size {
        what: String,
        got: usize,
        max: usize,
    },
    /// A size that the given matrices contradict.
    #[error("{given} contradicts {by}; allowed: {allowed}")]
    Contradicts {
        given: String,
        by: String,
        allowed: String,
    },
    /// A product or sum that leaves the finite f64 range.
    #[error(
        "x = {} overflows f64 at {at}; allowed: values whose products and sums stay finite (below about 1.8e308)",
        crate::text::shown(.input)
    )]
    Overflow { at: String, input: String },
}

//! How the numeric kernels split their work: the sizes shared by the
//! row-wise kernels and the moments that summarise their output.

/// Elements from which a kernel runs on every core.
pub const PAR_MIN: usize = 1 << 15;

/// Rows of this many elements split work that has no row structure.
pub const CHUNK: usize = 4096;

//! The quiz's judge, pure and apart from the stepper: predict a step's
//! shape ([`Question`]) or a parameter count ([`count`]) before it is shown.
//!
//! An answer is sizes `2,4,4,16`, axis names `B,h,T,hd` or both
//! `B=2,h=4,T=4,hd=16` ([`parse`]). It is right when it fits the step's
//! shape and axes; when its sizes alone also fit another axis order
//! (h = T = 4), the judge asks which axis is which before it says
//! ([`Verdict::Ask`]). The lesson's named wrong answers ([`mistakes`]) say
//! what the wrong shape would mean.
//!
//! ```
//! use shapetrace::quiz::{Question, Verdict, parse::parse};
//! let run = shapetrace::run(&shapetrace::ModelConfig::default()).unwrap();
//! let q = run.trace.get("block1.attn.q").unwrap();
//! let question = Question::of(q, &run.trace);
//! assert_eq!(question.judge(&parse("B,h,T,hd").unwrap()), Verdict::Right);
//! assert!(matches!(question.judge(&parse("B,T,h,hd").unwrap()), Verdict::Wrong(_)));
//! assert!(matches!(question.judge(&parse("2,4,4,16").unwrap()), Verdict::Ask(_)));
//! ```

#![warn(missing_docs)]

pub mod axis;
pub mod count;
pub mod judge;
pub mod mistakes;
pub mod parse;
#[cfg(test)]
mod tests;

pub use judge::{FollowUp, FollowUpError, Question, Verdict};

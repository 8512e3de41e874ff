//! Bad-input cases of the hardening family "messages".

use super::Case;

pub fn cases() -> Vec<Case> {
    Vec::new()
}

//! Bad-input cases of the hardening family "memory".

use super::Case;

pub fn cases() -> Vec<Case> {
    Vec::new()
}
